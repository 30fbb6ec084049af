package providers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
	"svc/test/fakellm"
)

func TestEmbedderFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	e, err := EmbedderFromEnv(env(map[string]string{envFallbackBaseURL: "http://fb.example"}), llmtest.Quiet)
	if err != nil || e != nil {
		t.Fatalf("offline: %v, %v", e, err)
	}
	if _, err := EmbedderFromEnv(env(map[string]string{envBaseURL: "not a url"}), llmtest.Quiet); !errors.Is(err, llm.ErrConfig) {
		t.Fatalf("bad URL: %v", err)
	}
	s := fakellm.New()
	defer s.Close()
	e, err = EmbedderFromEnv(env(map[string]string{envBaseURL: s.URL(), envAPIKey: "k1", envEmbeddingModel: " my-embed "}), llmtest.Quiet)
	if err != nil || e == nil || !strings.HasSuffix(e.Name(), "/my-embed") {
		t.Fatalf("configured: %v, %v", e, err)
	}
	vs, err := e.Embed(context.Background(), []string{"a b", "c"})
	if last, _ := s.LastRequest(); err != nil || len(vs) != 2 || last.Model != "my-embed" || last.Authorization != "Bearer k1" {
		t.Fatalf("embed: %v, %v; call %+v", vs, err, last)
	}
	e, _ = EmbedderFromEnv(env(map[string]string{envBaseURL: s.URL()}), llmtest.Quiet)
	if !strings.HasSuffix(e.Name(), "/text-embedding-3-small") {
		t.Fatalf("default model: %s", e.Name())
	}
}
