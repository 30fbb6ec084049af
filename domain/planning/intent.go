package planning

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Intent is one independent ask found in a description.
type Intent struct {
	TaskType     string  `json:"task_type"`
	Confidence   float64 `json:"confidence"`
	SourcePhrase string  `json:"source_phrase"`

	byPhrase bool // a deliverable phrase named it
	question bool // a question without a request verb asked it
}

var filler = regexp.MustCompile(`(?i)^(please\s+|can you\s+|could you\s+|i need( you)? to\s+|i need\s+|we need( you)? to\s+|we need\s+|help me\s+|i want( you)? to\s+|we want to\s+)+`)

// Title makes a short title of a description: filler dropped, first letter
// upper-cased, at most 60 characters cut at a word boundary.
func Title(description string) string {
	s := strings.Join(strings.Fields(description), " ")
	s = filler.ReplaceAllString(s, "")
	s = strings.TrimRight(s, " .!?;:,")
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)[:60]
		cut := strings.LastIndex(string(r), " ")
		if cut > 20 {
			s = string(r[:cut])
		} else {
			s = string(r)
		}
		s = strings.TrimRight(s, " ,;:-") + "…"
	}
	if s == "" {
		return "Untitled task"
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
