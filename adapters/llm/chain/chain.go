// Package chain is the LLM provider that tries a primary provider and,
// when it fails, an optional fallback, reporting whether the fallback
// answered and how many attempts both made.
package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/offline"
)

// chain tries a primary provider, then an optional fallback.
type chain struct {
	primary, fallback llm.Provider
	log               *slog.Logger
}

// New returns a provider that tries primary and, when it fails, the
// fallback (may be nil). An answer from the fallback has Fallback set, its
// Attempts include the primary's, and its Latency covers both; the
// primary's failure is logged as a warning. When every provider failed the
// error matches llm.ErrExhausted (and llm.ErrTimeout when every failure was
// a timeout), and its message holds every provider's cause. A caller's
// cancelled or expired context stops the chain at once: that error wraps
// the context's error instead, and no fallback is tried. A nil primary is
// the offline writer.
func New(primary llm.Provider, fallback llm.Provider, log *slog.Logger) llm.Provider {
	if primary == nil {
		primary = offline.New()
	}
	if log == nil {
		log = slog.Default()
	}
	return &chain{primary: primary, fallback: fallback, log: log}
}

// Name returns the primary's name, and the fallback's after a "+".
func (c *chain) Name() string {
	if c.fallback == nil {
		return c.primary.Name()
	}
	return c.primary.Name() + "+" + c.fallback.Name()
}

// Complete makes the call r; see New.
func (c *chain) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := c.primary.Complete(ctx, r)
	if err == nil {
		return resp, nil
	}
	if ctx.Err() != nil {
		return llm.Response{}, fmt.Errorf("llm chain: %w", err)
	}
	failures := []providerFailure{{Provider: c.primary.Name(), Err: err}}
	if c.fallback == nil {
		return llm.Response{}, &exhaustedError{Failures: failures}
	}
	if errors.Is(err, llm.ErrModelNotServed) { // a policy's model only the fallback serves: routing, not a failure
		c.log.Debug("llm primary provider does not serve the model, trying fallback", "model", r.Model)
	} else {
		c.log.Warn("llm primary provider failed, trying fallback", "primary", c.primary.Name(),
			"fallback", c.fallback.Name(), "kind", r.Kind, "framework", r.Framework, "err", err)
	}
	resp, ferr := c.fallback.Complete(ctx, r)
	if ferr == nil {
		resp.Fallback = true
		resp.Attempts += attemptsOf(err)
		resp.Latency = time.Since(start)
		return resp, nil
	}
	if ctx.Err() != nil {
		return llm.Response{}, fmt.Errorf("llm chain: %w", ferr)
	}
	failures = append(failures, providerFailure{Provider: c.fallback.Name(), Err: ferr})
	return llm.Response{}, &exhaustedError{Failures: failures}
}
