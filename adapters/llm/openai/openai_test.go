package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/chain"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/offline"
	"svc/adapters/llm/prompt"
)

// client returns a fast-retrying provider for base.
func client(t *testing.T, base string, mod ...func(*Config)) llm.Provider {
	t.Helper()
	cfg := Config{BaseURL: base, APIKey: "sk-test", Model: "gpt-4o", ModelTier2: "gpt-4o-mini",
		Timeout: 2 * time.Second, MaxAttempts: 3, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Logger: llmtest.Quiet}
	for _, m := range mod {
		m(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenAISuccess(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Content: "```json\n" + llmtest.StepJSON + "\n```"})
	r := llmtest.Task(llm.KindStep, "SWOT Analysis")
	r.MaxTokens = 900
	resp, err := client(t, f.URL).Complete(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(f.URL, "http://")
	if resp.Text != llmtest.StepJSON || resp.Model != "gpt-4o" || resp.Provider != host || resp.Attempts != 1 || resp.Fallback {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage != (llm.Usage{PromptTokens: 1000, CompletionTokens: 500}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	if want := (1000*2.50 + 500*10.00) / 1e6; resp.CostUSD < want-1e-12 || resp.CostUSD > want+1e-12 {
		t.Fatalf("cost %v, want %v", resp.CostUSD, want)
	}
	b := f.Bodies[0]
	if f.Paths[0] != "/v1/chat/completions" || f.Headers[0].Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("path %q auth %q", f.Paths[0], f.Headers[0].Get("Authorization"))
	}
	if b.Model != "gpt-4o" || b.MaxTokens != 900 || b.ResponseFormat == nil || b.ResponseFormat.Type != "json_object" || len(b.Messages) != 2 {
		t.Fatalf("request body %+v", b)
	}
	if m := prompt.Markers(b.Messages[0].Content); m["kind"] != llm.KindStep || m["framework"] != "SWOT Analysis" {
		t.Fatalf("markers %v", m)
	}
	if !strings.Contains(b.Messages[1].Content, r.Description) || !strings.Contains(b.Messages[1].Content, r.Context) {
		t.Fatalf("user prompt lacks the task or context:\n%s", b.Messages[1].Content)
	}

	// tier 2, a base URL ending in /v1, plain-text kind, no key
	f2 := llmtest.NewFakeAPI(t, llmtest.Reply{Content: "Objective: rewritten."})
	e := llmtest.Task(llm.KindEnhance, "")
	e.Tier = 2
	resp, err = client(t, f2.URL+"/v1/", func(c *Config) { c.APIKey = "" }).Complete(context.Background(), e)
	if err != nil || resp.Text != "Objective: rewritten." || resp.Model != "gpt-4o-mini" {
		t.Fatalf("enhance: %+v, %v", resp, err)
	}
	if f2.Paths[0] != "/v1/chat/completions" || f2.Bodies[0].ResponseFormat != nil || f2.Headers[0].Get("Authorization") != "" {
		t.Fatalf("enhance request: path %q format %+v auth %q", f2.Paths[0], f2.Bodies[0].ResponseFormat, f2.Headers[0].Get("Authorization"))
	}
}

func TestOpenAIRetriesServerError(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 500, Raw: `{"error":"boom"}`}, llmtest.Reply{Status: 503}, llmtest.Reply{Content: llmtest.StepJSON})
	resp, err := client(t, f.URL).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if err != nil || resp.Attempts != 3 || f.Calls.Load() != 3 {
		t.Fatalf("resp %+v, err %v, calls %d", resp, err, f.Calls.Load())
	}
}

func TestOpenAIRetryAfter(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 429, RetryAfter: "1"}, llmtest.Reply{Content: llmtest.StepJSON})
	start := time.Now()
	resp, err := client(t, f.URL, func(c *Config) { c.BackoffMax = 60 * time.Millisecond }).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	elapsed := time.Since(start)
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if elapsed < 60*time.Millisecond || elapsed > 900*time.Millisecond {
		t.Fatalf("waited %v, want Retry-After capped at BackoffMax (60ms)", elapsed)
	}
	if d := parseRetryAfter("2"); d != 2*time.Second {
		t.Fatalf("parseRetryAfter(2) = %v", d)
	}
	if d := parseRetryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); d < 59*time.Minute {
		t.Fatalf("parseRetryAfter(date) = %v", d)
	}
}

func TestOpenAINoRetryOnClientError(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 400, Raw: `{"error":{"message":"bad model"}}`})
	_, err := client(t, f.URL).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	var se *statusError
	var ce *llm.CallError
	if !errors.As(err, &se) || se.Code != 400 || !strings.Contains(se.Body, "bad model") || f.Calls.Load() != 1 {
		t.Fatalf("err %v, calls %d", err, f.Calls.Load())
	}
	if !errors.As(err, &ce) || ce.Attempts != 1 || errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("call error %+v", ce)
	}
}

