package httpapi

import (
	"context"
	"time"
)

// Limiter counts requests per key in a sliding window: the per-minute,
// signup and daily execute limits. The API degrades open when it fails.
type Limiter interface {
	// Allow counts a request for key unless limit requests were counted
	// in the last window, and reports the decision.
	Allow(ctx context.Context, key string, limit int, window time.Duration) (LimitDecision, error)
	// Ping checks the store behind the limiter (health's cache check).
	Ping(ctx context.Context) error
}

// LimitUndoer is implemented by a Limiter that can give a count back:
// execute counts a request in the daily window before running the command
// and, when the command refuses it, gives the count back, so only accepted
// executes use up the day's allowance while two executes racing for the
// last place still cannot both pass. A Limiter without it keeps every
// counted request (refusals included).
type LimitUndoer interface {
	// Undo gives back the most recent request counted for key; with
	// nothing counted it does nothing.
	Undo(ctx context.Context, key string) error
}

// WindowLimiter is implemented by a Limiter that also counts in fixed
// windows with one counter per key (anonymous MCP's per-day limit, per
// client address). Without it such a limit counts in Allow's sliding
// window of the same length.
type WindowLimiter interface {
	// AllowUntil counts a request for key unless limit were counted in
	// the window that ends at reset.
	AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (LimitDecision, error)
}

// LimitDecision is the outcome of one Limiter.Allow call.
type LimitDecision struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Limit is the number of requests permitted per window.
	Limit int
	// Remaining is the number of requests left in the window after this
	// one (0 when refused).
	Remaining int
	// RetryAfter is, when refused, how long until a request would be
	// allowed again.
	RetryAfter time.Duration
}
