package planning

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The classifier reads English. A description in German, French or Spanish
// is first carried into English word by word and phrase by phrase through a
// lexicon of the catalogue's vocabulary (data/lexicon_*.tsv), so the same
// tiers classify it; words the lexicon does not know (names, English loan
// words such as "Onboarding" or "Pitch Deck") pass through unchanged.

//go:embed data/lexicon_*.tsv
var lexiconFiles embed.FS

// Languages the classifier reads besides English.
var languages = []string{"de", "fr", "es"}

// token is one word or punctuation mark of a description carried into
// English, with the byte span of its source in the original text.
type token struct {
	text       string // lower-case English (or the source word when unknown)
	start, end int    // source span
	punct      bool   // a clause-bearing mark: . ; ? ! :
	// unknown is a word of another language its lexicon does not know;
	// weak marks one that says little about what is wanted (a lower-case
	// German word: German capitalises its nouns; a short word elsewhere).
	unknown, weak bool
	// aside is a word in parentheses: material, not the request's state
	aside bool
	// item marks a clause mark that separates list items: a semicolon, a
	// line break, a bullet, "1)" or "(b)"
	item bool
}

// lexicon maps a language's accent-folded words and phrases to English.
type lexicon struct {
	entries map[string]string // folded phrase -> English ("" drops it)
	longest int               // words in the longest phrase
}

var lexicons = loadLexicons()

func loadLexicons() map[string]*lexicon {
	out := map[string]*lexicon{}
	for _, lang := range languages {
		b, err := lexiconFiles.ReadFile("data/lexicon_" + lang + ".tsv")
		if err != nil {
			continue // a language without a lexicon reads as English
		}
		lx, err := parseLexicon(b)
		if err != nil {
			panic(fmt.Sprintf("planning: lexicon_%s.tsv: %v", lang, err))
		}
		for from, to := range markerWords[lang] {
			lx.entries[fold(from)] = to
		}
		out[lang] = lx
	}
	return out
}

func parseLexicon(b []byte) (*lexicon, error) {
	lx := &lexicon{entries: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		from, to, ok := strings.Cut(s, "\t")
		if !ok {
			return nil, fmt.Errorf("line %d: no tab", line)
		}
		words := splitWords(fold(strings.TrimSpace(from)))
		if len(words) == 0 {
			continue
		}
		to = strings.TrimSpace(to)
		if to == "-" {
			to = ""
		}
		key := strings.Join(words, " ")
		if _, dup := lx.entries[key]; !dup {
			lx.entries[key] = strings.ToLower(to)
		}
		if len(words) > lx.longest {
			lx.longest = len(words)
		}
	}
	return lx, sc.Err()
}

// markerWords keep the small words the reading of a request needs, which a
// lexicon may drop as function words: demonstratives and prepositions
// mark material ("aus diesem Artikel": from this article), "and" and
// "also" split asks.
var markerWords = map[string]map[string]string{
	"de": {"dieser": "this", "diese": "these", "dieses": "this", "diesem": "this", "diesen": "these", "aus": "from",
		"von": "from", "über": "about", "pro": "per", "je": "per", "und": "and", "außerdem": "also", "zusätzlich": "also", "separat": "separately", "mit": "with"},
	"fr": {"ce": "this", "cet": "this", "cette": "this", "ces": "these", "depuis": "from", "sur": "about", "par": "per",
		"et": "and", "aussi": "also", "également": "also", "séparément": "separately", "avec": "with"},
	"es": {"este": "this", "esta": "this", "estos": "these", "estas": "these", "ese": "this", "esa": "this", "esos": "these",
		"esas": "these", "desde": "from", "sobre": "about", "por": "per", "y": "and", "también": "also", "además": "also", "aparte": "separately", "con": "with"},
}

// fold lower-cases s and strips its accents ("Résumé" -> "resume"); ß is
// kept, the German lexicon spells it.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// splitWords splits folded text into words, dropping punctuation; French
// elisions ("l'", "d'", "qu'") are words of their own.
func splitWords(s string) []string {
	var out []string
	for _, w := range scan(s) {
		if !w.punct {
			out = append(out, w.text)
		}
	}
	return out
}

