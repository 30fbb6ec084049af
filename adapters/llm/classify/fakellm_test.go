package classify_test

import (
	"context"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/chain"
	"svc/adapters/llm/classify"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/openai"
	"svc/domain/catalog"
	"svc/test/fakellm"
)

// TestAgainstFakeLLM classifies through the chain and the openai client,
// as serve wires them, against the fake API.
func TestAgainstFakeLLM(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	client, err := openai.New(openai.Config{BaseURL: s.URL(), APIKey: "k", Model: "m1", ModelTier2: "m2",
		Timeout: time.Second, MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Logger: llmtest.Quiet})
	if err != nil {
		t.Fatal(err)
	}
	c := classify.New(chain.New(client, nil, llmtest.Quiet))
	types := catalog.Default().TaskTypes()
	ctx := context.Background()
	tt, conf, err := c.ClassifyTask(ctx, "We need a press release about our series A", types)
	if err != nil || tt != "press_release" || conf != fakellm.ClassifyConfidence {
		t.Fatalf("ClassifyTask = %q, %v, %v", tt, conf, err)
	}
	last, _ := s.LastRequest()
	if last.Kind != llm.KindClassify || last.Model != "m2" || !last.JSONFormat || last.MaxTokens != classify.MaxTokens {
		t.Fatalf("call %+v", last)
	}
	if tt, _, err := c.ClassifyTask(ctx, "Something vague for next week", types); err != nil || tt != types[0].ID {
		t.Fatalf("no id named: %q, %v", tt, err)
	}
	s.AddRule(fakellm.Rule{Match: "kind=classify", Answer: `{"task_type":"blog_post","confidence":0.42}`, Times: 1})
	if tt, conf, err := c.ClassifyTask(ctx, "We need a press release", types); err != nil || tt != "blog_post" || conf != 0.42 {
		t.Fatalf("rule answer: %q, %v, %v", tt, conf, err)
	}
	s.AddRule(fakellm.Rule{Match: "kind=classify", Status: 500})
	if _, _, err := c.ClassifyTask(ctx, "We need a press release", types); err == nil {
		t.Fatal("a failing provider classified")
	}
}
