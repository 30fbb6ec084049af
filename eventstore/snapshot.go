package eventstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/eventstore/event"
)

// DefaultSnapshotEvery is how many events a load may fold past the latest
// snapshot before it writes a new one (Snapshots.Every).
const DefaultSnapshotEvery = 1000

// Snapshots makes a repository keep snapshots of its aggregates in the
// snapshots table (migration 0008): a load starts from the latest usable
// snapshot of the stream and folds only the events after it, so its cost
// no longer grows with the stream's length. A snapshot is a cache: the
// repository uses one only when the event it was taken at is in the log and
// its codec is Codec, and folds the stream from its start otherwise, so
// deleting snapshots never changes an outcome.
type Snapshots[A event.Aggregate] struct {
	// Codec is the version of the encoding: a stored snapshot of another
	// codec is ignored (and replaced by the next one written).
	Codec int
	// Encode encodes the state of an aggregate (its version is stored
	// beside it).
	Encode func(A) ([]byte, error)
	// Decode is aggregate id at stream version version from what Encode
	// wrote; an error makes the load fold the stream from its start.
	Decode func(id string, version int64, data []byte) (A, error)
	// Every: a load that leaves the aggregate this many events or more
	// past the latest snapshot writes a new one (default
	// DefaultSnapshotEvery).
	Every int
}

// maxMarks bounds the streams a snapshotter remembers.
const maxMarks = 100_000

// snapshotter reads and writes the snapshots of one repository. Writes run
// in the background, on a connection of their own, after the load that
// found the stream that far past its snapshot: a command never waits for
// one, and never holds a lock on the snapshots table.
type snapshotter[A event.Aggregate] struct {
	Snapshots[A]
	pool *pgxpool.Pool

	mu sync.Mutex
	// marks are the versions of the latest snapshot of each stream this
	// process read or wrote (-1: none usable), so a load from the fold
	// cache knows how far past it the stream is without reading it.
	marks   map[string]int64
	writing map[string]bool
	wg      sync.WaitGroup
}

func newSnapshotter[A event.Aggregate](pool *pgxpool.Pool, s Snapshots[A]) *snapshotter[A] {
	if s.Encode == nil || s.Decode == nil {
		panic("eventstore: snapshots without an encoder or a decoder")
	}
	if s.Every <= 0 {
		s.Every = DefaultSnapshotEvery
	}
	return &snapshotter[A]{Snapshots: s, pool: pool, marks: map[string]int64{}, writing: map[string]bool{}}
}

// readSnapshotSQL finds the stream's snapshot if the event it was taken at
// is in the log (through db: inside a transaction, as that transaction
// sees the log) and it is of the codec asked for.
const readSnapshotSQL = `SELECT s.version, s.state FROM snapshots s
JOIN events e ON e.stream_id = s.stream_id AND e.version = s.version AND e.event_id = s.event_id
WHERE s.stream_id = $1 AND s.codec = $2`

// writeSnapshotSQL stores a snapshot if the event it was taken at is
// committed (another transaction's uncommitted or rolled-back event is not
// there for this connection), replacing one of the codec at the same
// version or older (rewriting one this process could not decode), one of
// another codec, or one whose event is not in the log.
const writeSnapshotSQL = `INSERT INTO snapshots AS s (stream_id, version, event_id, codec, state)
SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM events WHERE stream_id = $1 AND version = $2 AND event_id = $3)
ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, event_id = excluded.event_id, codec = excluded.codec,
	state = excluded.state, taken_at = now()
WHERE s.codec <> excluded.codec OR s.version <= excluded.version
	OR NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = s.stream_id AND e.version = s.version AND e.event_id = s.event_id)`

// read returns the aggregate as of the stream's latest usable snapshot;
// ok is false when there is none (none stored, its event not in the log,
// another codec, or data Decode refuses).
func (s *snapshotter[A]) read(ctx context.Context, db DB, id, stream string) (a A, ok bool, err error) {
	var (
		version int64
		data    []byte
	)
	err = db.QueryRow(ctx, readSnapshotSQL, stream, s.Codec).Scan(&version, &data)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		s.mark(stream, event.NewStream)
		return a, false, nil
	case err != nil:
		return a, false, fmt.Errorf("eventstore: snapshot of %s: %w", stream, err)
	}
	if a, err = s.Decode(id, version, data); err != nil || a.Version() != version {
		var zero A
		s.mark(stream, event.NewStream)
		return zero, false, nil
	}
	s.mark(stream, version)
	return a, true, nil
}

