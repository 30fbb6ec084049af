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
