package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"svc/adapters/cache"
)

// TestRedis needs the Redis at 127.0.0.1:6379 (skipped without it).
func TestRedis(t *testing.T) {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	if err := client.Ping(ctx).Err(); err != nil {
		t.Skip("no redis:", err)
	}
	c := cache.NewRedis(client, "svc:test:cache:"+time.Now().Format("150405.000000")+":")
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Get(ctx, "k"); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	if err := c.Set(ctx, "k", []byte("v"), 1); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Get(ctx, "k"); !ok || err != nil || string(v) != "v" {
		t.Fatalf("get %q %v %v", v, ok, err)
	}
	time.Sleep(1100 * time.Millisecond)
	if _, ok, _ := c.Get(ctx, "k"); ok {
		t.Fatal("the value outlived its ttl")
	}
	down := cache.NewRedis(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), "x:")
	if _, ok, err := down.Get(ctx, "k"); ok || err == nil {
		t.Fatal("a down server answered")
	}
	if r, closeFn, err := cache.Open(""); r != nil || err != nil || closeFn() != nil {
		t.Fatal("Open without a URL")
	}
}
