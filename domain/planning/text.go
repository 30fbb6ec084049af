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
// lightly, so "competitors" and "competitor" meet. Words written with
// hyphens or slashes ("out-of-office", "ramp-up", "a/b") also yield their
// parts joined ("outofoffic"), returned apart in compounds, so the compound
// survives even when its parts are stopwords.
func tokens(s string) (words, compounds []string) {
	for _, chunk := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '/'
	}) {
		parts := strings.FieldsFunc(chunk, func(r rune) bool { return r == '-' || r == '/' })
		for _, w := range parts {
			if len(w) < 2 || stopwords[w] {
				continue
			}
			words = append(words, stem(w))
		}
		if len(parts) > 1 {
			compounds = append(compounds, stem(strings.Join(parts, "")))
		}
	}
	return words, compounds
}

// stem strips common English suffixes; crude, but the same on both sides.
// It folds plurals, -ing/-ed (with doubled consonants: "planning" and
// "planned" meet "plan"), -ation, -ment, -ness, -ly and -er, British -ise
// spellings into -ize, and a final e ("rate", "rated" and "rating" meet).
// Plural rules leave -ss, -us and -is words ("access", "status", "analysis").
func stem(w string) string {
	if len(w) <= 3 || !isLetters(w) || keepWhole[w] {
		return w
	}
	// plurals
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	// British spellings: organise, analyse -> organize, analyze
	for _, r := range [][2]string{{"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ise", "ize"}, {"iser", "izer"}, {"yse", "yze"}, {"ysed", "yzed"}, {"ysing", "yzing"}} {
		if strings.HasSuffix(w, r[0]) && len(w)-len(r[0]) >= 3 {
			w = w[:len(w)-len(r[0])] + r[1]
			break
		}
	}
	// up to two derivational or inflectional suffixes ("implementations")
	for round := 0; round < 2; round++ {
		next := strip(w)
		if next == w {
			break
		}
		w = next
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// keepWhole are words the rules would fold into another word.
var keepWhole = map[string]bool{"news": true, "saas": true}

// strip removes the first suffix of the list that leaves a long enough stem
// with a vowel; after -ed and -ing it undoubles a final consonant and
// restores the e of -ate, -ize and -ble ("rated" -> "rate").
func strip(w string) string {
	for _, s := range suffixes {
		if !strings.HasSuffix(w, s.suf) || len(w)-len(s.suf) < s.min {
			continue
		}
		base := w[:len(w)-len(s.suf)]
		if s.suf == "ly" && strings.HasSuffix(base, "p") { // apply, supply
			continue
		}
		if !hasVowel(base) {
			continue
		}
		base += s.add
		if s.verb {
			base = undouble(base)
			for _, e := range []string{"at", "iz", "bl"} {
				if strings.HasSuffix(base, e) {
					base += "e"
					break
				}
			}
		}
		return base
	}
	return w
}

// suffixes in the order they are tried; min is the shortest stem left.
var suffixes = []struct {
	suf, add string
	min      int
	verb     bool // -ed, -ing, -er
}{
	{"ization", "iz", 3, false},
	{"ation", "", 4, false},
	{"ement", "e", 4, false}, // management -> manage
	{"ment", "", 5, false},
	{"ness", "", 4, false},
	{"ate", "", 4, false}, // automate, estimate
	{"ied", "y", 2, false},
	{"ier", "y", 3, false},
	{"ing", "", 3, true},
	{"ed", "", 3, true},
	{"er", "", 4, true},
	{"ly", "", 4, false},
}

func isLetters(w string) bool {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }

// undouble turns a doubled final consonant into one ("plann" -> "plan"),
// except ll, ss and zz ("bill", "access").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// questionWords open a question; a description that starts with one gets
// the feature "?word" ("?how_many" for how many, much, long, often), which
// short factual or yes/no questions share with their type's examples even
// when every other word is a stopword.
var questionWords = map[string]bool{"who": true, "what": true, "when": true, "where": true, "which": true, "why": true,
	"how": true, "is": true, "are": true, "does": true, "do": true, "can": true, "should": true}

// features are a text's unigrams, its adjacent-word bigrams ("risk_register"),
// its hyphenated compounds and its question feature.
func features(s string) []string {
	words, compounds := tokens(s)
	out := append(append([]string(nil), words...), compounds...)
	for i := 0; i+1 < len(words); i++ {
		out = append(out, words[i]+"_"+words[i+1])
	}
	if q := question(s); q != "" {
		out = append(out, q)
	}
	return out
}

// question is the question feature of s, or "".
func question(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if len(f) == 0 {
		return ""
	}
	w := strings.TrimSuffix(strings.TrimSuffix(f[0], "'s"), "'re")
	if !questionWords[w] {
		return ""
	}
	if w == "how" && len(f) > 1 && (f[1] == "many" || f[1] == "much" || f[1] == "long" || f[1] == "often") {
		return "?how_many"
	}
	return "?" + w
}

// wordCount counts whitespace-separated words.
func wordCount(s string) int { return len(strings.Fields(s)) }
