// Package openai is the LLM provider that calls an OpenAI-compatible
// chat-completions API: it sends the messages package prompt builds for an
// llm.Request, retries with backoff within a budget of attempts, validates
// the answer for its kind and prices the call from a table of list prices.
// Embedder (embeddings.go) calls the same API's /v1/embeddings with the
// same conventions (bearer token, per-attempt timeout, retries).
package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/internal/textutil"
	"svc/adapters/llm/prompt"
)

// Default models of New when none is configured.
const (
	defaultModel      = "gpt-4o"
	defaultModelTier2 = "gpt-4o-mini"
)

// Defaults of Config.
const (
	defaultTimeout     = 60 * time.Second
	defaultMaxAttempts = 3
	defaultBackoffBase = 250 * time.Millisecond
	defaultBackoffMax  = 5 * time.Second
)

// Config configures an OpenAI-compatible provider.
type Config struct {
	// BaseURL is the API's base, with or without a trailing /v1.
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Model serves tier-1 calls (default gpt-4o); ModelTier2 serves
	// tier-2 calls (default Model, or gpt-4o-mini when Model is unset
	// too).
	Model, ModelTier2 string
	Timeout           time.Duration // per HTTP attempt; default 60s
	MaxAttempts       int           // default 3
	// BackoffBase and BackoffMax bound the wait before a retry: full
	// jitter, uniform in [0, min(BackoffMax, BackoffBase*2^(attempt-1))];
	// a Retry-After header is honoured up to BackoffMax. Defaults 250ms, 5s.
	BackoffBase, BackoffMax time.Duration
	HTTPClient              *http.Client // optional
	Logger                  *slog.Logger // optional
}

// provider speaks the OpenAI chat-completions protocol.
type provider struct {
	cfg      Config
	endpoint string
	host     string
	client   *http.Client
	log      *slog.Logger
}

