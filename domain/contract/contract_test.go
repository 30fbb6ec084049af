package contract_test

import (
	"encoding/json"
	"errors"
	"testing"

	"svc/domain/contract"
)

// Contracts shared by the tests.
const (
	leads = `{"task_type":"lead_scores","shape":"array","fields":[
		{"name":"lead","type":"string","description":"company name"},
		{"name":"score","type":"integer","minimum":0,"maximum":100},
		{"name":"tier","type":"string","enum":["Hot","Cold"]},
		{"name":"tags","type":"array","required":false,"items":{"type":"string","enum":["b2b","b2c"]}},
		{"name":"meta","type":"object","required":false,"properties":[
			{"name":"source","type":"string"},{"name":"verified","type":"boolean","required":false}]}],
		"count":{"min":1,"max":3}}`
	person = `{"task_type":"person","shape":"object","fields":[
		{"name":"name","type":"string"},{"name":"age","type":"integer","required":false},
		{"name":"ratio","type":"number","required":false},{"name":"active","type":"boolean","required":false}]}`
	ranked = `{"task_type":"rerank","shape":"array","fields":[{"name":"id","type":"string"},{"name":"score","type":"number"}],
		"count":{"min":2,"max":3},"selection":{"scoreField":"score","minScore":0.5,"minCount":2,"maxCount":3}}`
)

func mustParse(t testing.TB, raw string) contract.Contract {
	t.Helper()
	c, err := contract.Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("parse %s: %v", raw, err)
	}
	return c
}

func TestParse(t *testing.T) {
	c := mustParse(t, leads)
	if c.Shape != contract.ShapeArray || len(c.Fields) != 5 || *c.Count.Max != 3 || c.Selection != nil {
		t.Fatalf("contract: %+v", c)
	}
	if !c.Fields[0].Required || c.Fields[3].Required || c.Fields[3].Items.Type != contract.TypeString {
		t.Fatalf("required defaults or items: %+v", c.Fields)
	}
	if meta := c.Fields[4]; len(meta.Properties) != 2 || !meta.Properties[0].Required || meta.Properties[1].Required {
		t.Fatalf("nested properties: %+v", meta)
	}
	if s := mustParse(t, ranked).Selection; s.ScoreField != "score" || *s.MinScore != 0.5 || *s.MaxCount != 3 {
		t.Fatalf("selection: %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	const pre = `{"task_type":"x","shape":"array","fields":`
	for _, tc := range []struct{ raw, path string }{
		{`not json`, ""},
		{`{"shape":"array","fields":[{"name":"a","type":"string"}]}`, ""},
		{`{"task_type":"x","shape":"list","fields":[{"name":"a","type":"string"}]}`, "shape"},
		{pre + `[{"name":"a","type":"string"},{"name":"b","type":"date"}]}`, "fields[1].type"},
		{pre + `[{"name":"a","type":"string","colour":"red"}]}`, "fields[0]"},
		{pre + `[]}`, "fields"},
		{pre + `[{"name":"a","type":"string"},{"name":"a","type":"number"}]}`, "fields[1].name"},
		{pre + `[{"name":"m","type":"object","properties":[{"name":"a","type":"string"},{"name":"b","type":"list"}]}]}`, "fields[0].properties[1].type"},
		{pre + `[{"name":"m","type":"object","properties":[{"name":"a","type":"string"},{"name":"a","type":"string"}]}]}`, "fields[0].properties[1].name"},
		{pre + `[{"name":"t","type":"array","items":{"type":"integer","enum":["1"]}}]}`, "fields[0].items.enum"},
		{pre + `[{"name":"a","type":"integer","enum":["1"]}]}`, "fields[0].enum"},
		{pre + `[{"name":"a","type":"string","enum":["Hot","hot "]}]}`, "fields[0].enum[1]"},
		{pre + `[{"name":"a","type":"string","minimum":1}]}`, "fields[0]"},
		{pre + `[{"name":"a","type":"number","minimum":5,"maximum":1}]}`, "fields[0]"},
		{pre + `[{"name":"a","type":"string","items":{"type":"string"}}]}`, "fields[0].items"},
		{pre + `[{"name":"a","type":"array","properties":[{"name":"b","type":"string"}]}]}`, "fields[0].properties"},
		{pre + `[{"name":"a","type":"string"}],"count":{"min":5,"max":2}}`, "count"},
		{pre + `[{"name":"a","type":"string"}],"count":{"min":5.0}}`, "count.min"},
		{pre + `[{"name":"a","type":"string"}],"selection":{"scoreField":"b"}}`, "selection.scoreField"},
		{pre + `[{"name":"a","type":"string"}],"selection":{"scoreField":"a"}}`, "selection.scoreField"},
		{pre + `[{"name":"s","type":"number"}],"selection":{"scoreField":"s","minCount":4,"maxCount":2}}`, "selection"},
		{pre + `[{"name":"s","type":"number"}],"count":{"min":5},"selection":{"scoreField":"s","maxCount":2}}`, "selection.maxCount"},
		{pre + `[{"name":"s","type":"number"}],"count":{"max":2},"selection":{"scoreField":"s","minCount":4}}`, "selection.minCount"},
	} {
		_, err := contract.Parse(json.RawMessage(tc.raw))
		var ce *contract.Error
		if !errors.As(err, &ce) || ce.Path != tc.path {
			t.Errorf("%s: got %v, want path %q", tc.raw, err, tc.path)
		}
	}
}

func TestParseErrorWraps(t *testing.T) {
	_, err := contract.Parse(json.RawMessage(`{"task_type":"x","shape":"list","fields":[{"name":"a","type":"string"}]}`))
	if errors.Unwrap(err) == nil || err.Error() == "" {
		t.Fatalf("schema error not wrapped: %v", err)
	}
}
