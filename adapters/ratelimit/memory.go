package ratelimit

import (
	"context"
	"sync"
	"time"
)

// sweepEvery is how often Memory drops the logs of idle keys.
const sweepEvery = time.Minute

// Memory is an in-process Limiter keeping a sliding log of request times
// per key. It is safe for concurrent use. Keys whose window has passed are
// swept lazily, at most once per minute, so memory stays bounded by the
// keys active in the last window.
type Memory struct {
	now func() time.Time

	mu        sync.Mutex
	logs      map[string]*requestLog
	counters  map[string]*counter // fixed windows (window.go)
	lastSweep time.Time
}

// requestLog holds the times of the counted requests for one key, oldest
// first.
type requestLog struct {
	times   []time.Time
	expires time.Time // when the newest entry leaves the window
}

// NewMemory returns an empty in-process limiter using the wall clock.
func NewMemory() *Memory {
	return newMemoryAt(time.Now)
}

// newMemoryAt returns an empty in-process limiter reading time from now.
func newMemoryAt(now func() time.Time) *Memory {
	return &Memory{now: now, logs: make(map[string]*requestLog), counters: make(map[string]*counter), lastSweep: now()}
}

// Allow implements Limiter.
func (m *Memory) Allow(ctx context.Context, key string, limit int, window time.Duration) (Decision, error) {
	if err := checkArgs(limit, window); err != nil {
		return Decision{}, err
	}
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)

	l := m.logs[key]
	if l == nil {
		l = &requestLog{}
		m.logs[key] = l
	}
	// An entry at t counts while t > now-window, as in the Redis script.
	cutoff := now.Add(-window)
	i := 0
	for i < len(l.times) && !l.times[i].After(cutoff) {
		i++
	}
	l.times = l.times[i:]

	if n := len(l.times); n >= limit {
		// The request becomes allowed once the entry at n-limit leaves.
		return refused(limit, l.times[n-limit].Add(window).Sub(now)), nil
	}
	l.times = append(l.times, now)
	l.expires = now.Add(window)
	return Decision{Allowed: true, Limit: limit, Remaining: limit - len(l.times)}, nil
}

// Undo implements Limiter: it drops the newest entry of key's log.
func (m *Memory) Undo(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.logs[key]; l != nil && len(l.times) > 0 {
		l.times = l.times[:len(l.times)-1]
	}
	return nil
}

// sweep drops the logs of keys with no request left in their window, and
// the counters of windows that ended. The caller must hold m.mu.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < sweepEvery {
		return
	}
	m.lastSweep = now
	for k, l := range m.logs {
		if !l.expires.After(now) {
			delete(m.logs, k)
		}
	}
	for k, c := range m.counters {
		if !c.reset.After(now) {
			delete(m.counters, k)
		}
	}
}

// Ping implements Limiter; memory is always available.
func (m *Memory) Ping(ctx context.Context) error {
	return nil
}
