// Package commands holds the write side: one command per file, each with a
// handler that loads the aggregates it needs through their repositories
// (Repositories), lets them decide, and appends the events they return
// with the expected version, in one transaction. A version conflict
// reloads and decides again, a bounded number of times. Handlers hold no
// rule of their own beyond coordinating aggregates.
package commands

import (
	"context"
	"fmt"
	"log/slog"
	"svc/eventstore"
	"svc/eventstore/event"
	"time"
)

// Handler handles one kind of command.
type Handler[C any, R any] interface {
	Handle(ctx context.Context, cmd C) (R, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc[C any, R any] func(ctx context.Context, cmd C) (R, error)

// Handle calls f.
func (f HandlerFunc[C, R]) Handle(ctx context.Context, cmd C) (R, error) { return f(ctx, cmd) }

// WithLogging decorates h with one log record per command: its type, outcome
// and duration, plus the request id the context carries.
func WithLogging[C any, R any](h Handler[C, R], log *slog.Logger) Handler[C, R] {
	return HandlerFunc[C, R](func(ctx context.Context, cmd C) (R, error) {
		start := time.Now()
		r, err := h.Handle(ctx, cmd)
		attrs := []any{"command", fmt.Sprintf("%T", cmd), "duration", time.Since(start), "request_id", event.MetadataFrom(ctx).RequestID}
		if err != nil {
			log.InfoContext(ctx, "command refused", append(attrs, "error", err.Error())...)
		} else {
			log.DebugContext(ctx, "command handled", attrs...)
		}
		return r, err
	})
}

// Waiter makes reads reflect writes: WaitFor returns once every read model
// fed by an event type on the receipt has applied its last event (bounded;
// a read model that lags past the bound is the waiter's to report).
type Waiter interface {
	WaitFor(ctx context.Context, r *event.Receipt)
}

// WithReadYourWrites decorates h so that, once it returns, whatever it
// appended is visible to the caller's reads: it records the command's
// committed appends on a receipt and waits on w for the read models they
// feed. Every command the API runs is decorated so (Handlers): no handler
// names the read models it affects, so none can forget one. A nil w
// returns h as it is.
func WithReadYourWrites[C any, R any](h Handler[C, R], w Waiter) Handler[C, R] {
	if w == nil {
		return h
	}
	return HandlerFunc[C, R](func(ctx context.Context, cmd C) (R, error) {
		wctx, receipt := event.WithReceipt(ctx)
		r, err := h.Handle(wctx, cmd)
		w.WaitFor(ctx, receipt) // also after a refusal that committed (an expired session)
		return r, err
	})
}

// must panics on a nil repositories value: a handler without one is a
// wiring mistake, found at start.
func must(repos *Repositories) *Repositories {
	if repos == nil || repos.Store == nil {
		panic("commands: nil repositories")
	}
	return repos
}

// orgTx is the transaction options of a command about organization orgID.
func orgTx(orgID string) eventstore.TxOptions {
	return eventstore.TxOptions{Metadata: event.Metadata{OrgID: orgID}}
}
