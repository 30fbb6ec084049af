package qualitygate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The grammar of directives in words (spec C's REST body sends strings).
// Case does not matter; a trailing period is dropped; a value may be
// quoted ("...", '...', `...`, “...”), and several quoted values make one
// directive each:
//
//	must include X | include X | mention X | must contain X | cite X  -> must_include X
//	must not include X | do not mention X | never use X | avoid X | no mention of X -> must_not_include X
//	must match /re/ | match re                    -> must_match re
//	must not match /re/ | do not match re         -> must_not_match re
//	... at most|no more than|max|up to N <unit>    -> max_length N <unit>
//	... under|less than|fewer than N <unit>        -> max_length N-1 <unit>
//	... at least|no fewer than|min N <unit>        -> min_length N <unit>
//	... more than|over N <unit>                    -> min_length N+1 <unit>
//	respond in JSON | valid JSON | JSON only ...   -> format json
//	a phrase of at most three words, not an order  -> must_include the phrase
//	anything else                                  -> unrecognised (reported, not checked)
//
// <unit> is characters, chars, words or lines; it is required in words
// unless the sentence says "length" (then characters).

var (
	wordsMax      = regexp.MustCompile(`(?i)\b(max(?:imum)? length(?: of)?|no more than|not more than|not exceed|at most|maximum of|maximum|max|up to|within|under|less than|fewer than|shorter than|below)\s+(\d{1,9})\s*(characters?|chars?|words?|lines?)?\b`)
	wordsMin      = regexp.MustCompile(`(?i)\b(min(?:imum)? length(?: of)?|at least|no fewer than|no less than|minimum of|minimum|min|more than|over|longer than)\s+(\d{1,9})\s*(characters?|chars?|words?|lines?)?\b`)
	wordsJSON     = regexp.MustCompile(`(?i)^(?:(?:respond|answer|reply|output|return|write|format|formatted)\b.*\bjson\b|.*\b(?:valid|only|be|as|in)\s+json\b|json(?:\s+only)?$)`)
	wordsNotMatch = regexp.MustCompile(`(?i)^(?:must not|mustn't|should not|shouldn't|do not|don't|never|does not|doesn't)\s+match(?:es)?\s+(.+)$`)
	wordsMatch    = regexp.MustCompile(`(?i)^(?:(?:must|should|always)\s+)?match(?:es)?\s+(.+)$`)
	wordsNot      = regexp.MustCompile(`(?i)^(?:(?:must not|mustn't|should not|shouldn't|do not|don't|never|does not|doesn't|must never)\s+(?:include|mention|contain|use|say|reference|discuss|cite)s?|avoid(?:\s+mentioning)?|exclude|no mention of|without)\s+(.+)$`)
	wordsInclude  = regexp.MustCompile(`(?i)^(?:(?:must|should|always|please)\s+)?(?:include|mention|contain|reference|cite|state)s?\s+(.+)$`)
	wordsQuoted   = regexp.MustCompile("\"([^\"]+)\"|'([^']+)'|`([^`]+)`|“([^”]+)”")
	wordsRegex    = regexp.MustCompile(`^/(.+)/([a-z]*)$`)
)

// imperative are the verbs that open an order in words ("be concise",
// "use a formal tone"): such a short phrase is not a keyword to include.
var imperative = map[string]bool{"be": true, "use": true, "keep": true, "write": true, "make": true, "ensure": true,
	"respond": true, "answer": true, "reply": true, "do": true, "don't": true, "provide": true, "explain": true, "add": true,
	"give": true, "list": true, "return": true, "stay": true, "sound": true, "sounds": true, "avoid": true, "focus": true,
	"please": true, "try": true, "limit": true, "summarize": true, "summarise": true, "describe": true, "show": true}

// ParseWords reads a directive in words (the grammar above). A value that
// is not valid (a pattern that does not compile) is an error naming it.
func ParseWords(text string) ([]Directive, error) {
	t := strings.TrimSpace(text)
	t = strings.TrimSpace(strings.TrimRight(t, ".!;"))
	words := func(typ DirectiveType, values ...string) ([]Directive, error) {
		out := make([]Directive, 0, len(values))
		for _, v := range values {
			d := Directive{Type: typ, Value: v, Text: text}
			if len(values) > 1 { // each its own label
				d.Text = fmt.Sprintf("%s [%s]", text, v)
			}
			if err := d.compile(); err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		return out, nil
	}
	if t == "" {
		return nil, fmt.Errorf("%w: an empty directive", ErrDirectiveValue)
	}
	if typ, v, ok := wordsLength(t); ok {
		return words(typ, v)
	}
	if wordsJSON.MatchString(t) {
		return words(Format, "json")
	}
	if m := wordsNotMatch.FindStringSubmatch(t); m != nil {
		return words(MustNotMatch, pattern(m[1]))
	}
	if m := wordsMatch.FindStringSubmatch(t); m != nil {
		return words(MustMatch, pattern(m[1]))
	}
	if m := wordsNot.FindStringSubmatch(t); m != nil {
		return words(MustNotInclude, values(m[1])...)
	}
	if m := wordsInclude.FindStringSubmatch(t); m != nil {
		return words(MustInclude, values(m[1])...)
	}
	if f := strings.Fields(t); len(f) <= 3 && !imperative[strings.ToLower(f[0])] {
		return words(MustInclude, values(t)...)
	}
	return words(Unrecognised, t)
}

// wordsLength reads a length bound in t.
func wordsLength(t string) (DirectiveType, string, bool) {
	lengthy := strings.Contains(strings.ToLower(t), "length")
	for _, c := range []struct {
		re  *regexp.Regexp
		typ DirectiveType
	}{{wordsMax, MaxLength}, {wordsMin, MinLength}} {
		m := c.re.FindStringSubmatch(t)
		if m == nil || (m[3] == "" && !lengthy) {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		switch strings.ToLower(m[1]) {
		case "under", "less than", "fewer than", "shorter than", "below":
			n = max(n-1, 0)
		case "more than", "over", "longer than":
			n++
		}
		unit := m[3]
		if unit == "" {
			unit = UnitCharacters
		}
		return c.typ, strconv.Itoa(n) + " " + unit, true
	}
	return "", "", false
}

// values are the quoted values in v, or v unquoted.
func values(v string) []string {
	v = strings.TrimSpace(v)
	ms := wordsQuoted.FindAllStringSubmatch(v, -1)
	if len(ms) == 0 {
		return []string{strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(v, "the word "), "the phrase "))}
	}
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// pattern is a regular expression in words: /re/flags (flags i, m, s),
// quoted, or bare.
func pattern(v string) string {
	v = strings.TrimSpace(v)
	if m := wordsRegex.FindStringSubmatch(v); m != nil {
		flags := ""
		for _, f := range m[2] {
			if strings.ContainsRune("ims", f) && !strings.ContainsRune(flags, f) {
				flags += string(f)
			}
		}
		if flags != "" {
			return "(?" + flags + ")" + m[1]
		}
		return m[1]
	}
	if vs := values(v); len(vs) == 1 {
		return vs[0]
	}
	return v
}
