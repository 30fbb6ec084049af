package contract_test

import (
	"encoding/json"
	"testing"

	"svc/domain/contract"
)

// A sample conforms as given: enums, bounds, nested records, count and
// selection are all respected.
func TestSampleValidates(t *testing.T) {
	bounded := `{"task_type":"b","shape":"array","fields":[
		{"name":"n","type":"integer","minimum":3.5,"maximum":9},
		{"name":"x","type":"number","maximum":-2.5},
		{"name":"rows","type":"array","items":{"type":"object","properties":[{"name":"k","type":"string","enum":["only"]}]}},
		{"name":"any","type":"array"},{"name":"free","type":"object"}],
		"count":{"min":4}}`
	selected := `{"task_type":"s","shape":"array","fields":[{"name":"id","type":"string"},{"name":"score","type":"integer","minimum":0,"maximum":100}],
		"selection":{"scoreField":"score","minScore":70,"minCount":3,"maxCount":5}}`
	for name, raw := range map[string]string{"leads": leads, "person": person, "ranked": ranked, "bounded": bounded, "selected": selected} {
		c := mustParse(t, raw)
		for _, words := range [][]string{nil, {"alpha", "beta"}} {
			sample := c.Sample(words...)
			r := c.Validate(string(sample))
			if r.Status != contract.Valid {
				t.Errorf("%s: sample %s validates as %s %+v", name, sample, r.Status, r.Violations)
			}
		}
	}
	var recs []map[string]any
	if err := json.Unmarshal(mustParse(t, bounded).Sample(), &recs); err != nil || len(recs) != 4 {
		t.Fatalf("bounded sample: %v, %d records", err, len(recs))
	}
	if recs[0]["n"] != 4.0 || recs[0]["x"] != -2.5 {
		t.Errorf("bounded values %v", recs[0])
	}
	if err := json.Unmarshal(mustParse(t, selected).Sample(), &recs); err != nil || len(recs) != 3 || recs[0]["score"] != 70.0 {
		t.Errorf("selected sample %v (%v)", recs, err)
	}
	if got := string(mustParse(t, person).Sample("Ada")); got != `{"name":"Ada","age":1,"ratio":1,"active":true}` {
		t.Errorf("person sample %s", got)
	}
}
