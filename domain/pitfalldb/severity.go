package pitfalldb

import "strings"

// Severity is how bad a pitfall is: low, medium, high or critical.
type Severity string

// Severities, least first.
const (
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

// Rank orders severities: critical 4 down to low 1, 0 for an unknown one.
func (s Severity) Rank() int {
	switch s {
	case Critical:
		return 4
	case High:
		return 3
	case Medium:
		return 2
	case Low:
		return 1
	}
	return 0
}

// Valid reports whether s is one of the four severities.
func (s Severity) Valid() bool { return s.Rank() > 0 }

// severityCues are the words that set a reported failure's severity,
// the gravest first (decision 224).
var severityCues = []struct {
	sev  Severity
	cues []string
}{
	{Critical, []string{"data loss", "lost data", "deleted", "drop table", "truncat", "corrupt", "overwr", "security", "leak",
		"exposed", "credential", "secret", "injection", "xss", "csrf", "remote code", "privilege", "unauthorized access",
		"personal data", "pii", "charged twice", "double charg", "wrong recipient", "irreversib"}},
	{High, []string{"crash", "outage", "incorrect", "wrong", "hallucinat", "fabricat", "infinite loop", "deadlock",
		"out of memory", "oom", "unauthorized", "forbidden", "401", "403", "payment", "billing", "race condition",
		"duplicate", "silent", "data mismatch", "inconsisten", "panic", "segfault"}},
	{Low, []string{"warning", "deprecat", "cosmetic", "style", "typo", "whitespace", "lint", "formatting", "verbose", "slow"}},
}

// SeverityOf is the severity a failure's words say: critical for data
// loss and security, high for wrong results and crashes, low for
// warnings and style, medium otherwise.
func SeverityOf(f Failure) Severity {
	text := strings.ToLower(f.ErrorType + " " + f.ErrorMessage + " " + f.RootCause)
	for _, c := range severityCues {
		for _, cue := range c.cues {
			if strings.Contains(text, cue) {
				return c.sev
			}
		}
	}
	return Medium
}