func (s *snapshotter[A]) mark(stream string, version int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.marks) >= maxMarks { // forgetting only costs a snapshot read or write
		clear(s.marks)
	}
	s.marks[stream] = version
}

// marked is the version of the stream's latest snapshot this process
// knows of, and whether it knows.
func (s *snapshotter[A]) marked(stream string) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.marks[stream]
	return v, ok
}

// after is called once a load has folded a up to its version; last is the
// id of the event at that version (uuid.Nil when the load folded none).
// When a is Every events or more past the stream's latest snapshot, its
// state is encoded now and written in the background.
func (s *snapshotter[A]) after(stream string, a A, last uuid.UUID) {
	v := a.Version()
	base, known := s.marked(stream)
	if !known {
		base = event.NewStream
	}
	if last == uuid.Nil || v-base < int64(s.Every) {
		return
	}
	data, err := s.Encode(a)
	if err != nil {
		return // a snapshot is a cache: the next load folds a little more
	}
	s.mu.Lock()
	if s.writing[stream] {
		s.mu.Unlock()
		return
	}
	s.writing[stream] = true
	s.marks[stream] = v
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tag, err := s.pool.Exec(ctx, writeSnapshotSQL, stream, v, last, s.Codec, data)
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.writing, stream)
		if (err != nil || tag.RowsAffected() == 0) && s.marks[stream] == v {
			s.marks[stream] = base // not written (or a newer one is there): a later load may try again
		}
	}()
}

// load is a load of a repository without a fold cache: the latest usable
// snapshot, then the events after it.
func (s *snapshotter[A]) load(ctx context.Context, db DB, id, stream string, blank func(string) A) (A, error) {
	a, ok, err := s.read(ctx, db, id, stream)
	if err != nil {
		return a, err
	}
	if !ok {
		a = blank(id)
	}
	last, err := foldFrom(ctx, db, stream, a)
	if err != nil {
		var zero A
		return zero, err
	}
	s.after(stream, a, last)
	return a, nil
}

// foldFrom folds into a the events of stream after its version and
// returns the id of the last one (uuid.Nil for none).
func foldFrom[A event.Aggregate](ctx context.Context, db DB, stream string, a A) (uuid.UUID, error) {
	events, err := ReadStream(ctx, db, stream, a.Version()+1)
	if err != nil {
		return uuid.Nil, err
	}
	for _, e := range events {
		if err := a.Apply(e); err != nil {
			return uuid.Nil, err
		}
	}
	if len(events) == 0 {
		return uuid.Nil, nil
	}
	return events[len(events)-1].ID, nil
}

// loadSnapshotted is foldCache.load for a repository with snapshots: an
// entry the cache has not folded yet (a new one, one evicted, a fresh
// process) starts from the stream's latest usable snapshot instead of its
// first event.
func (c *foldCache[A]) loadSnapshotted(ctx context.Context, db DB, id, stream string, s *snapshotter[A]) (A, error) {
	e := c.entry(id, stream)
	e.mu.Lock()
	defer e.mu.Unlock()
	var zero A
	if e.v.Version() == event.NewStream {
		a, ok, err := s.read(ctx, db, id, stream)
		if err != nil {
			return zero, err
		}
		if ok {
			e.v = a
		}
	}
	last, err := foldFrom(ctx, db, stream, e.v)
	if err != nil {
		e.v = c.blank(id) // start over next time
		return zero, err
	}
	s.after(stream, e.v, last)
	return c.clone(e.v), nil
}

// WaitSnapshots waits until the snapshot writes under way have ended (for
// tests, benchmarks and a clean shutdown); without snapshots it returns at
// once.
func (r *Repository[A]) WaitSnapshots() {
	if r.snaps != nil {
		r.snaps.wg.Wait()
	}
}
