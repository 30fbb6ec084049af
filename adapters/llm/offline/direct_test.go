package offline

import (
	"encoding/json"
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/prompt"
	"svc/domain/contract"
)

// A composed call writes every framework's step in one answer; the prompt
// names them all, with their headings, and marks the call composed.
func TestComposedCall(t *testing.T) {
	r := llmtest.Task(llm.KindStep, "")
	r.Frameworks = []string{"Market Definition", "SWOT Analysis", "Porter's Five Forces"}
	msgs := prompt.Build(r)
	m := prompt.Markers(msgs[0].Content)
	if m["kind"] != llm.KindStep || m["framework"] != "Market Definition | SWOT Analysis | Porter's Five Forces" || m["composed"] != "3" {
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
	outs, err := llm.ParseComposed(complete(t, r).Text, r.Frameworks)
	if err != nil || len(outs) != 3 {
		t.Fatalf("offline composed answer: %v (%d outputs)", err, len(outs))
	}
	if got := headings(outs[1].Sections); strings.Join(got, ";") != strings.Join(frameworks.Headings("SWOT Analysis"), ";") || got[0] != "Strengths" {
		t.Errorf("SWOT headings %v", got)
	}
	for i, o := range outs {
		if !strings.Contains(o.Summary, r.Frameworks[i]) {
			t.Errorf("output %d summary %q does not name %s", i, o.Summary, r.Frameworks[i])
		}
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
	r := llmtest.Task(llm.KindSynthesis, "")
	r.Contract = &c
	msgs := prompt.Build(r)
	if m := prompt.Markers(msgs[0].Content); m["kind"] != llm.KindSynthesis || m["contract"] != "ticket_tags" {
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
		if got, err := llm.ValidateAnswer(r, " "+text+" "); err != nil || got != text {
			t.Errorf("ValidateAnswer(%q) = %q, %v", text, got, err)
		}
	}
}
