package openai

import (
	"context"
	"errors"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/chain"
	"svc/adapters/llm/internal/llmtest"
)

// A call pinned to a model (a workspace's llm policy) is sent with it, at
// any tier; a model the provider does not serve is refused without a
// request, and a chain answers it from the fallback that serves it.
func TestPinnedModel(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.StepJSON})
	r := llmtest.Task(llm.KindStep, "SWOT Analysis")
	r.Tier, r.Model = 2, "gpt-4o"
	resp, err := client(t, f.URL).Complete(context.Background(), r)
	if err != nil || resp.Model != "gpt-4o" || f.Bodies[0].Model != "gpt-4o" {
		t.Fatalf("pinned tier-2 call: %+v %v", resp, err)
	}

	primary := llmtest.NewFakeAPI(t)
	r.Model = "claude-sonnet-4"
	_, err = client(t, primary.URL).Complete(context.Background(), r)
	if !errors.Is(err, llm.ErrModelNotServed) || len(primary.Bodies) != 0 {
		t.Fatalf("unserved model: %v, %d requests", err, len(primary.Bodies))
	}

	fallback := llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.StepJSON})
	c := chain.New(client(t, primary.URL), client(t, fallback.URL, func(c *Config) { c.Model, c.ModelTier2 = "claude-sonnet-4", "claude-3-5-haiku" }), llmtest.Quiet)
	resp, err = c.Complete(context.Background(), r)
	if err != nil || resp.Model != "claude-sonnet-4" || !resp.Fallback || len(primary.Bodies) != 0 || fallback.Bodies[0].Model != "claude-sonnet-4" {
		t.Fatalf("chain: %+v %v", resp, err)
	}
	r.Model = "o3"
	if _, err := c.Complete(context.Background(), r); !errors.Is(err, llm.ErrExhausted) || len(fallback.Bodies) != 1 {
		t.Fatalf("a model neither serves: %v", err)
	}
}
