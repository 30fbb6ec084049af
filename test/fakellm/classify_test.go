package fakellm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/openai"
	"svc/domain/embedding"
	"svc/test/fakellm"
)

var choices = []llm.TaskChoice{
	{ID: "competitive_analysis", Label: "Competitive analysis"},
	{ID: "press_release", Label: "Press release"},
}

func classifyRequest(description string) llm.Request {
	return llm.Request{Kind: llm.KindClassify, Tier: 2, Description: description, Choices: choices}
}

func TestClassify(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	p := provider(t, s)
	ctx := context.Background()
	for description, want := range map[string]string{
		"Write a press release about our funding round": "press_release",
		"Something for next week":                       "competitive_analysis", // none named: the first listed
	} {
		resp, err := p.Complete(ctx, classifyRequest(description))
		if err != nil {
			t.Fatal(err)
		}
		if c, err := llm.ParseClassification(resp.Text, choices); err != nil || c.TaskType != want || c.Confidence != fakellm.ClassifyConfidence {
			t.Fatalf("%q: %+v, %v; want %s", description, c, err, want)
		}
	}
	if n := s.CallsByKind()[llm.KindClassify]; n != 2 || s.Calls("kind=classify") != 2 {
		t.Fatalf("classify calls %d", n)
	}
	if last, _ := s.LastRequest(); last.Model != "m2" || !last.JSONFormat {
		t.Fatalf("last %+v", last)
	}

	s.AddRule(fakellm.Rule{Match: "kind=classify", Answer: `{"task_type":"press_release","confidence":0.3}`, Times: 1})
	resp, err := p.Complete(ctx, classifyRequest("Compare our competitors"))
	if c, _ := llm.ParseClassification(resp.Text, choices); err != nil || c.TaskType != "press_release" || c.Confidence != 0.3 {
		t.Fatalf("rule answer %q, %v", resp.Text, err)
	}
	s.AddRule(fakellm.Rule{Match: "kind=classify", Malformed: true})
	if _, err := p.Complete(ctx, classifyRequest("Compare our competitors")); !errors.Is(err, llm.ErrMalformed) {
		t.Fatalf("malformed rule: %v", err)
	}
}

func TestEmbeddingsThroughClient(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	e, err := openai.NewEmbedder(openai.Config{BaseURL: s.URL(), APIKey: "k", Timeout: time.Second, MaxAttempts: 2,
		BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Logger: quiet}, "")
	if err != nil {
		t.Fatal(err)
	}
	var _ embedding.Embedder = e
	vs, err := e.Embed(context.Background(), []string{"pricing of our competitors", "competitors pricing", "office move"})
	if err != nil || len(vs) != 3 || len(vs[0]) != 64 {
		t.Fatalf("%d vectors, %v", len(vs), err)
	}
	if near, far := embedding.Cosine(vs[0], vs[1]), embedding.Cosine(vs[0], vs[2]); near <= far {
		t.Fatalf("cosine near %v <= far %v", near, far)
	}
	last, _ := s.LastRequest()
	if last.Kind != "embeddings" || last.Model != openai.DefaultEmbeddingModel || last.Authorization != "Bearer k" {
		t.Fatalf("call %+v", last)
	}
	s.AddRule(fakellm.Rule{Match: "kind=embeddings", Status: 503, Times: 1})
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil || s.Calls("kind=embeddings") != 3 {
		t.Fatalf("retry: %v, %d calls", err, s.Calls("kind=embeddings"))
	}
}
