package commands

import (
	"context"
	"sync"

	"svc/eventstore"
)

// folder is an aggregate a cache can keep: it folds events, knows its
// version and copies itself.
type folder[T any] interface {
	Apply(eventstore.Event) error
	Version() int64
	Clone() T
}

// foldCache keeps folded aggregates of long streams (an org's ledger, its
// active workflows) so a command reads only the events appended since the
// last time. Each load returns a private copy; the version check of the
// append that follows still decides, so a stale entry can only cost a retry.
type foldCache[T folder[T]] struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry[T]
	max     int
	fresh   func(stream string) T
}

type cacheEntry[T any] struct {
	mu sync.Mutex
	v  T
}

func newFoldCache[T folder[T]](max int, fresh func(stream string) T) *foldCache[T] {
	return &foldCache[T]{entries: map[string]*cacheEntry[T]{}, max: max, fresh: fresh}
}

// load catches the stream's entry up through db and returns a copy.
func (c *foldCache[T]) load(ctx context.Context, store *eventstore.Store, db eventstore.DB, stream string) (T, error) {
	c.mu.Lock()
	e, ok := c.entries[stream]
	if !ok {
		if len(c.entries) >= c.max {
			for k := range c.entries { // evict an arbitrary entry
				delete(c.entries, k)
				break
			}
		}
		e = &cacheEntry[T]{v: c.fresh(stream)}
		c.entries[stream] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	events, err := store.LoadFrom(ctx, db, stream, e.v.Version()+1)
	if err != nil {
		var zero T
		return zero, err
	}
	for _, ev := range events {
		if err := e.v.Apply(ev); err != nil {
			e.v = c.fresh(stream) // start over next time
			var zero T
			return zero, err
		}
	}
	return e.v.Clone(), nil
}
