package injection

import (
	"strings"
	"unicode"
)

// match runs the rules over n, paragraph by paragraph (a phrase may
// wrap over lines, not over a blank line; short inputs also match
// faster); discussion lowers quoted findings.
func (n normalized) match(discussion bool) []Finding {
	var out []Finding
	for _, c := range chunks(n.text) {
		start := c[0]
		para := n.text[c[0]:c[1]]
		for _, r := range rules {
			if !open(r.gate, para) {
				continue
			}
			for _, m := range r.re.FindAllStringIndex(para, -1) {
				s, e := start+m[0], start+m[1]
				f := n.finding(r.name, r.severity, s, e)
				if q, speaks := quoted(n.text, s, e); q && (discussion || speaks) {
					f.Severity, f.Discussed = Low, true
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// Chunks: a paragraph over maxChunk bytes is cut into pieces of about
// maxChunk at spaces, each starting overlap bytes before the previous
// one's end, so that a phrase over a cut is still seen whole.
const (
	maxChunk = 1024
	overlap  = 200
)

// chunks cuts t into paragraphs (at blank lines), and long paragraphs
// into overlapping pieces.
func chunks(t string) [][2]int {
	var out [][2]int
	for start := 0; start < len(t); {
		end := strings.Index(t[start:], "\n\n")
		if end < 0 {
			end = len(t)
		} else {
			end += start + 1
		}
		for s := start; ; {
			if end-s <= maxChunk {
				out = append(out, [2]int{s, end})
				break
			}
			cut := s + maxChunk
			if i := strings.LastIndexByte(t[s+maxChunk/2:cut], ' '); i >= 0 {
				cut = s + maxChunk/2 + i
			}
			out = append(out, [2]int{s, cut})
			next := cut - overlap
			if i := strings.IndexByte(t[next:cut], ' '); i >= 0 {
				next += i + 1
			}
			s = next
		}
		start = end + 1
	}
	return out
}

// finding is the finding of rule over the normalized bytes [s, e).
func (n normalized) finding(rule string, sev Severity, s, e int) Finding {
	start, end := n.span(s, e)
	ex := n.text[s:e]
	if len(ex) > 80 {
		ex = strings.ToValidUTF8(ex[:80], "")
	}
	return Finding{Rule: rule, Severity: sev, Start: start, End: end, Excerpt: ex}
}

// quoted reports whether the normalized bytes [s, e) sit between quotes
// or backticks on their line, and whether a speech tag follows the
// closing quote (dialogue in a story).
func quoted(t string, s, e int) (q, speaks bool) {
	ls := strings.LastIndexByte(t[:s], '\n') + 1
	le := strings.IndexByte(t[e:], '\n')
	if le < 0 {
		le = len(t)
	} else {
		le += e
	}
	before, after := t[ls:s], t[e:le]
	for _, q := range []string{`"`, "`"} {
		if i := strings.Index(after, q); strings.Count(before, q)%2 == 1 && i >= 0 {
			return true, speech.MatchString(after[i+1:])
		}
	}
	// a single quote is also an apostrophe: a quote opens after a
	// non-letter and closes before one, within the line
	open := -1
	for i := 0; i < len(before); i++ {
		if before[i] != '\'' {
			continue
		}
		switch {
		case open < 0 && (i == 0 || !isLetter(before[i-1])):
			open = i
		case open >= 0 && (i+1 == len(before) || !isLetter(before[i+1])):
			open = -1
		}
	}
	if open < 0 {
		return false, false
	}
	for i := 0; i < len(after); i++ {
		if after[i] == '\'' && (i+1 == len(after) || !isLetter(after[i+1])) {
			return true, speech.MatchString(after[i+1:])
		}
	}
	return false, false
}

func isLetter(b byte) bool { return b >= 0x80 || unicode.IsLetter(rune(b)) || unicode.IsDigit(rune(b)) }