// scan cuts s into words (letters, digits, inner hyphens and slashes) and
// the clause marks . ; ? ! : with their byte spans; an elided article or
// pronoun ("l'", "d'", "j'") is cut off its word.
func scan(s string) []token {
	var out []token
	start := -1
	quoted, depth, opened := false, 0, -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		defer func(from int) {
			for k := from; k < len(out); k++ {
				out[k].aside = depth > 0
			}
		}(len(out))
		w := s[start:end]
		if i := strings.IndexAny(w, "'’"); i > 0 && i < len(w)-1 && elisions[w[:i]] {
			quote := len("'")
			if w[i] != '\'' {
				quote = len("’")
			}
			out = append(out, token{text: w[:i+1], start: start, end: start + i + quote})
			out = append(out, token{text: w[i+quote:], start: start + i + quote, end: end})
		} else if strings.Trim(w, "-") == "" {
			out = append(out, token{text: ".", start: start, end: end, punct: true}) // a dash between words
		} else {
			out = append(out, token{text: strings.Trim(w, "-/'’"), start: start, end: end})
		}
		start = -1
	}
	for i, r := range s {
		if strings.ContainsRune("\"“”«»„`", r) || r == '\'' && quoteMark(s, i, start >= 0) {
			flush(i)
			quoted = !quoted
			continue
		}
		switch {
		case r == '(' || r == ')':
			flush(i)
			switch {
			case r == '(':
				depth++
				opened = len(out)
			case depth > 0 && len(out) == opened+1 && listMark(out[opened].text):
				depth--
				out[opened] = token{text: ".", start: out[opened].start, end: i + 1, punct: true, item: true} // "(1) …", "(b) …": a list item
			case depth > 0:
				depth--
			default:
				if n := len(out); n > 0 && listMark(out[n-1].text) {
					out[n-1] = token{text: ".", start: out[n-1].start, end: i + 1, punct: true, item: true} // "1) …": a list item
				}
			}
			continue
		case quoted && strings.ContainsRune(".;?!:", r):
			flush(i) // a quoted question is material, not a clause of the request
		case r == '\n' || r == '•':
			flush(i)
			out = append(out, token{text: ".", start: i, end: i + len(string(r)), punct: true, item: true}) // a line or a bullet is an item
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '/' || r == '\'' || r == '’' || r == '&':
			if start < 0 {
				start = i
			}
		default:
			flush(i)
			if strings.ContainsRune(".;?!:–—", r) {
				out = append(out, token{text: string(r), start: i, end: i + len(string(r)), punct: true, item: r == ';'})
			} else if r == ',' || r == '+' {
				out = append(out, token{text: string(r), start: i, end: i + 1})
			}
		}
	}
	flush(len(s))
	kept := out[:0]
	for _, t := range out {
		if t.text != "" {
			kept = append(kept, t)
		}
	}
	return kept
}

// listMark reports whether a word marks a list item before ")": one or
// two digits or one letter a–h.
func listMark(w string) bool {
	return isDigits(w) && len(w) <= 2 || len(w) == 1 && w[0] >= 'a' && w[0] <= 'h'
}

// elisions are the French words that lose their vowel before another
// ("l'équipe", "d'information", "qu'il"); English contractions ("we're",
// "don't") stay whole.
var elisions = set("l d j qu n s c m t jusqu lorsqu puisqu")

// quoteMark reports whether the apostrophe at i of s is a quotation mark:
// it opens a word after a space or starts s, or it closes a word before
// a space, a mark or the end; an apostrophe inside a word ("we're",
// "l'équipe") is not one.
func quoteMark(s string, i int, inWord bool) bool {
	next := i + 1
	nextLetter := next < len(s) && (unicode.IsLetter(rune(s[next])) || s[next] >= 0x80)
	if !inWord {
		return nextLetter
	}
	return !nextLetter
}

// languageMarks are function words that tell the languages apart; a
// description is English unless another language's marks clearly outnumber
// English ones.
var languageMarks = map[string]map[string]bool{
	"en": set("the and of to for with our we you is are this that please can could need an be it on in from about what how"),
	"de": set("der die das und ist nicht ich wir ein eine einen einem einer für mit auf den dem des zu von bitte unsere unser unseren unserer sie es im ihr wie was kannst können könnten brauche brauchen soll sollte über bis"),
	"fr": set("le la les et est pas je nous un une des pour avec sur du au aux notre nos vous il elle ce cette ces qui que peux pouvez besoin merci dans en par plus j' l' d' qu'"),
	"es": set("el la los las y es no yo nosotros un una unos unas para con por del al nuestro nuestra nuestros nuestras usted que se necesito necesitamos puedes podrías sobre como en mi mis tu"),
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[fold(w)] = true
	}
	return m
}

