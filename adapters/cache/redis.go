// Package cache is the suite's shared cache of hot answers (suite.Cache):
// Redis when REDIS_URL is set. It is only a cache: a miss, an error or a
// flushed server costs a database read, never a wrong answer.
package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// defaultPrefix is the prefix of the keys Open's cache writes.
const defaultPrefix = "svc:cache:"

// opTimeout bounds one cache call, so a slow server degrades to a miss
// quickly instead of holding the request.
const opTimeout = 50 * time.Millisecond

// Redis is a suite.Cache over a Redis server.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis is a cache storing its keys in client under prefix.
func NewRedis(client *redis.Client, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Open connects to redisURL (see redis.ParseURL); nil (and a no-op close)
// when redisURL is empty.
func Open(redisURL string) (*Redis, func() error, error) {
	if redisURL == "" {
		return nil, func() error { return nil }, nil
	}
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("cache: parse redis URL: %w", err)
	}
	client := redis.NewClient(opts)
	return NewRedis(client, defaultPrefix), client.Close, nil
}

// Get returns the value of key, false when it has none.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	v, err := r.client.Get(ctx, r.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache: get: %w", err)
	}
	return v, true, nil
}

// Set stores value under key for ttlSeconds (at least one second).
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttlSeconds int) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := r.client.Set(ctx, r.prefix+key, value, time.Duration(max(ttlSeconds, 1))*time.Second).Err(); err != nil {
		return fmt.Errorf("cache: set: %w", err)
	}
	return nil
}

// Ping checks the server.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("cache: ping: %w", err)
	}
	return nil
}
