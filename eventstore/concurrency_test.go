package eventstore_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"svc/eventstore"
	"svc/eventstore/event"
)

// TestConcurrentWritersOneStream has 32 writers race to append each next
// version of one stream: exactly one wins each version, every loser gets a
// version conflict, and the stream ends with versions 0..K-1, no gaps, no
// duplicates, each event the one its winner appended.
func TestConcurrentWritersOneStream(t *testing.T) {
	const (
		writers  = 32
		versions = 64
		stream   = "contended"
	)
	testDB.Reset(t)
	s := eventstore.New(widePool(t, 24))
	ctx := testCtx(t, 60*time.Second)

	type win struct{ writer, attempt int }
	var (
		mu        sync.Mutex
		wins      = map[int64]win{}
		conflicts int
		others    []error
	)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			<-start
			expected := event.NewStream
			for attempt := 0; ; attempt++ {
				if expected >= versions-1 {
					return
				}
				claim := map[string]int{"writer": w, "attempt": attempt}
				_, err := s.Append(ctx, stream, expected, event.New{Data: data{"Claimed", claim}})
				if err == nil {
					mu.Lock()
					if _, dup := wins[expected+1]; dup {
						others = append(others, errors.New("version won twice"))
					}
					wins[expected+1] = win{w, attempt}
					mu.Unlock()
					expected++
					continue
				}
				var ce *event.ConflictError
				if !errors.Is(err, event.ErrConcurrency) || !errors.As(err, &ce) {
					mu.Lock()
					others = append(others, err)
					mu.Unlock()
					return
				}
				mu.Lock()
				conflicts++
				mu.Unlock()
				if ce.Actual >= -1 {
					if ce.Actual <= expected {
						mu.Lock()
						others = append(others, errors.New("conflict reports a version not newer than the one this writer expected"))
						mu.Unlock()
						return
					}
					expected = ce.Actual
					continue
				}
				// Lost the race on the unique index: learn the version by loading.
				evs, err := s.Load(ctx, stream)
				if err != nil {
					mu.Lock()
					others = append(others, err)
					mu.Unlock()
					return
				}
				expected = int64(len(evs)) - 1
			}
		}(w)
	}
	close(start)
	wg.Wait()

	for _, err := range others {
		t.Errorf("writer error: %v", err)
	}
	if len(wins) != versions {
		t.Fatalf("%d versions won, want %d", len(wins), versions)
	}
	// All writers' first try was NewStream: only one could succeed.
	if conflicts < writers-1 {
		t.Errorf("only %d conflicts among %d writers", conflicts, writers)
	}
	got, err := s.Load(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != versions {
		t.Fatalf("stream has %d events, want %d", len(got), versions)
	}
	for i, e := range got {
		if e.Version != int64(i) {
			t.Fatalf("event %d has version %d", i, e.Version)
		}
		var d struct{ Writer, Attempt int }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if w := wins[int64(i)]; d.Writer != w.writer || d.Attempt != w.attempt {
			t.Errorf("version %d holds writer %d attempt %d, but writer %d attempt %d won it", i, d.Writer, d.Attempt, w.writer, w.attempt)
		}
	}
	assertStrictOrder(t, got)
	t.Logf("%d writers, %d versions, %d conflicts", writers, versions, conflicts)
}

// TestConcurrentAnyVersionWriters has writers append with AnyVersion to one
// stream at once: every event lands, versions stay contiguous. Append retries
// AnyVersion conflicts a bounded number of times, so a conflict that still
// escapes is retried here (and counted).
func TestConcurrentAnyVersionWriters(t *testing.T) {
	const (
		writers = 16
		each    = 20
	)
	testDB.Reset(t)
	s := eventstore.New(widePool(t, 12))
	ctx := testCtx(t, 60*time.Second)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		escaped int
		errs    []error
	)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				err := eventstore.Retry(ctx, 100, func() error {
					_, err := s.Append(ctx, "any", event.AnyVersion, event.New{Data: data{"Tick", map[string]int{"w": w, "i": i}}})
					if errors.Is(err, event.ErrConcurrency) {
						mu.Lock()
						escaped++
						mu.Unlock()
					}
					return err
				})
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		t.Errorf("writer: %v", err)
	}
	got, err := s.Load(ctx, "any")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each {
		t.Fatalf("stream has %d events, want %d", len(got), writers*each)
	}
	seen := map[[2]int]bool{}
	next := make([]int, writers)
	for i, e := range got {
		if e.Version != int64(i) {
			t.Fatalf("event %d has version %d", i, e.Version)
		}
		var d struct{ W, I int }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if seen[[2]int{d.W, d.I}] {
			t.Fatalf("writer %d event %d stored twice", d.W, d.I)
		}
		seen[[2]int{d.W, d.I}] = true
		if d.I != next[d.W] {
			t.Errorf("writer %d: event %d stored where %d was due", d.W, d.I, next[d.W])
		}
		next[d.W] = d.I + 1
	}
	if escaped > 0 {
		t.Logf("AnyVersion conflicts that escaped Append's own retries: %d", escaped)
	}
}
