package providers

import (
	"testing"

	"svc/adapters/llm/internal/llmtest"
	"svc/domain/catalog"
	"svc/domain/planning"
	"svc/test/fakellm"
)

func TestPlannerOptions(t *testing.T) {
	offline := func(string) string { return "" }
	p, err := FromEnv(offline, llmtest.Quiet)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(PlannerOptions(offline, p)); n != 1 {
		t.Fatalf("offline: %d options, want the models only", n)
	}
	if n := len(PlannerOptions(func(k string) string { return map[string]string{envBaseURL: "http://llm"}[k] }, nil)); n != 1 {
		t.Fatalf("no provider: %d options", n)
	}

	s := fakellm.New()
	defer s.Close()
	env := func(k string) string { return map[string]string{envBaseURL: s.URL(), envModelTier2: "small"}[k] }
	p, err = FromEnv(env, llmtest.Quiet)
	if err != nil {
		t.Fatal(err)
	}
	opts := PlannerOptions(env, p)
	if len(opts) != 2 {
		t.Fatalf("configured: %d options, want the models and the llm tier", len(opts))
	}
	planner := planning.NewPlanner(catalog.Default(), opts...)
	const desc = "something for the newsletter about pricing"
	if a := planner.Classifier().Analyze(desc); a.Vague || len(a.Intents) > 1 || a.Classification.Confidence >= planning.FallbackBelow {
		t.Fatalf("the lexical tiers now place %q at %.2f (vague %v): pick a description they are unsure of", desc, a.Classification.Confidence, a.Vague)
	}
	s.AddRule(fakellm.Rule{Match: "kind=classify", Answer: `{"task_type":"blog_post","confidence":0.85}`})
	res, err := planner.Plan(planning.Request{Description: desc})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tier != planning.TierLLM || res.Classification.TaskType != "blog_post" || res.Classification.Confidence != 0.85 {
		t.Fatalf("tier %q, classification %+v", res.Tier, res.Classification)
	}
	if last, _ := s.LastRequest(); last.Kind != "classify" || last.Model != "small" {
		t.Fatalf("call %+v", last)
	}
}
