// Package injection scans external content (what a context server's
// resource holds) for prompt-injection patterns before it reaches a
// prompt: text that tells the model reading it to drop its instructions,
// take another role, reveal its prompt, send data away, call tools or keep
// secrets from the user, in English, German, French and Spanish, including
// when hidden (HTML comments, invisible characters, Unicode tag
// characters, letters spaced out, base64).
//
// The rules read a normalized copy of the text (normalize.go) and report
// spans of the original. A payload quoted in a text that discusses prompt
// injection (a security article) is reported with Low severity: it is
// data about attacks, not an attack on the reader. Hidden and encoded
// payloads are never lowered. The package is pure: no I/O.
package injection

import (
	"cmp"
	"slices"
	"strings"
)

// Severity grades a finding.
type Severity int

// Severities, lowest first.
const (
	None Severity = iota
	// Low: a payload quoted in a discussion of prompt injection.
	Low
	// Medium: a pattern that ordinary text rarely has (secrecy towards
	// the user, a tool call, a fake role line).
	Medium
	// High: an unambiguous injection.
	High
)

// String names the severity.
func (s Severity) String() string {
	return [...]string{"none", "low", "medium", "high"}[s]
}

// Finding is one pattern found.
type Finding struct {
	// Rule names the family: override, role, role_marker, system_prompt,
	// addressed, exfiltration, tool_call, secrecy, output_control,
	// encoded, spaced_text, hidden_comment, invisible_text.
	Rule     string
	Severity Severity
	// Start and End are the byte span in the scanned text.
	Start, End int
	// Excerpt is the normalized text matched (at most 80 bytes).
	Excerpt string
	// Discussed is true when the severity was lowered because the span
	// is quoted in a text about prompt injection.
	Discussed bool
}

// Report is the outcome of Scan.
type Report struct {
	Findings []Finding
	// Severity is the highest severity found (None without findings).
	Severity Severity
}

// Flagged reports whether the text should be warned about: a finding of
// Medium severity or above.
func (r Report) Flagged() bool { return r.Severity >= Medium }

// Rules lists the distinct rule names of the flagged findings, in order
// of first appearance.
func (r Report) Rules() []string {
	var out []string
	for _, f := range r.Findings {
		if f.Severity >= Medium && !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	return out
}

// maxDepth bounds how deep encoded payloads are decoded and scanned.
const maxDepth = 2

// Scan looks for prompt-injection patterns in text.
func Scan(text string) Report { return scan(text, 0) }

func scan(text string, depth int) Report {
	n := normalize(text, false)
	discussion := discussionMarkers.MatchString(n.text)
	out := n.match(discussion)
	if n.invisible > 0 { // invisible characters may also part words
		out = append(out, normalize(text, true).match(discussion)...)
	}
	if depth < maxDepth {
		out = append(out, spaced(n, depth)...)
		out = append(out, comments(text, depth)...)
		out = append(out, encoded(text, depth)...)
	}
	if n.tags > 0 {
		out = append(out, Finding{Rule: "invisible_text", Severity: High, Excerpt: "unicode tag characters"})
	} else if n.invisible >= minInvisible && hasVisibleFinding(out) {
		out = append(out, Finding{Rule: "invisible_text", Severity: High, Excerpt: "zero-width characters"})
	} else if n.invisible >= manyInvisible {
		out = append(out, Finding{Rule: "invisible_text", Severity: Medium, Excerpt: "zero-width characters"})
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(a.Start-b.Start, strings.Compare(a.Rule, b.Rule), a.End-b.End, int(b.Severity-a.Severity))
	})
	out = slices.CompactFunc(out, func(a, b Finding) bool { return a.Rule == b.Rule && a.Start == b.Start && a.End == b.End })
	rep := Report{Findings: out}
	for _, f := range out {
		rep.Severity = max(rep.Severity, f.Severity)
	}
	return rep
}

// Invisible characters: a text with minInvisible that also has a finding
// hid it; manyInvisible alone are suspicious.
const (
	minInvisible  = 3
	manyInvisible = 12
)

func hasVisibleFinding(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity >= Medium })
}
