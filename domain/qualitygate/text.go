package qualitygate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// text is the output under check, with what several checks share built
// once: its lower-case form and the offsets of its lines.
type text struct {
	s      string
	lower  string
	folded bool
	starts []int
}

func newText(s string) *text { return &text{s: s} }

// fold is s lower-cased; ok is false when lower-casing changed byte
// offsets (then positions come from a case-insensitive pattern).
func (t *text) fold() (string, bool) {
	if !t.folded {
		t.lower, t.folded = strings.ToLower(t.s), true
	}
	return t.lower, len(t.lower) == len(t.s)
}

// pos is the 1-based line and column (in characters) of byte offset off.
func (t *text) pos(off int) (int, int) {
	if t.starts == nil {
		t.starts = []int{0}
		for i := 0; i < len(t.s); i++ {
			if t.s[i] == '\n' {
				t.starts = append(t.starts, i+1)
			}
		}
	}
	off = max(0, min(off, len(t.s)))
	line := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off }) - 1
	return line + 1, utf8.RuneCountInString(t.s[t.starts[line]:off]) + 1
}

// issueAt is an issue of directive d at byte offset off (none when off <
// 0).
func (t *text) issueAt(d Directive, c CheckType, msg string, off int) Issue {
	i := Issue{CheckType: string(c), Severity: string(SeverityError), Message: msg, Directive: d.Label()}
	if off >= 0 {
		i.Line, i.Column = t.pos(off)
	}
	return i
}

// index is the byte offset of d's value in the output (-1: absent):
// case-insensitive for the include types.
func (t *text) index(d Directive) int {
	if d.Type == MustContain || d.Type == MustNotContain {
		return strings.Index(t.s, d.Value)
	}
	if lower, ok := t.fold(); ok {
		return strings.Index(lower, d.fold)
	}
	loc := regexp.MustCompile("(?i)" + regexp.QuoteMeta(d.Value)).FindStringIndex(t.s)
	if loc == nil {
		return -1
	}
	return loc[0]
}

// count is how many times d's value occurs (case-insensitive as index).
func (t *text) count(d Directive) int {
	if d.Type == MustContain || d.Type == MustNotContain {
		return strings.Count(t.s, d.Value)
	}
	if lower, ok := t.fold(); ok {
		return strings.Count(lower, d.fold)
	}
	return len(regexp.MustCompile("(?i)"+regexp.QuoteMeta(d.Value)).FindAllStringIndex(t.s, -1))
}

// length is the output's length in unit.
func (t *text) length(unit string) int {
	switch unit {
	case UnitWords:
		n, in := 0, false
		for _, c := range t.s {
			space := unicode.IsSpace(c)
			if !space && !in {
				n++
			}
			in = !space
		}
		return n
	case UnitLines:
		if t.s == "" {
			return 0
		}
		return strings.Count(strings.TrimRight(t.s, "\n"), "\n") + 1
	}
	return utf8.RuneCountInString(t.s)
}

// directive checks d on the output and records it.
func (r *Result) directive(t *text, d Directive) {
	c := DirectiveCompliance
	if d.Type == MinLength || d.Type == MaxLength {
		c = LengthCheck
	}
	var issue *Issue
	fail := func(msg string, off int) {
		i := t.issueAt(d, c, msg, off)
		issue = &i
	}
	quoted := fmt.Sprintf("%q", clip(d.Value, 80))
	switch d.Type {
	case MustInclude, MustContain:
		if t.index(d) < 0 {
			how := "does not include"
			if d.Type == MustContain {
				how = "does not contain (case-sensitive)"
			}
			fail("The output "+how+" "+quoted+".", -1)
		}
	case MustNotInclude, MustNotContain:
		if off := t.index(d); off >= 0 {
			fail(fmt.Sprintf("The output mentions %s (%d times); the first is here.", quoted, t.count(d)), off)
		}
	case MustMatch:
		if !d.re.MatchString(t.s) {
			fail("No part of the output matches the pattern "+quoted+".", -1)
		}
	case MustNotMatch:
		if loc := d.re.FindStringIndex(t.s); loc != nil {
			fail(fmt.Sprintf("The output matches the pattern %s: %q.", quoted, clip(t.s[loc[0]:loc[1]], 80)), loc[0])
		}
	case MinLength, MaxLength:
		n := t.length(d.unit)
		if d.Type == MinLength && n < d.limit {
			fail(fmt.Sprintf("The output has %d %s; at least %d are required.", n, d.unit, d.limit), -1)
		}
		if d.Type == MaxLength && n > d.limit {
			fail(fmt.Sprintf("The output has %d %s; at most %d are allowed.", n, d.unit, d.limit), d.offsetPast(t))
		}
	case Format:
		if msg, off, ok := jsonError(t.s); !ok {
			fail("The output is not valid JSON: "+msg, off)
		}
	case Unrecognised:
		r.Issues = append(r.Issues, Issue{CheckType: string(c), Severity: string(SeverityInfo), Directive: d.Label(),
			Message: "Not checked: the directive is not in the grammar of pattern directives (must include X, must not mention Y, at most N words, must match /re/, respond in JSON)."})
		return
	}
	r.Directives = append(r.Directives, DirectiveResult{Directive: d, Passed: issue == nil})
	passed := 1.0
	if issue != nil {
		r.Issues = append(r.Issues, *issue)
		passed = 0
	}
	r.units = append(r.units, unit{c, passed})
}

// offsetPast is the byte offset where the output goes past max_length
// d's limit (-1 when unknown).
func (d Directive) offsetPast(t *text) int {
	switch d.unit {
	case UnitCharacters:
		n := 0
		for i := range t.s {
			if n == d.limit {
				return i
			}
			n++
		}
	case UnitLines:
		t.pos(0) // builds the line offsets
		if d.limit < len(t.starts) {
			return t.starts[d.limit]
		}
	case UnitWords:
		n, in := 0, false
		for i, c := range t.s {
			space := unicode.IsSpace(c)
			if !space && !in {
				if n == d.limit {
					return i
				}
				n++
			}
			in = !space
		}
	}
	return -1
}
