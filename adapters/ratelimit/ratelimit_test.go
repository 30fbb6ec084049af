package ratelimit

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const testRedisURL = "redis://127.0.0.1:6379/0"

// advancer is implemented by test limiters with a fake clock.
type advancer interface{ advance(d time.Duration) }

// fakeMemory is a Memory driven by a manual clock.
type fakeMemory struct {
	*Memory
	mu  sync.Mutex
	now time.Time
}

func (f *fakeMemory) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func (f *fakeMemory) time() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// wait lets d pass for l: on its fake clock if it has one, else for real.
func wait(l Limiter, d time.Duration) {
	if a, ok := l.(advancer); ok {
		a.advance(d)
		return
	}
	time.Sleep(d)
}

func TestMemory(t *testing.T) {
	testLimiter(t, func(t *testing.T) Limiter {
		f := &fakeMemory{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
		f.Memory = newMemoryAt(f.time)
		return f
	})
}

func TestRedis(t *testing.T) {
	run := time.Now().UnixNano()
	testLimiter(t, func(t *testing.T) Limiter {
		opts, err := redis.ParseURL(testRedisURL)
		if err != nil {
			t.Fatal(err)
		}
		client := redis.NewClient(opts)
		t.Cleanup(func() { client.Close() })
		l := NewRedis(client, fmt.Sprintf("test:ratelimit:%d:%s:", run, t.Name()))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := l.Ping(ctx); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("redis not reachable at %s: %v", testRedisURL, err)
			}
			t.Fatalf("redis not reachable at %s (CI is set): %v", testRedisURL, err)
		}
		return l
	})
}

