package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"svc/domain/contract"
)

// A composed call writes every framework's step in one answer; the prompt
// names them all, with their headings, and marks the call composed.
func TestComposedCall(t *testing.T) {
	r := task(KindStep, "")
	r.Frameworks = []string{"Market Definition", "SWOT Analysis", "Porter's Five Forces"}
	msgs := BuildMessages(r)
	m := Markers(msgs[0].Content)
	if m["kind"] != KindStep || m["framework"] != "Market Definition | SWOT Analysis | Porter's Five Forces" || m["composed"] != "3" {
		t.Fatalf("markers %v", m)
	}
	for _, want := range []string{`"steps"`, `"framework"`, "Strengths; Weaknesses; Opportunities; Threats", "Porter's Five Forces"} {
		if !strings.Contains(msgs[0].Content, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, msgs[0].Content)
		}
	}
	if !strings.Contains(msgs[1].Content, "Frameworks, in order: Market Definition; SWOT Analysis; Porter's Five Forces") {
		t.Errorf("user prompt:\n%s", msgs[1].Content)
	}
	outs, err := ParseComposed(complete(t, r).Text, r.Frameworks)
	if err != nil || len(outs) != 3 {
		t.Fatalf("offline composed answer: %v (%d outputs)", err, len(outs))
	}
	if got := headings(outs[1].Sections); strings.Join(got, ";") != strings.Join(Headings("SWOT Analysis"), ";") || got[0] != "Strengths" {
		t.Errorf("SWOT headings %v", got)
	}
	for i, o := range outs {
		if !strings.Contains(o.Summary, r.Frameworks[i]) {
			t.Errorf("output %d summary %q does not name %s", i, o.Summary, r.Frameworks[i])
		}
	}
}

func TestParseComposed(t *testing.T) {
	out := func(fw string) string {
		return `{"framework":"` + fw + `","summary":"S ` + fw + `","sections":[{"heading":"H","content":"C"}]}`
	}
	fws := []string{"A", "B"}
	// by name, whatever the order; unnamed entries fill the rest in order
	for _, text := range []string{`{"steps":[` + out("b") + `,` + out("A") + `]}`, "```json\n{\"steps\":[" + out("A") + `,` + out("x") + "]}\n```"} {
		got, err := ParseComposed(text, fws)
		if err != nil || len(got) != 2 || got[0].Summary != "S A" {
			t.Fatalf("%s: %v %+v", text, err, got)
		}
	}
	for _, bad := range []string{`{"steps":[` + out("A") + `]}`, `{"steps":[{"framework":"A","summary":"","sections":[{"heading":"H"}]},` + out("B") + `]}`,
		`{"steps":[` + out("A") + `,{"framework":"B","summary":"s","sections":[]}]}`, `[]`, `{"summary":"s","sections":[{"heading":"h"}]}`} {
		if _, err := ParseComposed(bad, fws); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", bad, err)
		}
	}
	if _, err := ValidateAnswer(Request{Kind: KindStep, Frameworks: fws}, `{"steps":[`+out("A")+`]}`); !errors.Is(err, ErrMalformed) {
		t.Errorf("ValidateAnswer of a short composed answer: %v", err)
	}
}

// A contract synthesis asks for the contract's JSON; the offline writer
// answers a conforming sample, and the port passes any text through (a
// violation is the caller's finding, not a provider failure).
func TestContractSynthesis(t *testing.T) {
	c, err := contract.Parse(json.RawMessage(`{"task_type":"ticket_tags","shape":"array","fields":[{"name":"ticket","type":"string"},
		{"name":"tag","type":"string","enum":["billing","bug"]},{"name":"confidence","type":"number","minimum":0,"maximum":1}],"count":{"min":2,"max":5}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := task(KindSynthesis, "")
	r.Contract = &c
	msgs := BuildMessages(r)
	if m := Markers(msgs[0].Content); m["kind"] != KindSynthesis || m["contract"] != "ticket_tags" {
		t.Fatalf("markers %v", m)
	}
	if !strings.Contains(msgs[0].Content, c.Prompt()) || strings.Contains(msgs[0].Content, "Executive Summary") {
		t.Errorf("system prompt:\n%s", msgs[0].Content)
	}
	resp := complete(t, r)
	if v := c.Validate(resp.Text); v.Status != contract.Valid {
		t.Fatalf("offline contract answer %s: %s %+v", resp.Text, v.Status, v.Violations)
	}
	for _, text := range []string{"not json at all", `{"title":"x","sections":[]}`, ""} {
		if got, err := ValidateAnswer(r, " "+text+" "); err != nil || got != text {
			t.Errorf("ValidateAnswer(%q) = %q, %v", text, got, err)
		}
	}
}
