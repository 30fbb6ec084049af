package fakellm_test

import (
	"context"
	"encoding/json"
	"testing"

	"svc/adapters/llm"
	"svc/domain/contract"
	"svc/test/fakellm"
)

// Direct execution: a composed call gets one step output per framework;
// a rule's Answer replaces the kind's answer (a contract synthesis).
func TestDirectCalls(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	p := provider(t, s)
	ctx := context.Background()
	composed := request(llm.KindStep, "")
	composed.Frameworks = []string{"SWOT Analysis", "Market Definition"}
	resp, err := p.Complete(ctx, composed)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := llm.ParseComposed(resp.Text, composed.Frameworks)
	if err != nil || outs[0].Sections[0].Heading != "Strengths" {
		t.Fatalf("composed answer %v %+v", err, outs)
	}
	if s.Calls("composed=2") != 1 || s.CallsByFramework()["SWOT Analysis | Market Definition"] != 1 {
		t.Fatalf("composed calls %d, by framework %v", s.Calls("composed=2"), s.CallsByFramework())
	}

	c, err := contract.Parse(json.RawMessage(`{"task_type":"person","shape":"object","fields":[{"name":"name","type":"string"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	synth := request(llm.KindSynthesis, "")
	synth.Contract = &c
	s.AddRule(fakellm.Rule{Match: "contract=person", Answer: `{"name":"Ada"}`, Times: 1})
	if resp, err = p.Complete(ctx, synth); err != nil || c.Validate(resp.Text).Status != contract.Valid {
		t.Fatalf("ruled answer %q: %v", resp.Text, err)
	}
	if resp, err = p.Complete(ctx, synth); err != nil || c.Validate(resp.Text).Status != contract.InvalidSchema {
		t.Fatalf("kind's answer %q: %v", resp.Text, err)
	}
}
