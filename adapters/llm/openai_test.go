package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// quiet is a logger that discards everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// stepJSON is a valid KindStep answer.
const stepJSON = `{"summary":"ok","sections":[{"heading":"Strengths","content":"x"}]}`

// reply is one scripted answer of the fake provider.
type reply struct {
	status     int
	content    string        // choices[0].message.content
	raw        string        // whole body instead of a chat completion
	retryAfter string        // Retry-After header
	delay      time.Duration // before answering (the request's context cancels it)
}

// fakeAPI is a scripted OpenAI-compatible server; the last reply repeats.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	calls   atomic.Int32
	bodies  []chatRequest
	headers []http.Header
	paths   []string
}

// newFakeAPI starts a fake provider answering replies in order.
func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	f := &fakeAPI{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	n := int(f.calls.Add(1))
	var body chatRequest
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.headers = append(f.headers, r.Header.Clone())
	f.paths = append(f.paths, r.URL.Path)
	rep := f.replies[min(n, len(f.replies))-1]
	f.mu.Unlock()
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	if rep.status == 0 {
		rep.status = 200
	}
	w.WriteHeader(rep.status)
	if rep.raw != "" || rep.status != 200 {
		_, _ = io.WriteString(w, rep.raw)
		return
	}
	content, _ := json.Marshal(rep.content)
	_, _ = io.WriteString(w, `{"model":"`+body.Model+`","choices":[{"message":{"role":"assistant","content":`+string(content)+`}}],"usage":{"prompt_tokens":1000,"completion_tokens":500}}`)
}

