package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/frameworks"
	"svc/adapters/llm/openai"
	"svc/test/fakellm"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// provider is a fast-retrying client of s.
func provider(t *testing.T, s *fakellm.Server) llm.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{BaseURL: s.URL(), APIKey: "k", Model: "m1", ModelTier2: "m2",
		Timeout: time.Second, MaxAttempts: 3, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func request(kind, framework string) llm.Request {
	return llm.Request{Kind: kind, Framework: framework, Description: "Plan the launch of our invoicing app in Germany",
		Deliverable: &llm.Deliverable{Title: "T", Sections: []llm.Section{{Heading: "Executive Summary", Content: "x"}}}}
}

func TestAnswersEveryKind(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	p := provider(t, s)
	ctx := context.Background()
	resp, err := p.Complete(ctx, request(llm.KindStep, "SWOT Analysis"))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := llm.ParseStep(resp.Text)
	if len(out.Sections) != len(frameworks.Headings("SWOT Analysis")) || out.Sections[0].Heading != "Strengths" || resp.Usage.PromptTokens == 0 {
		t.Fatalf("step answer %+v, usage %+v", out, resp.Usage)
	}
	for _, kind := range []string{llm.KindSynthesis, llm.KindReview, llm.KindEnhance} {
		if _, err := p.Complete(ctx, request(kind, "")); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	s.SetReviewScore(100)
	resp, _ = p.Complete(ctx, request(llm.KindReview, ""))
	if rv, _ := llm.ParseReview(resp.Text); rv.Score != 100 || len(rv.PathTo100) != 0 {
		t.Fatalf("review %+v", rv)
	}
	chunk := request(llm.KindStep, "PESTLE Analysis")
	chunk.Strategy, chunk.Chunk, chunk.Chunks = llm.StrategyChunked, 1, 2
	resp, _ = p.Complete(ctx, chunk)
	if out, _ := llm.ParseStep(resp.Text); len(out.Sections) != 3 || out.Sections[0].Heading != "Technological" {
		t.Fatalf("chunked step %+v", out)
	}

	kinds := s.CallsByKind()
	if kinds[llm.KindStep] != 2 || kinds[llm.KindReview] != 2 || kinds[llm.KindSynthesis] != 1 || kinds[llm.KindEnhance] != 1 {
		t.Fatalf("by kind %v", kinds)
	}
	if fw := s.CallsByFramework(); fw["SWOT Analysis"] != 1 || fw["PESTLE Analysis"] != 1 {
		t.Fatalf("by framework %v", fw)
	}
	last, ok := s.LastRequest()
	if !ok || last.Framework != "PESTLE Analysis" || last.Markers["chunk"] != "1/2" || last.Model != "m1" || !last.JSONFormat || last.Authorization != "Bearer k" || last.Status != 200 {
		t.Fatalf("last request %+v", last)
	}
	if n := len(s.Requests()); n != 6 {
		t.Fatalf("%d requests kept", n)
	}
}

func TestRules(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	p := provider(t, s)
	ctx := context.Background()

	s.AddRule(fakellm.Rule{Match: "SWOT", Status: 500, Times: 1})
	resp, err := p.Complete(ctx, request(llm.KindStep, "SWOT Analysis"))
	if err != nil || resp.Attempts != 2 || s.Calls("framework=SWOT Analysis") != 2 {
		t.Fatalf("status rule: %+v, %v, calls %d", resp, err, s.Calls("framework=SWOT Analysis"))
	}
	if reqs := s.Requests(); reqs[0].Status != 500 || reqs[1].Status != 200 {
		t.Fatalf("statuses %d %d", reqs[0].Status, reqs[1].Status)
	}

	s.AddRule(fakellm.Rule{Match: "kind=review", Malformed: true})
	if _, err := p.Complete(ctx, request(llm.KindReview, "")); !errors.Is(err, llm.ErrMalformed) || s.Calls("kind=review") != 3 {
		t.Fatalf("malformed rule: %v, calls %d", err, s.Calls("kind=review"))
	}

	s.AddRule(fakellm.Rule{Match: "kind=synthesis", Delay: time.Second})
	fast, _ := openai.New(openai.Config{BaseURL: s.URL(), Timeout: 20 * time.Millisecond, MaxAttempts: 1, Logger: quiet})
	if _, err := fast.Complete(ctx, request(llm.KindSynthesis, "")); !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("delay rule: %v", err)
	}

	s.AddRule(fakellm.Rule{Match: "Risk", Status: 400})
	if _, err := p.Complete(ctx, request(llm.KindStep, "Risk Register")); err == nil || s.Calls("Risk Register") != 1 {
		t.Fatalf("400 rule: %v", err)
	}

	s.Reset()
	if _, err := p.Complete(ctx, request(llm.KindReview, "")); err != nil || s.Calls("") != 1 {
		t.Fatalf("after reset: %v, calls %d", err, s.Calls(""))
	}
}

func TestStandaloneAdmin(t *testing.T) {
	s, err := fakellm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(s.URL()+path, "application/json", bytes.NewBufferString(body))
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("POST %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	post("/_fakellm/rules", `{"match":"kind=step","status":503,"times":1,"retry_after":"0"}`)
	resp, err := provider(t, s).Complete(context.Background(), request(llm.KindStep, "OKR Framework"))
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("%+v, %v", resp, err)
	}
	r, err := http.Get(s.URL() + "/_fakellm/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var stats struct {
		Total       int            `json:"total"`
		ByFramework map[string]int `json:"by_framework"`
	}
	if err := json.NewDecoder(r.Body).Decode(&stats); err != nil || stats.Total != 2 || stats.ByFramework["OKR Framework"] != 2 {
		t.Fatalf("stats %+v, %v", stats, err)
	}

	// embeddings: deterministic, one vector per input
	er, err := http.Post(s.URL()+"/v1/embeddings", "application/json", bytes.NewBufferString(`{"model":"e","input":["a b","a b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer er.Body.Close()
	var emb struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(er.Body).Decode(&emb); err != nil || len(emb.Data) != 2 || len(emb.Data[0].Embedding) != 64 || !slices.Equal(emb.Data[0].Embedding, emb.Data[1].Embedding) {
		t.Fatalf("embeddings %v", err)
	}
}
