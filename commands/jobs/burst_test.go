package jobs_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"svc/commands/jobs"
)

// TestBurstFillsFreedSlots: a burst of kicks larger than the slots is
// claimed together as far as the slots go; the kicks left over are found
// as soon as a slot frees, not at the next poll (an hour here).
func TestBurstFillsFreedSlots(t *testing.T) {
	kind := kindOf(t)
	const limit, total = 4, 40
	var (
		mu   sync.Mutex
		done = map[string]bool{}
		most int
		busy int
	)
	find := func(_ context.Context, n int) ([]string, error) {
		mu.Lock()
		defer mu.Unlock()
		var due []string
		for i := range total {
			if id := fmt.Sprintf("job-%d", i); !done[id] && len(due) < n {
				due = append(due, id)
			}
		}
		return due, nil
	}
	job := func(_ context.Context, id string) *time.Time {
		mu.Lock()
		busy++
		most = max(most, busy)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		busy--
		done[id] = true
		mu.Unlock()
		return nil
	}
	// the first look finds nothing: every job comes from the kicks, or
	// from the looks a freed slot asks for
	var first sync.Once
	r, _ := start(t, jobs.Config{Kind: kind, ID: "owner-a", Concurrency: limit, Poll: time.Hour, Run: job,
		Find: func(ctx context.Context, n int) ([]string, error) {
			empty := false
			first.Do(func() { empty = true })
			if empty {
				return nil, nil
			}
			return find(ctx, n)
		}})
	time.Sleep(50 * time.Millisecond) // the first look is over
	for i := range total {
		r.Kick(fmt.Sprintf("job-%d", i))
	}
	waitFor(t, "every job to run", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(done) == total
	})
	mu.Lock()
	defer mu.Unlock()
	if most > limit {
		t.Fatalf("%d jobs ran at once, limit %d", most, limit)
	}
}
