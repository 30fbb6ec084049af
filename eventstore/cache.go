package eventstore

import (
	"context"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

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

// loadAfter is load inside tx with stmt (a lock) sent in the same round
// trip, right before the read of the events the entry has not folded: the
// read sees what was committed once stmt returned. ok is false when the
// entry has folded nothing yet (a snapshot or a full fold is due) or went
// back meanwhile: the caller then runs stmt and loads as usual. The entry
// is not held while stmt waits (a lock another loader of it may hold).
func (c *foldCache[A]) loadAfter(ctx context.Context, tx pgx.Tx, id, stream string, s *snapshotter[A], stmt string, args []any) (a A, ok bool, err error) {
	var zero A
	e := c.entry(id, stream)
	e.mu.Lock()
	from := e.v.Version()
	e.mu.Unlock()
	if from == event.NewStream {
		return zero, false, nil
	}
	b := &pgx.Batch{}
	b.Queue(stmt, args...)
	b.Queue("SELECT "+eventColumns+" FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version", stream, from)
	br := tx.SendBatch(ctx, b)
	var events []event.Event
	if _, err = br.Exec(); err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			events, err = collect(rows)
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return zero, true, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.v.Version() < from {
		return zero, false, nil
	}
	last := uuid.Nil
	for _, ev := range events {
		if ev.Version <= e.v.Version() { // folded meanwhile by another load
			continue
		}
		if ev.Version != e.v.Version()+1 {
			return zero, false, nil
		}
		if err := e.v.Apply(ev); err != nil {
			e.v = c.blank(id) // start over next time
			return zero, true, err
		}
		last = ev.ID
	}
	if s != nil {
		s.after(stream, e.v, last)
	}
	return c.clone(e.v), true, nil
}
