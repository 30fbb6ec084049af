// Package ratelimit implements sliding-window rate limiting, either in
// process memory or shared across instances through Redis.
package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Decision is the outcome of one Allow call.
type Decision struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Limit is the number of requests permitted per window.
	Limit int
	// Remaining is the number of requests left in the window after this
	// one (0 when refused).
	Remaining int
	// RetryAfter is, when refused, the time until the oldest counted
	// request leaves the window (at least 1s); 0 when allowed.
	RetryAfter time.Duration
}

// Limiter counts requests per key in a sliding window.
//
// A request is counted only when it is allowed: a client that keeps
// calling while refused does not extend its own ban.
type Limiter interface {
	// Allow records a request for key if fewer than limit requests were
	// counted in the last window, and reports the decision.
	Allow(ctx context.Context, key string, limit int, window time.Duration) (Decision, error)
	// Undo gives back one request counted for key: the most recent one,
	// so a request that was counted and then not carried out (the API
	// counts an execute before running it and gives the count back when
	// the command refuses) leaves the window as it was. Counting first
	// and giving back keeps the limit under concurrency: two requests
	// racing for the last place cannot both be counted. With nothing
	// counted for key, Undo does nothing.
	Undo(ctx context.Context, key string) error
	// AllowUntil counts a request for key in a fixed window ending at
	// reset (a UTC day): one counter per key, not a log, so a long window
	// with a high limit costs the same as a short one. Like Allow it
	// counts only allowed requests; a refusal's RetryAfter is the time
	// left to reset. A key is used with Allow or AllowUntil, never both.
	AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (Decision, error)
	// Ping checks the health of the backing store.
	Ping(ctx context.Context) error
}

// minRetryAfter is the smallest RetryAfter reported for a refusal, so that
// it always maps to a non-zero Retry-After header in whole seconds.
const minRetryAfter = time.Second

// defaultPrefix is the Redis key prefix used by Open.
const defaultPrefix = "svc:ratelimit:"

// Open returns a Memory limiter when redisURL is empty, and otherwise a
// Redis limiter connected to redisURL (see redis.ParseURL). The returned
// function releases the limiter's resources.
func Open(redisURL string) (Limiter, func() error, error) {
	if redisURL == "" {
		return NewMemory(), func() error { return nil }, nil
	}
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("ratelimit: parse redis URL: %w", err)
	}
	client := redis.NewClient(opts)
	return NewRedis(client, defaultPrefix), client.Close, nil
}

// checkArgs validates the arguments common to every Allow implementation.
func checkArgs(limit int, window time.Duration) error {
	if limit <= 0 {
		return fmt.Errorf("ratelimit: limit must be positive, got %d", limit)
	}
	if window <= 0 {
		return fmt.Errorf("ratelimit: window must be positive, got %v", window)
	}
	return nil
}

// refused builds the Decision for a refused request.
func refused(limit int, retry time.Duration) Decision {
	return Decision{Limit: limit, RetryAfter: max(retry, minRetryAfter)}
}
