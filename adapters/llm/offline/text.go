package offline

import (
	"hash/fnv"
	"strings"
	"unicode"
	"unicode/utf8"

	"svc/adapters/llm/internal/textutil"
)

// stopwords are English words that carry no topic of their own.
var stopwords = setOf(`a about above across after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing down during each either
etc few for from further had has have having he her here hers him his how i if in into is it its
itself just let like make many may me might more most much must my need needs no nor not now of off
on once only or other our ours out over own per please same shall she should so some such than that
the their theirs them then there these they this those through to too under until up us use using
very via was we were what when where which while who whom why will with within without would you
your yours new want wants get give help create write draft prepare produce build develop design
analyse analyze assess evaluate review identify define outline conduct perform provide run take
based including include next year years month months week weeks day days one two three four five
good best better well way ways thing things something lot lots really able sure focus aim
main key important especially particular particularly around regarding given`)

// foreignStopwords are function words of German, French and Spanish, so
// that key phrases of a description in those languages are still topics.
var foreignStopwords = setOf(`der die das den dem des ein eine einer eines einem einen und oder für von mit im
in zu zum zur auf aus bei ist sind wir unser unsere unseren ich sie es nicht auch als wie nach über
erstelle erstellen bitte soll sollen werden wird kann können le la les un une des du de et pour avec dans
sur au aux est sont nous notre nos je vous il elle pas aussi comme par el los las unos unas del y para
con en por es son nosotros nuestro nuestra nuestros yo usted pero como al lo`)

func init() {
	for w := range foreignStopwords {
		stopwords[w] = true
	}
}

// leadVerbs are imperative openings dropped from a description's subject.
var leadVerbs = setOf(`analyse analyze create write draft prepare produce build develop design plan review
assess evaluate identify define outline conduct perform provide make give help compare map document
summarise summarize recommend propose estimate investigate explore research examine audit study put
set improve optimise optimize find figure work come up with need want please can could you we i`)

// setOf splits a whitespace-separated word list into a set.
func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// words splits text into words: runs of letters, digits and the joiners
// - / & ' inside a word. Sentence punctuation ends a run and is reported as
// a "" boundary so phrase extraction does not cross it.
func words(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, strings.Trim(cur.String(), "-/&'’"))
			cur.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-/&'’+", r):
			cur.WriteRune(r)
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			out = append(out, "")
		}
	}
	flush()
	return out
}

// contentWord reports whether w (any case) is a topic word: not a stopword,
// at least three characters or an acronym/number such as "B2B" or "EU".
func contentWord(w string) bool {
	lw := strings.ToLower(w)
	if w == "" || stopwords[lw] {
		return false
	}
	if utf8.RuneCountInString(w) >= 3 {
		return true
	}
	return w == strings.ToUpper(w) && strings.ToUpper(w) != strings.ToLower(w)
}

// keyTerms returns up to max distinct content words of text (lower case),
// in order of first appearance.
func keyTerms(text string, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(text) {
		lw := strings.ToLower(w)
		if !contentWord(w) || seen[lw] || utf8.RuneCountInString(lw) < 4 && w != strings.ToUpper(w) {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
		if len(out) == max {
			break
		}
	}
	return out
}

// keyPhrases returns up to max distinct key phrases of text: runs of one to
// three content words, as written, preferring longer runs, in order of
// appearance. A single word counts only when it stands alone (not as the
// leftover of a longer run).
func keyPhrases(text string, max int) []string {
	type run struct {
		words    []string
		leftover bool
	}
	var runs []run
	var cur []string
	end := func() {
		long := len(cur) > 3
		for len(cur) > 0 {
			n := min(len(cur), 3)
			runs = append(runs, run{cur[:n], long && n == 1})
			cur = cur[n:]
		}
		cur = nil
	}
	for _, w := range words(text) {
		if contentWord(w) {
			cur = append(cur, w)
			continue
		}
		end()
	}
	end()
	var multi, single []string
	seen := map[string]bool{}
	for _, r := range runs {
		p := strings.Join(r.words, " ")
		if seen[strings.ToLower(p)] || r.leftover {
			continue
		}
		seen[strings.ToLower(p)] = true
		if len(r.words) > 1 {
			multi = append(multi, p)
		} else if utf8.RuneCountInString(p) >= 4 || p == strings.ToUpper(p) {
			single = append(single, p)
		}
	}
	out := append(multi, single...)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// subjectOf derives a short noun phrase for the task from its description:
// the first clause of the first sentence without a leading imperative and
// article, at most 12 words, without trailing stopwords. "" for an empty
// description.
func subjectOf(description string) string {
	first := firstSentence(description)
	if i := strings.IndexAny(first, ",;:(—"); i > 0 {
		first = first[:i]
	}
	for _, cut := range []string{" with ", " including ", " so that ", " because ", " in order to ", " - "} {
		if i := strings.Index(strings.ToLower(first), cut); i > 0 && len(strings.Fields(first[:i])) >= 3 {
			first = first[:i]
		}
	}
	ws := strings.Fields(first)
	for len(ws) > 1 {
		lw := strings.ToLower(strings.Trim(ws[0], ",:;"))
		if leadVerbs[lw] || lw == "a" || lw == "an" || lw == "the" || lw == "to" || lw == "me" || lw == "us" || lw == "up" || lw == "with" {
			ws = ws[1:]
			continue
		}
		break
	}
	if len(ws) > 12 {
		ws = ws[:12]
	}
	for len(ws) > 1 && stopwords[strings.ToLower(ws[len(ws)-1])] {
		ws = ws[:len(ws)-1]
	}
	return strings.TrimRight(strings.Join(ws, " "), ",;:-")
}

// headOf returns the head of a subject: its words up to the first
// preposition after at least two words ("pricing strategy for X" gives
// "pricing strategy"), or the subject when it has none.
func headOf(subject string) string {
	ws := strings.Fields(subject)
	for i := 2; i < len(ws); i++ {
		switch strings.ToLower(ws[i]) {
		case "for", "of", "to", "in", "on", "at", "across", "within", "from", "about", "that", "which", "who", "by":
			return strings.Join(ws[:i], " ")
		}
	}
	return subject
}

// firstSentence returns text up to its first sentence end (., !, ? or a
// line break), trimmed.
func firstSentence(text string) string {
	t := strings.TrimSpace(text)
	for i, r := range t {
		if r == '\n' || (r == '.' || r == '!' || r == '?') && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\n') {
			return strings.TrimSpace(t[:i])
		}
	}
	return t
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// lowerFirst lower-cases the first letter of s unless s starts with an
// acronym.
func lowerFirst(s string) string {
	ws := strings.Fields(s)
	if len(ws) == 0 || ws[0] == strings.ToUpper(ws[0]) {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// pick chooses one of n variants for key, deterministically.
func pick(key string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// languageNote is the one-line note of an answer written in English for a
// request in another language; "" when none is needed.
func languageNote(lang string) string {
	if textutil.EnglishLanguage(lang) {
		return ""
	}
	return "(Written in English; requested language: " + strings.TrimSpace(lang) + ")"
}
