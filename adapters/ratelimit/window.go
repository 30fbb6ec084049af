package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Fixed windows (Limiter.AllowUntil): a counter per key that expires at
// the window's end.

// counter is one key's fixed window.
type counter struct {
	n     int
	reset time.Time
}

// AllowUntil implements Limiter.
func (m *Memory) AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if err := checkArgs(limit, reset.Sub(now)); err != nil {
		return Decision{}, err
	}
	m.sweep(now)
	c := m.counters[key]
	if c == nil || !c.reset.After(now) {
		c = &counter{reset: reset}
		m.counters[key] = c
	}
	if c.n >= limit {
		return refused(limit, c.reset.Sub(now)), nil
	}
	c.n++
	return Decision{Allowed: true, Limit: limit, Remaining: limit - c.n}, nil
}

// windowScript counts one request in a fixed window, atomically.
//
// KEYS[1] = counter; ARGV[1] = limit; ARGV[2] = the window's end in unix
// ms. Returns {allowed (0|1), remaining, retry after in ms}.
var windowScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
local limit = tonumber(ARGV[1])
if n > limit then
  redis.call('DECR', KEYS[1])
  return {0, 0, redis.call('PTTL', KEYS[1])}
end
return {1, limit - n, 0}
`)

// AllowUntil implements Limiter.
func (r *Redis) AllowUntil(ctx context.Context, key string, limit int, reset time.Time) (Decision, error) {
	if err := checkArgs(limit, time.Until(reset)); err != nil {
		return Decision{}, err
	}
	res, err := windowScript.Run(ctx, r.client, []string{r.prefix + key}, limit, reset.UnixMilli()).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis allow until %q: %w", key, err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("ratelimit: redis allow until %q: unexpected reply %v", key, res)
	}
	if res[0] == 0 {
		return refused(limit, time.Duration(res[2])*time.Millisecond), nil
	}
	return Decision{Allowed: true, Limit: limit, Remaining: int(res[1])}, nil
}