func TestOpenAITimeouts(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Delay: time.Second})
	fast := func(c *Config) { c.Timeout = 30 * time.Millisecond; c.MaxAttempts = 2 }
	start := time.Now()
	_, err := client(t, f.URL, fast).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	var ce *llm.CallError
	if !errors.Is(err, llm.ErrTimeout) || !errors.As(err, &ce) || ce.Attempts != 2 || f.Calls.Load() != 2 {
		t.Fatalf("err %v, calls %d", err, f.Calls.Load())
	}
	if errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("attempt timeouts: err %v after %v", err, time.Since(start))
	}

	// a server error then a timeout: not every attempt timed out
	f2 := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 502}, llmtest.Reply{Delay: time.Second})
	_, err = client(t, f2.URL, fast).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if err == nil || errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("mixed failures: %v", err)
	}

	// the caller's deadline is a timeout too
	f3 := llmtest.NewFakeAPI(t, llmtest.Reply{Delay: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = client(t, f3.URL).Complete(ctx, llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("caller deadline: %v", err)
	}
}

func TestOpenAIMalformed(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Content: "Sure! Here is your SWOT."})
	_, err := client(t, f.URL).Complete(context.Background(), llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, llm.ErrMalformed) || f.Calls.Load() != 3 || errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("err %v, calls %d", err, f.Calls.Load())
	}
	f2 := llmtest.NewFakeAPI(t, llmtest.Reply{Raw: `{"choices":[]}`}, llmtest.Reply{Content: `{"score":120,"summary":"x"}`}, llmtest.Reply{Content: `{"score":80,"summary":"fine","path_to_100":["more"]}`})
	resp, err := client(t, f2.URL).Complete(context.Background(), llmtest.Task(llm.KindReview, ""))
	if err != nil || resp.Attempts != 3 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if rv, err := llm.ParseReview(resp.Text); err != nil || rv.Score != 80 {
		t.Fatalf("review %+v, %v", rv, err)
	}
}

func TestOpenAIContextCancel(t *testing.T) {
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Delay: 5 * time.Second})
	fb := llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.StepJSON})
	p := chain.New(client(t, f.URL), client(t, fb.URL), llmtest.Quiet)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Complete(ctx, llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrExhausted) || errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("err %v", err)
	}
	if time.Since(start) > time.Second || fb.Calls.Load() != 0 {
		t.Fatalf("cancel took %v, fallback calls %d", time.Since(start), fb.Calls.Load())
	}

	// cancelled while waiting before a retry
	f2 := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 429, RetryAfter: "30"})
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	start = time.Now()
	_, err = client(t, f2.URL, func(c *Config) { c.BackoffMax = time.Minute }).Complete(ctx, llmtest.Task(llm.KindStep, "SWOT Analysis"))
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("cancel during backoff: %v after %v", err, time.Since(start))
	}
}

func TestChatEndpoint(t *testing.T) {
	cases := map[string]string{
		"https://api.openai.com":                          "https://api.openai.com/v1/chat/completions",
		"https://api.openai.com/":                         "https://api.openai.com/v1/chat/completions",
		"https://api.openai.com/v1":                       "https://api.openai.com/v1/chat/completions",
		"https://api.openai.com/v1/":                      "https://api.openai.com/v1/chat/completions",
		"http://127.0.0.1:8000/proxy":                     "http://127.0.0.1:8000/proxy/v1/chat/completions",
		"http://127.0.0.1:8000/proxy/v1/chat/completions": "http://127.0.0.1:8000/proxy/v1/chat/completions",
	}
	for base, want := range cases {
		if got, _, err := chatEndpoint(base); err != nil || got != want {
			t.Errorf("chatEndpoint(%q) = %q, %v; want %q", base, got, err, want)
		}
	}
	for _, base := range []string{"", "api.openai.com", "ftp://x", "http://"} {
		if _, err := New(Config{BaseURL: base}); !errors.Is(err, llm.ErrConfig) {
			t.Errorf("New(%q) error = %v, want ErrConfig", base, err)
		}
	}
}

func TestPriceFor(t *testing.T) {
	cases := []struct {
		model string
		tier  int
		want  price
	}{
		{"gpt-4o", 1, price{2.50, 10.00}},
		{"gpt-4o-mini-2024-07-18", 1, price{0.15, 0.60}},
		{"openai/gpt-4.1-mini", 1, price{0.40, 1.60}},
		{"GPT-4o-2024-08-06", 2, price{2.50, 10.00}},
		{"llama3:70b", 1, defaultPriceTier1},
		{"llama3:8b", 2, defaultPriceTier2},
		{offline.Model, 1, price{}},
	}
	for _, c := range cases {
		if got := priceFor(c.model, c.tier); got != c.want {
			t.Errorf("priceFor(%q, %d) = %+v, want %+v", c.model, c.tier, got, c.want)
		}
	}
}