// detectLanguage names the language of words (folded): "en", "de", "fr" or
// "es". Words shared by two languages ("la", "en") count for both.
func detectLanguage(words []string) string {
	score := map[string]int{}
	for _, w := range words {
		for lang, marks := range languageMarks {
			if marks[w] {
				score[lang]++
			}
		}
	}
	// the other languages tie on shared words ("un", "la", "en"): the one
	// whose lexicon knows more of the words wins
	known := map[string]int{}
	for _, lang := range languages {
		if lx := lexicons[lang]; lx != nil && score[lang] > 0 {
			for _, w := range words {
				if _, ok := lx.entries[w]; ok && len(w) > 2 {
					known[lang]++
				}
			}
		}
	}
	best, bestN := "en", score["en"]
	for _, lang := range languages {
		if score[lang] > bestN || best != "en" && score[lang] == bestN && known[lang] > known[best] {
			best, bestN = lang, score[lang]
		}
	}
	if best == "en" {
		// few function words ("Marktanalyse zum Dienstrad-Leasing für
		// Unternehmen in Deutschland: …"): a lexicon that knows most words
		for _, lang := range languages {
			if score[lang] > 0 && score[lang] >= score["en"] && known[lang] >= 3 && float64(known[lang]) >= 0.4*float64(len(words)) &&
				(best == "en" || known[lang] > known[best]) {
				best = lang
			}
		}
		if best != "en" {
			return best
		}
	}
	if best != "en" && bestN < 2 && score["en"] == 0 {
		// one mark is enough when nothing speaks for English
		return best
	}
	if best != "en" && bestN < 2 {
		return "en"
	}
	return best
}

// toEnglish carries description into English tokens with their source
// spans, and names the language it was read as.
func toEnglish(description string) ([]token, string) {
	description = blankCode(description)
	raw := scan(fold(description))
	// fold keeps byte offsets only for ASCII; map spans back through a
	// folded-offset table when the description has other characters
	spans := foldedSpans(description)
	for i := range raw {
		raw[i].start, raw[i].end = spans[raw[i].start], spans[raw[i].end]
	}
	var words []string
	for _, t := range raw {
		if !t.punct && t.text != "," {
			words = append(words, t.text)
		}
	}
	lang := detectLanguage(words)
	lx := lexicons[lang]
	if lang == "en" || lx == nil {
		return phrasal(raw), lang
	}
	var out []token
	for i := 0; i < len(raw); {
		t := raw[i]
		if t.punct || t.text == "," {
			out = append(out, t)
			i++
			continue
		}
		n, en := lx.match(raw[i:])
		if n == 0 {
			if strings.Contains(t.text, "-") {
				// "SEO-Artikel", "e-mail-sequenz": each part on its own
				for _, part := range strings.Split(t.text, "-") {
					if part == "" {
						continue
					}
					en := lx.entries[part]
					if en == "" {
						en = lx.decompound(part, lang)
					}
					if en == "" {
						en = part
					}
					for _, w := range strings.Fields(en) {
						out = append(out, token{text: w, start: t.start, end: t.end})
					}
				}
			} else if parts := lx.decompound(t.text, lang); parts != "" {
				for _, w := range strings.Fields(parts) {
					out = append(out, token{text: w, start: t.start, end: t.end})
				}
			} else {
				t.unknown = true
				t.weak = weakUnknown(description, t, lang)
				out = append(out, t)
			}
			i++
			continue
		}
		for _, w := range strings.Fields(en) {
			out = append(out, token{text: w, start: t.start, end: raw[i+n-1].end})
		}
		i += n
	}
	return out, lang
}

// weakUnknown reports whether an unknown word of lang says little about
// what is wanted: in German a word not written with a capital (German
// capitalises nouns and names), elsewhere a word of fewer than six letters.
func weakUnknown(description string, t token, lang string) bool {
	if isDigits(t.text) {
		return false
	}
	if lang == "de" {
		r := []rune(description[t.start:t.end])
		return len(r) > 0 && !unicode.IsUpper(r[0])
	}
	return len([]rune(t.text)) < 6
}

