package eventstore

import (
	"context"
	"sync"

	"svc/eventstore/event"
)

// foldCache keeps folded aggregates of long streams (an org's ledger, its
// active workflows) so a load reads only the events appended since the last
// time. Each load returns a private copy; the version check of the append
// that follows still decides, so a stale entry can only cost a retry.
type foldCache[A event.Aggregate] struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry[A]
	max     int
	blank   func(id string) A
	clone   func(A) A
}

type cacheEntry[A any] struct {
	mu sync.Mutex
	v  A
}

func newFoldCache[A event.Aggregate](max int, blank func(id string) A, clone func(A) A) *foldCache[A] {
	return &foldCache[A]{entries: map[string]*cacheEntry[A]{}, max: max, blank: blank, clone: clone}
}

// entry returns the entry of aggregate id (stream), made blank when the
// cache has none (evicting an arbitrary entry when full).
func (c *foldCache[A]) entry(id, stream string) *cacheEntry[A] {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[stream]
	if !ok {
		if len(c.entries) >= c.max {
			for k := range c.entries {
				delete(c.entries, k)
				break
			}
		}
		e = &cacheEntry[A]{v: c.blank(id)}
		c.entries[stream] = e
	}
	return e
}

// load catches the entry of aggregate id (stream) up through db and returns
// a copy.
func (c *foldCache[A]) load(ctx context.Context, db DB, id, stream string) (A, error) {
	e := c.entry(id, stream)
	e.mu.Lock()
	defer e.mu.Unlock()
	events, err := ReadStream(ctx, db, stream, e.v.Version()+1)
	if err != nil {
		var zero A
		return zero, err
	}
	for _, ev := range events {
		if err := e.v.Apply(ev); err != nil {
			e.v = c.blank(id) // start over next time
			var zero A
			return zero, err
		}
	}
	return c.clone(e.v), nil
}
