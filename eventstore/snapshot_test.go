package eventstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/eventstore"
	"svc/eventstore/event"
)

// tally is a test aggregate: the sum of the numbers of its stream's events,
// with how many events it folded since it was made (or decoded).
type tally struct {
	id       string
	sum      int64
	version  int64
	folded   int
	restored bool // decoded from a snapshot
}

type counted struct {
	N int64 `json:"n"`
}

func (counted) EventType() string { return "Counted" }

func (a *tally) Apply(e event.Event) error {
	var d counted
	if p, ok := e.Payload.(counted); ok {
		d = p
	} else if err := json.Unmarshal(e.Data, &d); err != nil {
		return err
	}
	a.sum += d.N
	a.version = e.Version
	a.folded++
	return nil
}

func (a *tally) Version() int64 { return a.version }

func tallyStream(id string) string { return "tally-" + id }

func newTally(id string) *tally { return &tally{id: id, version: event.NewStream} }

// tallyCodec is the snapshot codec of tally at version codec.
func tallyCodec(codec, every int) *eventstore.Snapshots[*tally] {
	return &eventstore.Snapshots[*tally]{
		Codec: codec,
		Every: every,
		Encode: func(a *tally) ([]byte, error) {
			return json.Marshal(map[string]any{"id": a.id, "sum": a.sum})
		},
		Decode: func(id string, version int64, data []byte) (*tally, error) {
			var s struct {
				ID  string `json:"id"`
				Sum *int64 `json:"sum"`
			}
			if err := json.Unmarshal(data, &s); err != nil {
				return nil, err
			}
			if s.ID != id || s.Sum == nil {
				return nil, errors.New("not a tally of this stream")
			}
			return &tally{id: id, sum: *s.Sum, version: version, restored: true}, nil
		},
	}
}

// tallies is a repository of tallies; cache > 0 gives it a fold cache,
// snaps snapshots.
func tallies(s *eventstore.Store, cache int, snaps *eventstore.Snapshots[*tally]) *eventstore.Repository[*tally] {
	k := eventstore.Kind[*tally]{Stream: tallyStream, New: newTally, Snapshots: snaps}
	if cache > 0 {
		k.Cache = cache
		k.Clone = func(a *tally) *tally { c := *a; return &c }
	}
	return eventstore.NewRepository(s, k)
}

// count appends n events numbered from the stream's next version on and
// returns their sum.
func count(t *testing.T, s *eventstore.Store, id string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	v, err := s.Version(ctx, tallyStream(id))
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for n > 0 {
		batch := make([]event.New, min(n, 500))
		for i := range batch {
			v++
			batch[i] = event.New{Data: counted{N: v % 97}}
			sum += v % 97
		}
		if _, err := s.Append(ctx, tallyStream(id), v-int64(len(batch)), batch...); err != nil {
			t.Fatal(err)
		}
		n -= len(batch)
	}
	return sum
}

// snapshotRow is the stored snapshot of a tally stream (version -1: none).
func snapshotRow(t *testing.T, id string) (version int64, codec int) {
	t.Helper()
	err := testDB.Pool.QueryRow(context.Background(), `SELECT coalesce(max(version), -1), coalesce(max(codec), 0) FROM snapshots WHERE stream_id = $1`, tallyStream(id)).Scan(&version, &codec)
	if err != nil {
		t.Fatal(err)
	}
	return version, codec
}

// get loads id through r and checks it against a fold of the whole stream.
func get(t *testing.T, s *eventstore.Store, r *eventstore.Repository[*tally], id string) *tally {
	t.Helper()
	a, err := r.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	full, err := tallies(s, 0, nil).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if a.sum != full.sum || a.version != full.version {
		t.Fatalf("loaded sum %d at version %d, the whole stream folds to %d at %d", a.sum, a.version, full.sum, full.version)
	}
	return a
}

