package contract_test

import (
	"encoding/json"
	"testing"

	"svc/domain/contract"
)

// FuzzValidate checks that no answer makes Validate panic, that findings come
// with exactly the OK statuses and that normalisation is idempotent.
func FuzzValidate(f *testing.F) {
	for _, tc := range validateCases {
		f.Add(tc.answer)
	}
	f.Add("```\n[{\"id\":\"a\",\"score\":\"0.7\"}]\n``` and [1] {\"x\":")
	f.Add(`{"results":[{"id":"a","score":1e308},{"id":"b","score":-1e400}]}`)
	contracts := []contract.Contract{mustParse(f, leads), mustParse(f, person), mustParse(f, ranked)}
	f.Fuzz(func(t *testing.T, answer string) {
		for _, c := range contracts {
			r := c.Validate(answer)
			if r.OK() != (r.Findings != nil) || r.OK() != (len(r.Violations) == 0) {
				t.Fatalf("status %s with findings %s and %d violations", r.Status, r.Findings, len(r.Violations))
			}
			if r.OK() {
				if !json.Valid(r.Findings) {
					t.Fatalf("findings are not JSON: %s", r.Findings)
				}
				if again := c.Validate(string(r.Findings)); again.Status != contract.Valid {
					t.Fatalf("findings %s revalidate as %s %+v", r.Findings, again.Status, again.Violations)
				}
			}
		}
	})
}

// FuzzParse checks that no contract makes Parse, Prompt or Validate panic.
func FuzzParse(f *testing.F) {
	for _, raw := range []string{leads, person, ranked, `{}`, `null`, `[]`} {
		f.Add(raw, `[{"lead":"A","score":"5","tier":"hot"}]`)
	}
	f.Fuzz(func(t *testing.T, raw, answer string) {
		c, err := contract.Parse(json.RawMessage(raw))
		if err != nil {
			return
		}
		_ = c.Prompt()
		_ = c.Validate(answer)
	})
}
