// Package llmtest holds what the tests of the LLM providers share: a
// realistic request, a quiet logger, a valid step answer and a scripted
// OpenAI-compatible server. It is imported by tests only.
package llmtest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/adapters/llm"
)

// Quiet is a logger that discards everything.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// StepJSON is a valid KindStep answer.
const StepJSON = `{"summary":"ok","sections":[{"heading":"Strengths","content":"x"}]}`

// Task is a realistic request of kind for framework.
func Task(kind, framework string) llm.Request {
	return llm.Request{
		Kind: kind, Tier: 1, Framework: framework, Step: 1, TotalSteps: 4,
		Description: "Analyse the competitive landscape for our B2B invoicing SaaS entering the German market, with pricing and channel partners in focus.",
		TaskType:    "competitive_analysis", TaskLabel: "Competitive analysis",
		Title:   "German market entry for invoicing SaaS",
		Context: "We have 40 customers in Austria and a budget of 200k EUR.",
	}
}

// Reply is one scripted answer of a FakeAPI.
type Reply struct {
	Status     int
	Content    string        // choices[0].message.content
	Raw        string        // whole body instead of a chat completion
	RetryAfter string        // Retry-After header
	Delay      time.Duration // before answering (the request's context cancels it)
}

// Message is one chat message of a ChatRequest.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the body of a chat-completions request, as a FakeAPI
// received it.
type ChatRequest struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	MaxTokens      int       `json:"max_tokens,omitempty"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format,omitempty"`
}

// FakeAPI is a scripted OpenAI-compatible server; the last reply repeats.
// Bodies, Headers and Paths are those of the requests received, in order.
type FakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	replies []Reply
	Calls   atomic.Int32
	Bodies  []ChatRequest
	Headers []http.Header
	Paths   []string
}

// NewFakeAPI starts a fake provider answering replies in order; it is
// closed when the test ends.
func NewFakeAPI(t *testing.T, replies ...Reply) *FakeAPI {
	f := &FakeAPI{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *FakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	n := int(f.Calls.Add(1))
	var body ChatRequest
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.Bodies = append(f.Bodies, body)
	f.Headers = append(f.Headers, r.Header.Clone())
	f.Paths = append(f.Paths, r.URL.Path)
	rep := f.replies[min(n, len(f.replies))-1]
	f.mu.Unlock()
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	if rep.Status == 0 {
		rep.Status = 200
	}
	w.WriteHeader(rep.Status)
	if rep.Raw != "" || rep.Status != 200 {
		_, _ = io.WriteString(w, rep.Raw)
		return
	}
	content, _ := json.Marshal(rep.Content)
	_, _ = io.WriteString(w, `{"model":"`+body.Model+`","choices":[{"message":{"role":"assistant","content":`+string(content)+`}}],"usage":{"prompt_tokens":1000,"completion_tokens":500}}`)
}