// A load that folds Every events or more writes a snapshot; the next load
// of a fresh repository (another process) folds only the events after it,
// and the result equals a fold of the whole stream. With a fold cache the
// same holds for a cold cache, and a warm one writes the next snapshot.
func TestSnapshotIsUsed(t *testing.T) {
	s := newStore(t)
	for _, cache := range []int{0, 10} {
		t.Run(fmt.Sprintf("cache=%d", cache), func(t *testing.T) {
			id := uuid.NewString()
			count(t, s, id, 2500)
			r := tallies(s, cache, tallyCodec(1, 1000))
			if a := get(t, s, r, id); a.folded != 2500 || a.restored {
				t.Fatalf("first load folded %d (restored %v), want the whole stream", a.folded, a.restored)
			}
			r.WaitSnapshots()
			if v, codec := snapshotRow(t, id); v != 2499 || codec != 1 {
				t.Fatalf("snapshot at version %d codec %d, want 2499 and 1", v, codec)
			}
			count(t, s, id, 10)
			fresh := tallies(s, cache, tallyCodec(1, 1000))
			if a := get(t, s, fresh, id); !a.restored || a.folded != 10 {
				t.Fatalf("load after the snapshot: restored %v, folded %d events, want 10", a.restored, a.folded)
			}
			// below Every past the snapshot: nothing written
			fresh.WaitSnapshots()
			if v, _ := snapshotRow(t, id); v != 2499 {
				t.Fatalf("snapshot moved to %d after 10 events", v)
			}
			// inside a transaction too
			if _, err := s.Run(context.Background(), eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
				a, err := tallies(s, cache, tallyCodec(1, 1000)).Load(tx, id)
				if err == nil && (!a.restored || a.folded != 10) {
					err = fmt.Errorf("load in a transaction: restored %v, folded %d", a.restored, a.folded)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			// Every more events: the repository that has seen them (a
			// warm cache) writes the next snapshot
			count(t, s, id, 1000)
			get(t, s, fresh, id)
			fresh.WaitSnapshots()
			if v, _ := snapshotRow(t, id); v != 3509 {
				t.Fatalf("snapshot at %d after 1,010 more events, want 3509", v)
			}
			if a := get(t, s, tallies(s, cache, tallyCodec(1, 1000)), id); !a.restored || a.folded != 0 {
				t.Fatalf("load at the snapshot: restored %v, folded %d", a.restored, a.folded)
			}
			// a snapshot is a cache: without any, the same outcome
			if _, err := testDB.Pool.Exec(context.Background(), `DELETE FROM snapshots`); err != nil {
				t.Fatal(err)
			}
			if a := get(t, s, tallies(s, cache, tallyCodec(1, 1000)), id); a.restored || a.folded != 3510 {
				t.Fatalf("load without snapshots: restored %v, folded %d", a.restored, a.folded)
			}
		})
	}
}

// A snapshot of another codec, one whose event is not in the log (a log
// restored from an older backup), one whose event id differs, or one the
// codec cannot decode is ignored: the stream is folded from its start,
// to the same result; the next snapshot written replaces it.
func TestUnusableSnapshotsAreIgnored(t *testing.T) {
	s := newStore(t)
	id := uuid.NewString()
	count(t, s, id, 1200)
	r := tallies(s, 0, tallyCodec(1, 1000))
	get(t, s, r, id)
	r.WaitSnapshots()
	if v, _ := snapshotRow(t, id); v != 1199 {
		t.Fatalf("snapshot at %d", v)
	}
	stale := []struct {
		name, sql string
	}{
		{"foreign codec", ""},
		{"version past the log", `UPDATE snapshots SET version = 5000 WHERE stream_id = $1`},
		{"another event id", `UPDATE snapshots SET event_id = gen_random_uuid() WHERE stream_id = $1`},
		{"undecodable state", `UPDATE snapshots SET state = '{"id":"someone else","sum":1}' WHERE stream_id = $1`},
	}
	for _, c := range stale {
		t.Run(c.name, func(t *testing.T) {
			codec := 1
			if c.name == "foreign codec" {
				codec = 2
			}
			if c.sql != "" {
				if _, err := testDB.Pool.Exec(context.Background(), c.sql, tallyStream(id)); err != nil {
					t.Fatal(err)
				}
			}
			fresh := tallies(s, 10, tallyCodec(codec, 1000))
			if a := get(t, s, fresh, id); a.restored || a.folded != 1200 {
				t.Fatalf("restored %v, folded %d: the unusable snapshot was used", a.restored, a.folded)
			}
			fresh.WaitSnapshots()
			if v, got := snapshotRow(t, id); v != 1199 || got != codec {
				t.Fatalf("snapshot after the fold: version %d codec %d, want 1199 and %d", v, got, codec)
			}
			// and the replacement is used
			if a := get(t, s, tallies(s, 0, tallyCodec(codec, 1000)), id); !a.restored || a.folded != 0 {
				t.Fatalf("replacement not used: restored %v, folded %d", a.restored, a.folded)
			}
			if codec == 2 { // back to codec 1 for the next cases
				fold := tallies(s, 0, tallyCodec(1, 1000))
				get(t, s, fold, id)
				fold.WaitSnapshots()
			}
		})
	}
}

// A load inside a transaction that appended to the stream folds those
// events, but no snapshot of them is written while they are not
// committed: rolled back, they never reach a snapshot.
func TestSnapshotOfUncommittedEventsIsNotWritten(t *testing.T) {
	s := newStore(t)
	id := uuid.NewString()
	count(t, s, id, 5)
	r := tallies(s, 10, tallyCodec(1, 3))
	rollback := errors.New("roll back")
	_, err := s.Run(context.Background(), eventstore.TxOptions{Attempts: 1}, func(tx *eventstore.Tx) error {
		if _, err := tx.Append(tallyStream(id), 4, counted{N: 1000}, counted{N: 1000}, counted{N: 1000}, counted{N: 1000}); err != nil {
			return err
		}
		a, err := r.Load(tx, id)
		if err != nil {
			return err
		}
		if a.version != 8 || a.folded != 9 {
			return fmt.Errorf("load in the transaction: version %d, folded %d", a.version, a.folded)
		}
		r.WaitSnapshots() // the write ran while the transaction was open
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if v, _ := snapshotRow(t, id); v > 4 {
		t.Fatalf("a snapshot at version %d, of events that were rolled back", v)
	}
	// another writer commits different events at those versions: a fresh
	// load sees them, never the rolled-back ones
	count(t, s, id, 4)
	if a := get(t, s, tallies(s, 10, tallyCodec(1, 3)), id); a.sum >= 1000 {
		t.Fatalf("sum %d includes rolled-back events", a.sum)
	}
}

// A cached Get while every connection is held by a transaction that then
// loads the same aggregate: the Get waits for a connection without holding
// the cache entry, so the transaction loads, commits, and both finish
// (before, the Get held the entry while it waited for the pool, and the
// transaction waited for the entry: a deadlock).
func TestCachedGetDoesNotHoldTheEntryWhileWaitingForAConnection(t *testing.T) {
	store := eventstore.New(widePool(t, 1))
	for _, snaps := range []*eventstore.Snapshots[*tally]{nil, tallyCodec(1, 1000)} {
		repo := tallies(store, 10, snaps)
		id := uuid.NewString()
		want := count(t, store, id, 3)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		inTx := make(chan struct{})
		release := make(chan struct{})
		done := make(chan error, 2)
		go func() { // holds the only connection, then loads
			_, err := store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
				close(inTx)
				<-release
				a, err := repo.Load(tx, id)
				if err == nil && a.sum != want {
					err = fmt.Errorf("sum %d in the transaction, want %d", a.sum, want)
				}
				return err
			})
			done <- err
		}()
		<-inTx
		go func() { // waits for a connection
			a, err := repo.Get(ctx, id)
			if err == nil && a.sum != want {
				err = fmt.Errorf("sum %d from Get, want %d", a.sum, want)
			}
			done <- err
		}()
		time.Sleep(200 * time.Millisecond) // the Get is waiting for the pool
		close(release)
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		cancel()
	}
}
