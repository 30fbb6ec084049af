// Package commands holds the write side: one command per file, each with a
// handler that loads the aggregates it needs from the event store, lets them
// decide, and appends the resulting events with the expected version. A
// version conflict reloads and retries a bounded number of times.
package commands

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"svc/eventstore"
)

// attempts bounds the retries of a command that lost a version race. A hot
// credit ledger (many steps of one org charging at once) is the contended
// case; each retry waits a little longer, with jitter.
const attempts = 32

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
		attrs := []any{"command", fmt.Sprintf("%T", cmd), "duration", time.Since(start), "request_id", eventstore.MetadataFrom(ctx).RequestID}
		if err != nil {
			log.InfoContext(ctx, "command refused", append(attrs, "error", err.Error())...)
		} else {
			log.DebugContext(ctx, "command handled", attrs...)
		}
		return r, err
	})
}

// meta is the metadata of events about org, on top of what ctx carries.
func meta(ctx context.Context, orgID string) eventstore.Metadata {
	m := eventstore.MetadataFrom(ctx)
	m.OrgID = orgID
	return m
}
