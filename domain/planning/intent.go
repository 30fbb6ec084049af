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
}

// multiConfidence is the confidence each clause needs before a description
// is split into several workflows.
const multiConfidence = 0.5

var clauseSplit = regexp.MustCompile(`(?i)\s*(?:;|\.\s+|,?\s+and then\s+|,?\s+then\s+|,?\s+and also\s+|,\s+and\s+|\s+and\s+|\s+plus\s+)\s*`)

// Intents splits description into clauses and classifies each; it returns
// more than one intent only when at least two clauses are confidently of
// different task types. Clauses of the same type are merged.
func (cl *Classifier) Intents(description string) []Intent {
	parts := clauseSplit.Split(description, -1)
	if len(parts) < 2 {
		return nil
	}
	var out []Intent
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if wordCount(part) < 3 {
			continue
		}
		c := cl.Classify(part)
		if c.Confidence < multiConfidence {
			continue
		}
		merged := false
		for i := range out {
			if out[i].TaskType == c.TaskType {
				out[i].SourcePhrase += "; " + part
				merged = true
			}
		}
		if !merged {
			out = append(out, Intent{TaskType: c.TaskType, Confidence: c.Confidence, SourcePhrase: part})
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
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
