package chain

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/openai"
)

// client returns a fast-retrying OpenAI-compatible provider for base.
func client(t *testing.T, base string, mod ...func(*openai.Config)) llm.Provider {
	t.Helper()
	cfg := openai.Config{BaseURL: base, APIKey: "sk-test", Model: "gpt-4o", ModelTier2: "gpt-4o-mini",
		Timeout: 2 * time.Second, MaxAttempts: 3, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Logger: llmtest.Quiet}
	for _, m := range mod {
		m(&cfg)
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChainFallback(t *testing.T) {
	primary := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 500})
	fallback := llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.StepJSON})
	p := New(client(t, primary.URL), client(t, fallback.URL), llmtest.Quiet)
	resp, err := p.Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if err != nil || !resp.Fallback || resp.Provider != strings.TrimPrefix(fallback.URL, "http://") || resp.Attempts != 4 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	ok := New(client(t, fallback.URL), client(t, primary.URL), llmtest.Quiet)
	if resp, err := ok.Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis")); err != nil || resp.Fallback {
		t.Fatalf("healthy primary: %+v, %v", resp, err)
	}
}

func TestChainExhausted(t *testing.T) {
	bad := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 500, Raw: "primary down"})
	bad2 := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 401, Raw: "bad key"})
	_, err := New(client(t, bad.URL), client(t, bad2.URL), llmtest.Quiet).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	var ex *exhaustedError
	if !errors.Is(err, llm.ErrExhausted) || errors.Is(err, llm.ErrTimeout) || !errors.As(err, &ex) || len(ex.Failures) != 2 || ex.Attempts() != 4 {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), "primary down") || !strings.Contains(err.Error(), "bad key") {
		t.Fatalf("causes missing from %q", err)
	}
	_, err = New(client(t, bad.URL), nil, llmtest.Quiet).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, llm.ErrExhausted) {
		t.Fatalf("no fallback: %v", err)
	}

	slow := llmtest.NewFakeAPI(t, llmtest.Reply{Delay: time.Second})
	fast := func(c *openai.Config) { c.Timeout = 20 * time.Millisecond; c.MaxAttempts = 1 }
	_, err = New(client(t, slow.URL, fast), client(t, slow.URL, fast), llmtest.Quiet).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, llm.ErrExhausted) || !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("both timed out: %v", err)
	}
	_, err = New(client(t, slow.URL, fast), client(t, bad.URL), llmtest.Quiet).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, llm.ErrExhausted) || errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("timeout then 500: %v", err)
	}
}

func TestChainClassify(t *testing.T) {
	primary := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 503})
	fallback := llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.ClassifyJSON})
	resp, err := New(client(t, primary.URL), client(t, fallback.URL), llmtest.Quiet).Complete(context.Background(), llmtest.Classify())
	if err != nil || !resp.Fallback || resp.Text != llmtest.ClassifyJSON {
		t.Fatalf("fallback: %+v, %v", resp, err)
	}
	// offline has no llm tier: a chain of the offline writer alone refuses the call
	if _, err := New(nil, nil, llmtest.Quiet).Complete(context.Background(), llmtest.Classify()); !errors.Is(err, llm.ErrExhausted) ||
		!strings.Contains(err.Error(), llm.ErrBadRequest.Error()) {
		t.Fatalf("offline: %v", err)
	}
}