// client returns a fast-retrying provider for base.
func client(t *testing.T, base string, mod ...func(*OpenAIConfig)) Provider {
	t.Helper()
	cfg := OpenAIConfig{BaseURL: base, APIKey: "sk-test", Model: "gpt-4o", ModelTier2: "gpt-4o-mini",
		Timeout: 2 * time.Second, MaxAttempts: 3, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Logger: quiet}
	for _, m := range mod {
		m(&cfg)
	}
	p, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenAISuccess(t *testing.T) {
	f := newFakeAPI(t, reply{content: "```json\n" + stepJSON + "\n```"})
	r := task(KindStep, "SWOT Analysis")
	r.MaxTokens = 900
	resp, err := client(t, f.URL).Complete(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(f.URL, "http://")
	if resp.Text != stepJSON || resp.Model != "gpt-4o" || resp.Provider != host || resp.Attempts != 1 || resp.Fallback {
		t.Fatalf("response %+v", resp)
	}
	if resp.Usage != (Usage{PromptTokens: 1000, CompletionTokens: 500}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	if want := (1000*2.50 + 500*10.00) / 1e6; resp.CostUSD < want-1e-12 || resp.CostUSD > want+1e-12 {
		t.Fatalf("cost %v, want %v", resp.CostUSD, want)
	}
	b := f.bodies[0]
	if f.paths[0] != "/v1/chat/completions" || f.headers[0].Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("path %q auth %q", f.paths[0], f.headers[0].Get("Authorization"))
	}
	if b.Model != "gpt-4o" || b.MaxTokens != 900 || b.ResponseFormat == nil || b.ResponseFormat.Type != "json_object" || len(b.Messages) != 2 {
		t.Fatalf("request body %+v", b)
	}
	if m := Markers(b.Messages[0].Content); m["kind"] != KindStep || m["framework"] != "SWOT Analysis" {
		t.Fatalf("markers %v", m)
	}
	if !strings.Contains(b.Messages[1].Content, r.Description) || !strings.Contains(b.Messages[1].Content, r.Context) {
		t.Fatalf("user prompt lacks the task or context:\n%s", b.Messages[1].Content)
	}

	// tier 2, a base URL ending in /v1, plain-text kind, no key
	f2 := newFakeAPI(t, reply{content: "Objective: rewritten."})
	e := task(KindEnhance, "")
	e.Tier = 2
	resp, err = client(t, f2.URL+"/v1/", func(c *OpenAIConfig) { c.APIKey = "" }).Complete(context.Background(), e)
	if err != nil || resp.Text != "Objective: rewritten." || resp.Model != "gpt-4o-mini" {
		t.Fatalf("enhance: %+v, %v", resp, err)
	}
	if f2.paths[0] != "/v1/chat/completions" || f2.bodies[0].ResponseFormat != nil || f2.headers[0].Get("Authorization") != "" {
		t.Fatalf("enhance request: path %q format %+v auth %q", f2.paths[0], f2.bodies[0].ResponseFormat, f2.headers[0].Get("Authorization"))
	}
}

func TestOpenAIRetriesServerError(t *testing.T) {
	f := newFakeAPI(t, reply{status: 500, raw: `{"error":"boom"}`}, reply{status: 503}, reply{content: stepJSON})
	resp, err := client(t, f.URL).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if err != nil || resp.Attempts != 3 || f.calls.Load() != 3 {
		t.Fatalf("resp %+v, err %v, calls %d", resp, err, f.calls.Load())
	}
}

func TestOpenAIRetryAfter(t *testing.T) {
	f := newFakeAPI(t, reply{status: 429, retryAfter: "1"}, reply{content: stepJSON})
	start := time.Now()
	resp, err := client(t, f.URL, func(c *OpenAIConfig) { c.BackoffMax = 60 * time.Millisecond }).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
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
	f := newFakeAPI(t, reply{status: 400, raw: `{"error":{"message":"bad model"}}`})
	_, err := client(t, f.URL).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	var se *StatusError
	var ce *CallError
	if !errors.As(err, &se) || se.Code != 400 || !strings.Contains(se.Body, "bad model") || f.calls.Load() != 1 {
		t.Fatalf("err %v, calls %d", err, f.calls.Load())
	}
	if !errors.As(err, &ce) || ce.Attempts != 1 || errors.Is(err, ErrTimeout) {
		t.Fatalf("call error %+v", ce)
	}
}

func TestOpenAITimeouts(t *testing.T) {
	f := newFakeAPI(t, reply{delay: time.Second})
	fast := func(c *OpenAIConfig) { c.Timeout = 30 * time.Millisecond; c.MaxAttempts = 2 }
	start := time.Now()
	_, err := client(t, f.URL, fast).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	var ce *CallError
	if !errors.Is(err, ErrTimeout) || !errors.As(err, &ce) || ce.Attempts != 2 || f.calls.Load() != 2 {
		t.Fatalf("err %v, calls %d", err, f.calls.Load())
	}
	if errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("attempt timeouts: err %v after %v", err, time.Since(start))
	}

	// a server error then a timeout: not every attempt timed out
	f2 := newFakeAPI(t, reply{status: 502}, reply{delay: time.Second})
	_, err = client(t, f2.URL, fast).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if err == nil || errors.Is(err, ErrTimeout) {
		t.Fatalf("mixed failures: %v", err)
	}

	// the caller's deadline is a timeout too
	f3 := newFakeAPI(t, reply{delay: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = client(t, f3.URL).Complete(ctx, task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("caller deadline: %v", err)
	}
}

func TestOpenAIMalformed(t *testing.T) {
	f := newFakeAPI(t, reply{content: "Sure! Here is your SWOT."})
	_, err := client(t, f.URL).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, ErrMalformed) || f.calls.Load() != 3 || errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v, calls %d", err, f.calls.Load())
	}
	f2 := newFakeAPI(t, reply{raw: `{"choices":[]}`}, reply{content: `{"score":120,"summary":"x"}`}, reply{content: `{"score":80,"summary":"fine","path_to_100":["more"]}`})
	resp, err := client(t, f2.URL).Complete(context.Background(), task(KindReview, ""))
	if err != nil || resp.Attempts != 3 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if rv, err := ParseReview(resp.Text); err != nil || rv.Score != 80 {
		t.Fatalf("review %+v, %v", rv, err)
	}
}

func TestOpenAIContextCancel(t *testing.T) {
	f := newFakeAPI(t, reply{delay: 5 * time.Second})
	fb := newFakeAPI(t, reply{content: stepJSON})
	p := NewChain(client(t, f.URL), client(t, fb.URL), quiet)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Complete(ctx, task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrExhausted) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v", err)
	}
	if time.Since(start) > time.Second || fb.calls.Load() != 0 {
		t.Fatalf("cancel took %v, fallback calls %d", time.Since(start), fb.calls.Load())
	}

	// cancelled while waiting before a retry
	f2 := newFakeAPI(t, reply{status: 429, retryAfter: "30"})
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	start = time.Now()
	_, err = client(t, f2.URL, func(c *OpenAIConfig) { c.BackoffMax = time.Minute }).Complete(ctx, task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("cancel during backoff: %v after %v", err, time.Since(start))
	}
}

