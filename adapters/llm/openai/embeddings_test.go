package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/llmtest"
)

// embedAPI is a scripted /v1/embeddings server: reply writes the answer
// to the n-th request (1-based) of inputs.
type embedAPI struct {
	*httptest.Server
	mu       sync.Mutex
	paths    []string
	auths    []string
	requests []embeddingsRequest
}

func newEmbedAPI(t *testing.T, reply func(w http.ResponseWriter, n int, in []string)) *embedAPI {
	t.Helper()
	e := &embedAPI{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req embeddingsRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		e.mu.Lock()
		e.paths, e.auths, e.requests = append(e.paths, r.URL.Path), append(e.auths, r.Header.Get("Authorization")), append(e.requests, req)
		n := len(e.requests)
		e.mu.Unlock()
		reply(w, n, req.Input)
	}))
	t.Cleanup(e.Close)
	return e
}

// vectors answers one 3-dimensional vector per input, in reverse order
// of index (the client must place them by index).
func vectors(w http.ResponseWriter, in []string) {
	var data []string
	for i := len(in) - 1; i >= 0; i-- {
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,0.5,-1e-3]}`, i, len(in[i])))
	}
	fmt.Fprintf(w, `{"object":"list","data":[%s],"usage":{"prompt_tokens":3,"total_tokens":3}}`, strings.Join(data, ","))
}

func embedder(t *testing.T, base, model string) *Embedder {
	t.Helper()
	e, err := NewEmbedder(Config{BaseURL: base, APIKey: "sk-test", Timeout: 2 * time.Second, MaxAttempts: 3,
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Logger: llmtest.Quiet}, model)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedder(t *testing.T) {
	api := newEmbedAPI(t, func(w http.ResponseWriter, n int, in []string) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		vectors(w, in)
	})
	e := embedder(t, api.URL, "")
	if want := strings.TrimPrefix(api.URL, "http://") + "/text-embedding-3-small"; e.Name() != want || e.Model() != DefaultEmbeddingModel {
		t.Fatalf("name %q, want %q", e.Name(), want)
	}
	vs, err := e.Embed(context.Background(), []string{"a", "bbb"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0][0] != 1 || vs[1][0] != 3 || vs[1][1] != 0.5 || vs[1][2] != -1e-3 {
		t.Fatalf("vectors %v", vs)
	}
	if len(api.requests) != 2 || api.paths[1] != "/v1/embeddings" || api.auths[1] != "Bearer sk-test" ||
		api.requests[1].Model != DefaultEmbeddingModel || strings.Join(api.requests[1].Input, "|") != "a|bbb" {
		t.Fatalf("requests %+v paths %v auths %v", api.requests, api.paths, api.auths)
	}
	if vs, err := e.Embed(context.Background(), nil); err != nil || len(vs) != 0 || len(api.requests) != 2 {
		t.Fatalf("no texts: %v, %v after %d requests", vs, err, len(api.requests))
	}

	// more texts than a batch: several requests, one answer in order
	texts := make([]string, maxEmbedBatch+3)
	for i := range texts {
		texts[i] = strings.Repeat("x", i%7+1)
	}
	vs, err = embedder(t, api.URL+"/v1", "custom-embed").Embed(context.Background(), texts)
	if err != nil || len(vs) != len(texts) || vs[maxEmbedBatch+2][0] != float32(len(texts[maxEmbedBatch+2])) {
		t.Fatalf("batched: %d vectors, %v", len(vs), err)
	}
	if n := len(api.requests); n != 4 || len(api.requests[3].Input) != 3 || api.requests[3].Model != "custom-embed" {
		t.Fatalf("batched requests: %d", n)
	}
}

func TestEmbedderFailures(t *testing.T) {
	for name, body := range map[string]string{
		"too few":     `{"data":[{"index":0,"embedding":[1,2]}]}`,
		"empty":       `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1]}]}`,
		"lengths":     `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`,
		"index twice": `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`,
		"not JSON":    `<html>`,
	} {
		api := newEmbedAPI(t, func(w http.ResponseWriter, _ int, _ []string) { fmt.Fprint(w, body) })
		_, err := embedder(t, api.URL, "").Embed(context.Background(), []string{"a", "b"})
		if !errors.Is(err, llm.ErrMalformed) || len(api.requests) != 3 {
			t.Errorf("%s: %v after %d requests; want ErrMalformed after 3", name, err, len(api.requests))
		}
	}
	api := newEmbedAPI(t, func(w http.ResponseWriter, _ int, _ []string) { w.WriteHeader(http.StatusUnauthorized) })
	var ce *llm.CallError
	if _, err := embedder(t, api.URL, "").Embed(context.Background(), []string{"a"}); !errors.As(err, &ce) || ce.Attempts != 1 || len(api.requests) != 1 {
		t.Fatalf("401: %v after %d requests", err, len(api.requests))
	}
	slow := newEmbedAPI(t, func(w http.ResponseWriter, _ int, in []string) { time.Sleep(300 * time.Millisecond); vectors(w, in) })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := embedder(t, slow.URL, "").Embed(ctx, []string{"a"}); !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("deadline: %v", err)
	}
	if _, err := NewEmbedder(Config{BaseURL: "ftp://x"}, ""); !errors.Is(err, llm.ErrConfig) {
		t.Fatalf("bad base: %v", err)
	}
}

func TestEmbeddingsEndpoint(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.openai.com":                          "https://api.openai.com/v1/embeddings",
		"https://api.openai.com/v1/":                      "https://api.openai.com/v1/embeddings",
		"http://127.0.0.1:8000/proxy":                     "http://127.0.0.1:8000/proxy/v1/embeddings",
		"http://127.0.0.1:8000/proxy/v1/chat/completions": "http://127.0.0.1:8000/proxy/v1/embeddings",
		"http://127.0.0.1:8000/proxy/v1/embeddings":       "http://127.0.0.1:8000/proxy/v1/embeddings",
	} {
		if got, _, err := apiEndpoint(base, "/embeddings"); err != nil || got != want {
			t.Errorf("apiEndpoint(%q) = %q, %v; want %q", base, got, err, want)
		}
	}
}
