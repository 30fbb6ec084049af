package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// allowScript runs one Allow atomically on a sorted set whose scores are
// request times in microseconds. Time is read from the Redis server (TIME),
// so every instance sharing the server sees the same clock.
//
// KEYS[1] = set; ARGV[1] = limit; ARGV[2] = window in µs;
// ARGV[3] = unique member; ARGV[4] = key TTL in ms.
// Returns {allowed (0|1), remaining, retry after in µs}.
var allowScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
-- Format explicitly: Lua's default number format loses digits.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local entry = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return {0, 0, tonumber(entry[2]) + window - now}
end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, limit - count - 1, 0}
`)

// Redis is a Limiter shared across instances, keeping one sorted set of
// request times per key. It uses the Redis server's clock.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis returns a limiter storing its keys in client under prefix.
func NewRedis(client *redis.Client, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, key string, limit int, window time.Duration) (Decision, error) {
	if err := checkArgs(limit, window); err != nil {
		return Decision{}, err
	}
	ttl := (window + time.Millisecond - 1).Milliseconds()
	res, err := allowScript.Run(ctx, r.client, []string{r.prefix + key},
		limit, window.Microseconds(), rand.Text(), ttl).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis allow %q: %w", key, err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("ratelimit: redis allow %q: unexpected reply %v", key, res)
	}
	if res[0] == 0 {
		return refused(limit, time.Duration(res[2])*time.Microsecond), nil
	}
	return Decision{Allowed: true, Limit: limit, Remaining: int(res[1])}, nil
}

// Undo implements Limiter: it removes the member with the highest score
// (the newest request time) from key's set, atomically (ZPOPMAX).
func (r *Redis) Undo(ctx context.Context, key string) error {
	if err := r.client.ZPopMax(ctx, r.prefix+key, 1).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis undo %q: %w", key, err)
	}
	return nil
}

// Ping implements Limiter by pinging the Redis server.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis ping: %w", err)
	}
	return nil
}