// New returns a provider that POSTs to {BaseURL}/v1/chat/completions.
// Each attempt has its own timeout; network errors, timeouts, HTTP 408, 409,
// 429 and 5xx and malformed answers are retried with backoff, other 4xx
// are not. The answer is validated for its kind before success; cost comes
// from a table of list prices (pricing.go).
func New(cfg Config) (llm.Provider, error) {
	c, err := newProvider(cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// newProvider applies cfg's defaults and builds the client New returns.
func newProvider(cfg Config) (*provider, error) {
	endpoint, host, err := chatEndpoint(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		cfg.Model = defaultModel
		if cfg.ModelTier2 == "" {
			cfg.ModelTier2 = defaultModelTier2
		}
	}
	if cfg.ModelTier2 == "" {
		cfg.ModelTier2 = cfg.Model
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = defaultMaxAttempts
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = defaultBackoffBase
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = defaultBackoffMax
	}
	c := &provider{cfg: cfg, endpoint: endpoint, host: host, client: cfg.HTTPClient, log: cfg.Logger}
	if c.client == nil {
		c.client = &http.Client{}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// chatEndpoint derives the chat-completions URL and the host from base.
func chatEndpoint(base string) (endpoint, host string, err error) {
	return apiEndpoint(base, "/chat/completions")
}

// apiEndpoint derives the URL of resource ("/chat/completions",
// "/embeddings") and the host from base: {base}/v1{resource}, or beside
// the resource base names when it ends in /v1 or in a resource's path.
func apiEndpoint(base, resource string) (endpoint, host string, err error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", "", fmt.Errorf("%w: base URL: %w", llm.ErrConfig, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("%w: base URL %q must be http(s)://host[/path]", llm.ErrConfig, u.Redacted())
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"): // a resource's URL: its parent is the API's root
		p = strings.TrimSuffix(p, "/chat/completions")
	case strings.HasSuffix(p, "/embeddings"):
		p = strings.TrimSuffix(p, "/embeddings")
	case strings.HasSuffix(p, "/v1"):
	default:
		p += "/v1"
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = p+resource, "", "", ""
	return u.String(), u.Host, nil
}

// Name returns the provider's host.
func (c *provider) Name() string { return c.host }

// Models reports the models p serves to tier-1 and tier-2 calls, defaults
// applied; ok is false when p is not a provider New returned.
func Models(p llm.Provider) (tier1, tier2 string, ok bool) {
	c, ok := p.(*provider)
	if !ok {
		return "", "", false
	}
	return c.cfg.Model, c.cfg.ModelTier2, true
}

// model returns the model serving tier.
func (c *provider) model(tier int) string {
	if tier == 2 {
		return c.cfg.ModelTier2
	}
	return c.cfg.Model
}

// serves reports whether model is one of the provider's two.
func (c *provider) serves(model string) bool {
	return model == c.cfg.Model || model == c.cfg.ModelTier2
}

// Complete makes the call r with retries; see New.
func (c *provider) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	start := time.Now()
	if err := llm.CheckRequest(r); err != nil {
		return llm.Response{}, fmt.Errorf("llm %s: %w", c.host, err)
	}
	if err := ctx.Err(); err != nil {
		return llm.Response{}, c.ctxError(0, err)
	}
	model := c.model(r.Tier)
	if r.Model != "" {
		if !c.serves(r.Model) { // a policy's model this provider does not serve: never another one
			return llm.Response{}, &llm.CallError{Provider: c.host, Err: fmt.Errorf("%w: %s", llm.ErrModelNotServed, r.Model)}
		}
		model = r.Model
	}
	body, err := chatBody(r, model)
	if err != nil {
		return llm.Response{}, fmt.Errorf("llm %s: %w", c.host, err)
	}
	timeouts := 0
	for attempt := 1; ; attempt++ {
		ans, err := c.attempt(ctx, body, r)
		if err == nil {
			return c.response(r, model, ans, attempt, start), nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, c.ctxError(attempt, fmt.Errorf("%w (last attempt: %w)", ctx.Err(), err))
		}
		if errors.Is(err, errAttemptTimeout) {
			timeouts++
		}
		if !retryable(err) || attempt >= c.cfg.MaxAttempts {
			return llm.Response{}, &llm.CallError{Provider: c.host, Attempts: attempt, TimedOut: timeouts == attempt, Err: err}
		}
		wait := c.backoff(attempt, err)
		c.log.Info("llm attempt failed, retrying", "provider", c.host, "kind", r.Kind,
			"framework", r.Framework, "attempt", attempt, "wait", wait, "err", err)
		if err := sleep(ctx, wait); err != nil {
			return llm.Response{}, c.ctxError(attempt, err)
		}
	}
}

// ctxError is the error of a call stopped by its caller's context err
// (which it wraps); a passed deadline counts as a timeout.
func (c *provider) ctxError(attempts int, err error) error {
	return &llm.CallError{Provider: c.host, Attempts: attempts, TimedOut: errors.Is(err, context.DeadlineExceeded), Err: err}
}

// response builds the Response of a successful attempt.
func (c *provider) response(r llm.Request, model string, ans answer, attempts int, start time.Time) llm.Response {
	if ans.model != "" {
		model = ans.model
	}
	u := ans.usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		in := 0
		for _, m := range prompt.Build(r) {
			in += len(m.Content)
		}
		u = llm.Usage{PromptTokens: textutil.EstimateTokens(in), CompletionTokens: textutil.EstimateTokens(len(ans.text))}
	}
	return llm.Response{
		Text:     ans.text,
		Model:    model,
		Provider: c.host,
		Usage:    u,
		CostUSD:  priceFor(model, r.Tier).Cost(u),
		Attempts: attempts,
		Latency:  time.Since(start),
	}
}

// retryable reports whether a failed attempt is worth another.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.Retryable()
	}
	return errors.Is(err, errAttemptTimeout) || errors.Is(err, errNetwork) || errors.Is(err, llm.ErrMalformed)
}

// backoff is the wait before attempt+1: the Retry-After delay (capped at
// BackoffMax) when the server sent one, otherwise full jitter.
func (c *provider) backoff(attempt int, err error) time.Duration {
	var se *statusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		return min(se.RetryAfter, c.cfg.BackoffMax)
	}
	ceiling := c.cfg.BackoffMax
	if attempt < 31 {
		if d := c.cfg.BackoffBase << (attempt - 1); d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
