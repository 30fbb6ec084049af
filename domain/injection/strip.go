package injection

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Placeholder replaces what Strip removes.
const Placeholder = "[removed by svc: suspected prompt injection]"

// Strip removes from text the lines holding a finding of Medium severity
// or above (the whole line, so that the rest of an injected instruction
// goes with its trigger; a line over 2,000 bytes loses only its
// sentence), each run of removed lines replaced by Placeholder.
func Strip(text string, r Report) string {
	var spans [][2]int
	for _, f := range r.Findings {
		if f.Severity < Medium || f.End <= f.Start {
			continue
		}
		spans = append(spans, lineOf(text, f.Start, f.End))
	}
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); i++ {
		s, e := spans[i][0], spans[i][1]
		for i+1 < len(spans) && spans[i+1][0] <= e+1 {
			i++
			e = max(e, spans[i][1])
		}
		s = max(s, last)
		if e <= s {
			continue
		}
		b.WriteString(text[last:s])
		b.WriteString(Placeholder)
		last = e
	}
	b.WriteString(text[last:])
	return b.String()
}

// maxLine is the longest line Strip removes whole.
const maxLine = 2000

// lineOf widens [s, e) to its lines, or, for a long line, to its sentence.
func lineOf(t string, s, e int) [2]int {
	ls := strings.LastIndexByte(t[:s], '\n') + 1
	le := strings.IndexByte(t[e:], '\n')
	if le < 0 {
		le = len(t)
	} else {
		le += e
	}
	if le-ls <= maxLine {
		return [2]int{ls, le}
	}
	if i := strings.LastIndexAny(t[max(ls, s-maxLine/2):s], ".!?"); i >= 0 {
		ls = max(ls, s-maxLine/2) + i + 1
	} else {
		ls = max(ls, s-maxLine/2)
	}
	if i := strings.IndexAny(t[e:min(le, e+maxLine/2)], ".!?"); i >= 0 {
		le = e + i + 1
	} else {
		le = min(le, e+maxLine/2)
	}
	return [2]int{runeStart(t, ls), runeStart(t, le)}
}

// runeStart moves i forward to the start of a rune.
func runeStart(t string, i int) int {
	for i < len(t) && !utf8.RuneStart(t[i]) {
		i++
	}
	return i
}