// sqlStatement is an SQL statement written in capitals inside a
// description ("…before I run it: ALTER TABLE orders ADD COLUMN …;").
var sqlStatement = regexp.MustCompile(`\b(ALTER TABLE|CREATE (UNIQUE )?INDEX|CREATE TABLE|DROP (TABLE|INDEX)|INSERT INTO|SELECT\b[^;\n]*\bFROM|UPDATE \w+ SET|DELETE FROM)[^;\n]*;?`)

// codeLine reports whether a line (not the first) looks like source code.
var codeLine = regexp.MustCompile(`^(\s{2,}|\t)|[{}]|:=|=>|\);?\s*$|^\s*(def|func|return|import|package|class|const|var|let|if|for|while)\b|^\s*#include|</`)

// blankCode replaces code in a description with spaces, keeping every
// byte offset: the material of a code review is not part of the request
// ("for _, j := range jobs {" holds no clauses, "CREATE INDEX" asks for
// nothing).
func blankCode(s string) string {
	b := []byte(s)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	for _, m := range sqlStatement.FindAllStringIndex(s, -1) {
		blank(m[0], m[1])
	}
	start := strings.IndexByte(s, '\n')
	for start >= 0 && start < len(s) {
		end := strings.IndexByte(s[start+1:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start + 1
		}
		if line := s[start+1 : end]; strings.TrimSpace(line) != "" && codeLine.MatchString(line) {
			blank(start+1, end)
		}
		start = end
	}
	return string(b)
}

// match finds the longest lexicon phrase at the start of ts: the words it
// covers and their English.
func (lx *lexicon) match(ts []token) (int, string) {
	for n := min(lx.longest, len(ts)); n >= 1; n-- {
		words := make([]string, 0, n)
		ok := true
		for _, t := range ts[:n] {
			if t.punct || t.text == "," {
				ok = false
				break
			}
			words = append(words, t.text)
		}
		if !ok {
			continue
		}
		if en, found := lx.entries[strings.Join(words, " ")]; found {
			return n, en
		}
	}
	// a plural or elided form the lexicon lists only in its base form
	if w := ts[0].text; len(w) > 3 {
		for _, base := range []string{strings.TrimSuffix(w, "s"), strings.TrimSuffix(w, "es"), strings.TrimSuffix(w, "en"), strings.TrimSuffix(w, "n"), strings.TrimSuffix(w, "e")} {
			if base == w {
				continue
			}
			if en, found := lx.entries[base]; found {
				return 1, en
			}
		}
	}
	return 0, ""
}

// decompound reads an unknown German word as two or three known parts
// ("kundenabwanderungsanalyse" -> "customer churn analysis"), allowing the
// linking letters s, es, n, en and er between parts. "" when it cannot.
func (lx *lexicon) decompound(w, lang string) string {
	if lang != "de" || len([]rune(w)) < 8 {
		return ""
	}
	parts := lx.split(w, 3)
	if parts == nil {
		return ""
	}
	var en []string
	for _, p := range parts {
		if e := lx.entries[p]; e != "" {
			en = append(en, e)
		}
	}
	return strings.Join(en, " ")
}

// split cuts w into at most depth known parts, longest head first.
func (lx *lexicon) split(w string, depth int) []string {
	if _, ok := lx.entries[w]; ok && lx.entries[w] != "" {
		return []string{w}
	}
	if depth == 1 {
		if n, _ := lx.match([]token{{text: w}}); n == 1 {
			return []string{w}
		}
		return nil
	}
	for i := len(w) - 3; i >= 3; i-- {
		head := w[:i]
		if lx.entries[head] == "" {
			continue
		}
		rest := w[i:]
		for _, link := range []string{"", "s", "es", "n", "en", "er"} {
			if !strings.HasPrefix(rest, link) || len(rest)-len(link) < 3 {
				continue
			}
			if tail := lx.split(rest[len(link):], depth-1); tail != nil {
				return append([]string{head}, tail...)
			}
		}
	}
	return nil
}

// foldedSpans maps each byte offset of fold(s) to the offset in s it came
// from (one past the end included).
func foldedSpans(s string) []int {
	var spans []int
	for i, r := range s {
		f := fold(string(r))
		for range len(f) {
			spans = append(spans, i)
		}
	}
	return append(spans, len(s))
}
