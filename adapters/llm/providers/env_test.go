package providers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
	"svc/adapters/llm/offline"
)

func TestFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, err := FromEnv(env(nil), llmtest.Quiet)
	if err != nil || p.Name() != offline.Name {
		t.Fatalf("unset: %v, %v", p, err)
	}
	p, err = FromEnv(env(map[string]string{envFallbackBaseURL: "http://fb.example"}), llmtest.Quiet)
	if err != nil || p.Name() != offline.Name {
		t.Fatalf("fallback alone: %v, %v", p, err)
	}
	f := llmtest.NewFakeAPI(t, llmtest.Reply{Status: 401})
	fb := llmtest.NewFakeAPI(t, llmtest.Reply{Content: llmtest.StepJSON})
	p, err = FromEnv(env(map[string]string{envBaseURL: f.URL, envAPIKey: "k1", envModel: "m1", envModelTier2: "m2",
		envFallbackBaseURL: fb.URL, envFallbackAPIKey: "k2"}), llmtest.Quiet)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimPrefix(f.URL, "http://") + "+" + strings.TrimPrefix(fb.URL, "http://"); p.Name() != want {
		t.Fatalf("name %q, want %q", p.Name(), want)
	}
	r := llmtest.Task(llm.KindStep, "SWOT Analysis")
	r.Tier = 2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := p.Complete(ctx, r)
	if err != nil || !resp.Fallback || resp.Model != "m2" || fb.Headers[0].Get("Authorization") != "Bearer k2" || f.Headers[0].Get("Authorization") != "Bearer k1" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if _, err := FromEnv(env(map[string]string{envBaseURL: "not a url"}), llmtest.Quiet); !errors.Is(err, llm.ErrConfig) {
		t.Fatalf("bad URL: %v", err)
	}
}
