package contract_test

import (
	"strings"
	"testing"
)

// TestLargeAnswers feeds pathological answers; extraction is bounded, so
// each finishes quickly instead of scanning every bracket.
func TestLargeAnswers(t *testing.T) {
	c := mustParse(t, leads)
	for name, answer := range map[string]string{
		"open brackets":   strings.Repeat("[", 1<<20),
		"open braces":     strings.Repeat("{", 1<<20),
		"broken brackets": strings.Repeat("[1,x] ", 1<<17),
		"cut-off list":    "[" + strings.Repeat(lead("A", 1)+",", 1<<14),
	} {
		if r := c.Validate(answer); r.OK() {
			t.Errorf("%s: %s", name, r.Status)
		}
	}
}
