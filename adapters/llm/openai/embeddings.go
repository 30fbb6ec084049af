package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"svc/adapters/llm"
	"svc/domain/embedding"
)

// DefaultEmbeddingModel is the model NewEmbedder uses when none is named.
const DefaultEmbeddingModel = "text-embedding-3-small"

// maxEmbedBatch is how many texts one request embeds; longer lists are
// sent in several requests (OpenAI accepts up to 2,048 inputs).
const maxEmbedBatch = 256

// Embedder embeds texts through an OpenAI-compatible /v1/embeddings API.
type Embedder struct {
	c        *provider
	endpoint string
	model    string
}

var _ embedding.Embedder = (*Embedder)(nil)

// embeddingsRequest is the body of POST /v1/embeddings.
type embeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// embeddingsResponse is the part of the answer the client reads.
type embeddingsResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// NewEmbedder returns an embedder that POSTs to {BaseURL}/v1/embeddings
// with model (default DefaultEmbeddingModel). cfg's BaseURL, APIKey,
// Timeout, MaxAttempts, backoff, HTTPClient and Logger work as for New
// (Model and ModelTier2 are not used): each attempt has its own timeout,
// and network errors, timeouts, HTTP 408, 409, 429 and 5xx and malformed
// answers are retried with backoff. A base URL that does not parse is an
// error matching llm.ErrConfig.
func NewEmbedder(cfg Config, model string) (*Embedder, error) {
	c, err := newProvider(cfg)
	if err != nil {
		return nil, err
	}
	endpoint, _, err := apiEndpoint(cfg.BaseURL, "/embeddings")
	if err != nil {
		return nil, err
	}
	if model = strings.TrimSpace(model); model == "" {
		model = DefaultEmbeddingModel
	}
	return &Embedder{c: c, endpoint: endpoint, model: model}, nil
}

// Name is the provider's host and the model, "host/model": vectors of
// another provider or model do not compare.
func (e *Embedder) Name() string { return e.c.host + "/" + e.model }

// Model is the embedding model asked for.
func (e *Embedder) Model() string { return e.model }

// Embed returns one vector per text, in order, all of one length. A
// failure is an *llm.CallError (matching llm.ErrTimeout when every attempt
// timed out); an answer with the wrong number of vectors, an empty vector
// or vectors of different lengths matches llm.ErrMalformed.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += maxEmbedBatch {
		vs, err := e.batch(ctx, texts[lo:min(lo+maxEmbedBatch, len(texts))])
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vs[0]) != len(out[0]) {
			return nil, &llm.CallError{Provider: e.c.host, Attempts: 1,
				Err: fmt.Errorf("%w: embeddings of %d and %d dimensions", llm.ErrMalformed, len(out[0]), len(vs[0]))}
		}
		out = append(out, vs...)
	}
	return out, nil
}

// batch embeds texts in one request, retried as Complete retries.
func (e *Embedder) batch(ctx context.Context, texts []string) ([][]float32, error) {
	c := e.c
	body, err := json.Marshal(embeddingsRequest{Model: e.model, Input: texts})
	if err != nil {
		return nil, fmt.Errorf("llm %s: encode embeddings request: %w", c.host, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, c.ctxError(0, err)
	}
	timeouts := 0
	for attempt := 1; ; attempt++ {
		vs, err := e.attempt(ctx, body, len(texts))
		if err == nil {
			return vs, nil
		}
		if ctx.Err() != nil {
			return nil, c.ctxError(attempt, fmt.Errorf("%w (last attempt: %w)", ctx.Err(), err))
		}
		if errors.Is(err, errAttemptTimeout) {
			timeouts++
		}
		if !retryable(err) || attempt >= c.cfg.MaxAttempts {
			return nil, &llm.CallError{Provider: c.host, Attempts: attempt, TimedOut: timeouts == attempt, Err: err}
		}
		wait := c.backoff(attempt, err)
		c.log.Info("embeddings attempt failed, retrying", "provider", c.host, "model", e.model, "attempt", attempt, "wait", wait, "err", err)
		if err := sleep(ctx, wait); err != nil {
			return nil, c.ctxError(attempt, err)
		}
	}
}

// attempt makes one request and reads n vectors from its answer.
func (e *Embedder) attempt(ctx context.Context, body []byte, n int) ([][]float32, error) {
	data, err := e.c.post(ctx, e.endpoint, body)
	if err != nil {
		return nil, err
	}
	return parseEmbeddings(data, n)
}

// parseEmbeddings reads an embeddings body holding n vectors of one
// length, placed by their index (by their position when it is absent).
func parseEmbeddings(data []byte, n int) ([][]float32, error) {
	var er embeddingsResponse
	if err := json.Unmarshal(data, &er); err != nil {
		return nil, fmt.Errorf("%w: body is not an embeddings list: %w", llm.ErrMalformed, err)
	}
	if len(er.Data) != n {
		return nil, fmt.Errorf("%w: %d embeddings for %d texts", llm.ErrMalformed, len(er.Data), n)
	}
	out := make([][]float32, n)
	for pos, d := range er.Data {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, fmt.Errorf("%w: embedding index %d out of range or repeated", llm.ErrMalformed, i)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("%w: embedding %d is empty", llm.ErrMalformed, i)
		}
		if len(d.Embedding) != len(er.Data[0].Embedding) {
			return nil, fmt.Errorf("%w: embeddings of %d and %d dimensions", llm.ErrMalformed, len(er.Data[0].Embedding), len(d.Embedding))
		}
		out[i] = d.Embedding
	}
	return out, nil
}