func TestChainFallback(t *testing.T) {
	primary := newFakeAPI(t, reply{status: 500})
	fallback := newFakeAPI(t, reply{content: stepJSON})
	p := NewChain(client(t, primary.URL), client(t, fallback.URL), quiet)
	resp, err := p.Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if err != nil || !resp.Fallback || resp.Provider != strings.TrimPrefix(fallback.URL, "http://") || resp.Attempts != 4 {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	ok := NewChain(client(t, fallback.URL), client(t, primary.URL), quiet)
	if resp, err := ok.Complete(context.Background(), task(KindStep, "SWOT Analysis")); err != nil || resp.Fallback {
		t.Fatalf("healthy primary: %+v, %v", resp, err)
	}
}

func TestChainExhausted(t *testing.T) {
	bad := newFakeAPI(t, reply{status: 500, raw: "primary down"})
	bad2 := newFakeAPI(t, reply{status: 401, raw: "bad key"})
	_, err := NewChain(client(t, bad.URL), client(t, bad2.URL), quiet).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	var ex *ExhaustedError
	if !errors.Is(err, ErrExhausted) || errors.Is(err, ErrTimeout) || !errors.As(err, &ex) || len(ex.Failures) != 2 || ex.Attempts() != 4 {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), "primary down") || !strings.Contains(err.Error(), "bad key") {
		t.Fatalf("causes missing from %q", err)
	}
	_, err = NewChain(client(t, bad.URL), nil, quiet).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("no fallback: %v", err)
	}

	slow := newFakeAPI(t, reply{delay: time.Second})
	fast := func(c *OpenAIConfig) { c.Timeout = 20 * time.Millisecond; c.MaxAttempts = 1 }
	_, err = NewChain(client(t, slow.URL, fast), client(t, slow.URL, fast), quiet).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, ErrExhausted) || !errors.Is(err, ErrTimeout) {
		t.Fatalf("both timed out: %v", err)
	}
	_, err = NewChain(client(t, slow.URL, fast), client(t, bad.URL), quiet).Complete(context.Background(), task(KindStep, "SWOT Analysis"))
	if !errors.Is(err, ErrExhausted) || errors.Is(err, ErrTimeout) {
		t.Fatalf("timeout then 500: %v", err)
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
		if _, err := NewOpenAI(OpenAIConfig{BaseURL: base}); !errors.Is(err, ErrConfig) {
			t.Errorf("NewOpenAI(%q) error = %v, want ErrConfig", base, err)
		}
	}
}

func TestPriceFor(t *testing.T) {
	cases := []struct {
		model string
		tier  int
		want  Price
	}{
		{"gpt-4o", 1, Price{2.50, 10.00}},
		{"gpt-4o-mini-2024-07-18", 1, Price{0.15, 0.60}},
		{"openai/gpt-4.1-mini", 1, Price{0.40, 1.60}},
		{"GPT-4o-2024-08-06", 2, Price{2.50, 10.00}},
		{"llama3:70b", 1, DefaultPriceTier1},
		{"llama3:8b", 2, DefaultPriceTier2},
		{OfflineModel, 1, Price{}},
	}
	for _, c := range cases {
		if got := PriceFor(c.model, c.tier); got != c.want {
			t.Errorf("PriceFor(%q, %d) = %+v, want %+v", c.model, c.tier, got, c.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, err := FromEnv(env(nil), quiet)
	if err != nil || p.Name() != OfflineProvider {
		t.Fatalf("unset: %v, %v", p, err)
	}
	p, err = FromEnv(env(map[string]string{EnvFallbackBaseURL: "http://fb.example"}), quiet)
	if err != nil || p.Name() != OfflineProvider {
		t.Fatalf("fallback alone: %v, %v", p, err)
	}
	f := newFakeAPI(t, reply{status: 401})
	fb := newFakeAPI(t, reply{content: stepJSON})
	p, err = FromEnv(env(map[string]string{EnvBaseURL: f.URL, EnvAPIKey: "k1", EnvModel: "m1", EnvModelTier2: "m2",
		EnvFallbackBaseURL: fb.URL, EnvFallbackAPIKey: "k2"}), quiet)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimPrefix(f.URL, "http://") + "+" + strings.TrimPrefix(fb.URL, "http://"); p.Name() != want {
		t.Fatalf("name %q, want %q", p.Name(), want)
	}
	r := task(KindStep, "SWOT Analysis")
	r.Tier = 2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := p.Complete(ctx, r)
	if err != nil || !resp.Fallback || resp.Model != "m2" || fb.headers[0].Get("Authorization") != "Bearer k2" || f.headers[0].Get("Authorization") != "Bearer k1" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if _, err := FromEnv(env(map[string]string{EnvBaseURL: "not a url"}), quiet); !errors.Is(err, ErrConfig) {
		t.Fatalf("bad URL: %v", err)
	}
}