// testLimiter is the behaviour shared by every Limiter implementation.
func testLimiter(t *testing.T, newLimiter func(t *testing.T) Limiter) {
	ctx := context.Background()
	allow := func(t *testing.T, l Limiter, key string, limit int, window time.Duration) Decision {
		t.Helper()
		d, err := l.Allow(ctx, key, limit, window)
		if err != nil {
			t.Fatalf("Allow(%q): %v", key, err)
		}
		if d.Limit != limit {
			t.Errorf("Allow(%q).Limit = %d, want %d", key, d.Limit, limit)
		}
		return d
	}

	t.Run("UpToLimit", func(t *testing.T) {
		l := newLimiter(t)
		for want := 2; want >= 0; want-- {
			d := allow(t, l, "k", 3, time.Minute)
			if !d.Allowed || d.Remaining != want || d.RetryAfter != 0 {
				t.Fatalf("got %+v, want allowed with Remaining %d", d, want)
			}
		}
		d := allow(t, l, "k", 3, time.Minute)
		if d.Allowed || d.Remaining != 0 {
			t.Fatalf("4th request: got %+v, want refused", d)
		}
		if d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
			t.Fatalf("RetryAfter = %v, want in (0, 1m]", d.RetryAfter)
		}
	})

	t.Run("KeysIndependent", func(t *testing.T) {
		l := newLimiter(t)
		if d := allow(t, l, "a", 1, time.Minute); !d.Allowed {
			t.Fatalf("a: got %+v, want allowed", d)
		}
		if d := allow(t, l, "a", 1, time.Minute); d.Allowed {
			t.Fatalf("a again: got %+v, want refused", d)
		}
		if d := allow(t, l, "b", 1, time.Minute); !d.Allowed {
			t.Fatalf("b: got %+v, want allowed", d)
		}
	})

	t.Run("WindowSlides", func(t *testing.T) {
		l := newLimiter(t)
		const w = 400 * time.Millisecond
		allow(t, l, "k", 2, w) // at 0, leaves at 400ms
		wait(l, 200*time.Millisecond)
		allow(t, l, "k", 2, w) // at 200ms, leaves at 600ms
		if d := allow(t, l, "k", 2, w); d.Allowed || d.RetryAfter < minRetryAfter {
			t.Fatalf("at 200ms: got %+v, want refused with RetryAfter >= 1s", d)
		}
		wait(l, 300*time.Millisecond) // first request has left
		if d := allow(t, l, "k", 2, w); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("at 500ms: got %+v, want allowed with Remaining 0", d)
		}
		if d := allow(t, l, "k", 2, w); d.Allowed {
			t.Fatalf("at 500ms again: got %+v, want refused", d)
		}
	})

	t.Run("RefusedNotCounted", func(t *testing.T) {
		l := newLimiter(t)
		const w = 400 * time.Millisecond
		allow(t, l, "k", 1, w)
		for i := range 3 { // hammer at 0, 100ms, 200ms
			if d := allow(t, l, "k", 1, w); d.Allowed {
				t.Fatalf("hammer %d: got %+v, want refused", i, d)
			}
			wait(l, 100*time.Millisecond)
		}
		wait(l, 150*time.Millisecond)
		if d := allow(t, l, "k", 1, w); !d.Allowed {
			t.Fatalf("after window: got %+v, want allowed", d)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		l := newLimiter(t)
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				for range 10 {
					d, err := l.Allow(ctx, "k", 100, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						allowed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := allowed.Load(); n != 100 {
			t.Fatalf("allowed %d requests, want 100", n)
		}
	})

	t.Run("UndoGivesBackOne", func(t *testing.T) {
		l := newLimiter(t)
		undo := func(key string) {
			t.Helper()
			if err := l.Undo(ctx, key); err != nil {
				t.Fatalf("Undo(%q): %v", key, err)
			}
		}
		// nothing counted: nothing to give back, and no debt either
		undo("k")
		allow(t, l, "k", 2, time.Minute)
		if d := allow(t, l, "k", 2, time.Minute); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("2nd request: got %+v, want allowed with Remaining 0", d)
		}
		if d := allow(t, l, "k", 2, time.Minute); d.Allowed {
			t.Fatalf("3rd request: got %+v, want refused", d)
		}
		undo("k") // the 2nd request was not carried out
		if d := allow(t, l, "k", 2, time.Minute); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("after undo: got %+v, want allowed with Remaining 0", d)
		}
		if d := allow(t, l, "k", 2, time.Minute); d.Allowed {
			t.Fatalf("after undo, again: got %+v, want refused", d)
		}
		undo("other") // another key is not touched
		if d := allow(t, l, "k", 2, time.Minute); d.Allowed {
			t.Fatalf("after undo of another key: got %+v, want refused", d)
		}
		undo("k")
		undo("k")
		undo("k") // more undos than counts stop at zero
		for want := 1; want >= 0; want-- {
			if d := allow(t, l, "k", 2, time.Minute); !d.Allowed || d.Remaining != want {
				t.Fatalf("after undoing everything: got %+v, want allowed with Remaining %d", d, want)
			}
		}
		if d := allow(t, l, "k", 2, time.Minute); d.Allowed {
			t.Fatalf("limit after undoing everything: got %+v, want refused", d)
		}
	})

	t.Run("UndoTakesTheNewest", func(t *testing.T) {
		l := newLimiter(t)
		const w = 400 * time.Millisecond
		allow(t, l, "k", 2, w) // at 0, leaves at 400ms
		wait(l, 200*time.Millisecond)
		allow(t, l, "k", 2, w) // at 200ms, given back
		if err := l.Undo(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		wait(l, 100*time.Millisecond)
		if d := allow(t, l, "k", 2, w); !d.Allowed || d.Remaining != 0 { // at 300ms, leaves at 700ms
			t.Fatalf("at 300ms: got %+v, want allowed with Remaining 0", d)
		}
		wait(l, 150*time.Millisecond)
		// at 450ms the first request has left; had Undo taken it instead of
		// the newest, the one of 200ms would still count and refuse this
		if d := allow(t, l, "k", 2, w); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("at 450ms: got %+v, want allowed with Remaining 0", d)
		}
	})

	t.Run("ConcurrentAllowAndUndo", func(t *testing.T) {
		l := newLimiter(t)
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				for range 4 {
					d, err := l.Allow(ctx, "k", 200, time.Minute)
					if err != nil || !d.Allowed {
						t.Errorf("Allow: %+v, %v", d, err)
						return
					}
					if err := l.Undo(ctx, "k"); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		// every count was given back: the whole limit is free
		for i := range 3 {
			if d := allow(t, l, "k", 3, time.Minute); !d.Allowed {
				t.Fatalf("request %d after the undos: got %+v, want allowed", i+1, d)
			}
		}
		if d := allow(t, l, "k", 3, time.Minute); d.Allowed {
			t.Fatalf("4th request: got %+v, want refused", d)
		}
	})

	t.Run("InvalidArguments", func(t *testing.T) {
		l := newLimiter(t)
		if _, err := l.Allow(ctx, "k", 0, time.Minute); err == nil {
			t.Error("limit 0: want error")
		}
		if _, err := l.Allow(ctx, "k", 1, 0); err == nil {
			t.Error("window 0: want error")
		}
	})

	t.Run("Ping", func(t *testing.T) {
		if err := newLimiter(t).Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("FixedWindow", func(t *testing.T) {
		l := newLimiter(t)
		until := func(key string, reset time.Time) Decision {
			t.Helper()
			d, err := l.AllowUntil(ctx, key, 3, reset)
			if err != nil {
				t.Fatalf("AllowUntil(%q): %v", key, err)
			}
			return d
		}
		reset := clockOf(l).Add(2 * time.Second)
		for want := 2; want >= 0; want-- {
			if d := until("day", reset); !d.Allowed || d.Remaining != want || d.Limit != 3 {
				t.Fatalf("got %+v, want allowed with Remaining %d", d, want)
			}
		}
		d := until("day", reset)
		if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 2*time.Second {
			t.Fatalf("4th request: %+v, want refused until the reset", d)
		}
		if d := until("other", reset); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("another key: %+v", d)
		}
		wait(l, 2100*time.Millisecond)
		if d := until("day", clockOf(l).Add(2*time.Second)); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("after the reset: %+v", d)
		}
		if _, err := l.AllowUntil(ctx, "k", 1, clockOf(l).Add(-time.Second)); err == nil {
			t.Error("a reset in the past: want error")
		}
	})
}

// clockOf is l's clock: its fake one, else the wall clock.
func clockOf(l Limiter) time.Time {
	if f, ok := l.(*fakeMemory); ok {
		return f.time()
	}
	return time.Now()
}

func TestMemorySweepsIdleKeys(t *testing.T) {
	f := &fakeMemory{now: time.Unix(0, 0)}
	f.Memory = newMemoryAt(f.time)
	ctx := context.Background()
	for i := range 100 {
		if _, err := f.Allow(ctx, fmt.Sprint(i), 1, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	f.advance(sweepEvery)
	if _, err := f.Allow(ctx, "new", 1, time.Second); err != nil {
		t.Fatal(err)
	}
	if n := len(f.logs); n != 1 {
		t.Fatalf("%d keys kept after sweep, want 1", n)
	}
}

func TestOpen(t *testing.T) {
	l, closeFn, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.(*Memory); !ok {
		t.Errorf(`Open("") = %T, want *Memory`, l)
	}
	if err := closeFn(); err != nil {
		t.Error(err)
	}

	if _, _, err := Open("::bad"); err == nil {
		t.Error(`Open("::bad"): want error`)
	}

	l, closeFn, err = Open(testRedisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if _, ok := l.(*Redis); !ok {
		t.Fatalf("Open(%q) = %T, want *Redis", testRedisURL, l)
	}
	if err := l.Ping(context.Background()); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("redis not reachable: %v", err)
		}
		t.Fatal(err)
	}
	if d, err := l.Allow(context.Background(), fmt.Sprintf("test:open:%d", time.Now().UnixNano()), 1, time.Second); err != nil || !d.Allowed {
		t.Fatalf("Allow via Open: %+v, %v", d, err)
	}
}
