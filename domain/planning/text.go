package planning

import (
	"strings"
	"unicode"
)

// stopwords carry no signal about the kind of work asked for.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on for with at by from as is are be been being was were
	this that these those it its we our us you your i me my they them their he she his her there here what which who whom
	how when where why can could would should will shall may might must do does did done have has had having not no
	please need needs want wants like just also some any all each every into onto about over under than then so such
	very more most less least own same other another up down out off again further once only both few many much
	get got make made let lets help write create draft prepare produce give put`) {
		stopwords[w] = true
	}
}

// tokens lower-cases s, splits it into words, drops stopwords and stems
// lightly, so "competitors" and "competitor" meet.
func tokens(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if len(w) < 2 || stopwords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips common English suffixes; crude, but the same on both sides.
func stem(w string) string {
	if len(w) <= 4 {
		return w
	}
	for _, suf := range []string{"ational", "ization", "ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "ly", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			base := w[:len(w)-len(suf)]
			if suf == "ies" || suf == "ied" {
				base += "y"
			}
			return base
		}
	}
	return w
}

// features are a text's unigrams plus its adjacent-word bigrams.
func features(s string) []string {
	t := tokens(s)
	out := append([]string(nil), t...)
	for i := 0; i+1 < len(t); i++ {
		out = append(out, t[i]+"_"+t[i+1])
	}
	return out
}

// wordCount counts whitespace-separated words.
func wordCount(s string) int { return len(strings.Fields(s)) }
