package eventstore

import (
	"context"
	"fmt"
	"time"

	"svc/eventstore/event"
)

// Repository loads one kind of aggregate from its streams and appends the
// events it decides: the one place that folds an aggregate, checks which
// organization owns it, retries a lost version race and keeps the fold
// cache of long streams.
type Repository[A event.Aggregate] struct {
	store    *Store
	stream   func(id string) string
	blank    func(id string) A
	owner    func(A) string
	exists   func(A) bool
	valid    func(id string) bool
	notFound error
	cache    *foldCache[A]
	snaps    *snapshotter[A]
	follow   func(A, []event.Data) []event.Data
}

// Kind describes an aggregate to NewRepository.
type Kind[A event.Aggregate] struct {
	// Stream is the stream id of aggregate id.
	Stream func(id string) string
	// New is aggregate id with no events folded (required).
	New func(id string) A
	// NotFound, when set, is the error for an aggregate whose stream is
	// missing (or, with Exists, that does not exist); when nil, a missing
	// stream loads as New.
	NotFound error
	// Valid, when set, reports whether id has the shape of an id of this
	// kind; another is NotFound without a read.
	Valid func(id string) bool
	// Exists reports whether a folded aggregate exists (default: it has
	// an event). Streams of another aggregate fold to a non-existent one.
	Exists func(A) bool
	// Owner is the organization owning an aggregate; the Owned loads
	// answer NotFound for another's.
	Owner func(A) string
	// Cache, when above zero, keeps up to that many folded aggregates so a
	// load reads only the events appended since; Clone then copies one.
	Cache int
	Clone func(A) A
	// Snapshots, when set, makes a load start from the stream's latest
	// snapshot (snapshot.go): with Cache, when the cache has no entry.
	Snapshots *Snapshots[A]
	// Follow, when set, is asked on every append (Save, Update) which
	// events the aggregate decides to follow the ones appended with, in
	// the same append: a rule no command may forget (the ledger's
	// auto-reload).
	Follow func(a A, data []event.Data) []event.Data
}

// NewRepository returns the repository of aggregates of kind k in store.
func NewRepository[A event.Aggregate](store *Store, k Kind[A]) *Repository[A] {
	if store == nil || k.Stream == nil || k.New == nil {
		panic("eventstore: repository without a store, a stream or a constructor")
	}
	r := &Repository[A]{store: store, stream: k.Stream, blank: k.New, owner: k.Owner, exists: k.Exists, valid: k.Valid, notFound: k.NotFound, follow: k.Follow}
	if r.exists == nil {
		r.exists = func(a A) bool { return a.Version() != event.NewStream }
	}
	if k.Cache > 0 {
		if k.Clone == nil {
			panic("eventstore: a cached repository needs Clone")
		}
		r.cache = newFoldCache(k.Cache, k.New, k.Clone)
	}
	if k.Snapshots != nil {
		r.snaps = newSnapshotter(store.pool, *k.Snapshots)
	}
	return r
}

// Stream is the stream id of aggregate id.
func (r *Repository[A]) Stream(id string) string { return r.stream(id) }

// Get loads aggregate id as it stands now. With a fold cache it takes a
// connection before the cache entry: a load holds the entry while it
// reads, and one that waited for the pool while holding it would wait
// forever for transactions that hold every connection and wait for that
// entry (Load and LoadAfter inside a transaction).
func (r *Repository[A]) Get(ctx context.Context, id string) (A, error) {
	if r.cache == nil {
		return r.load(ctx, r.store.pool, id)
	}
	conn, err := r.store.pool.Acquire(ctx)
	if err != nil {
		var zero A
		return zero, fmt.Errorf("load %s: %w", r.stream(id), err)
	}
	defer conn.Release()
	return r.load(ctx, conn, id)
}

// GetOwned loads aggregate id of organization orgID; another's is NotFound.
func (r *Repository[A]) GetOwned(ctx context.Context, orgID, id string) (A, error) {
	a, err := r.Get(ctx, id)
	if err != nil {
		return a, err
	}
	return r.own(a, orgID)
}

// Load loads aggregate id inside tx.
func (r *Repository[A]) Load(tx *Tx, id string) (A, error) {
	return r.load(tx.ctx, tx.tx, id)
}

// LoadOwned loads aggregate id of organization orgID inside tx; another
// organization's is NotFound.
func (r *Repository[A]) LoadOwned(tx *Tx, orgID, id string) (A, error) {
	a, err := r.Load(tx, id)
	if err != nil {
		return a, err
	}
	return r.own(a, orgID)
}

// Save appends data to aggregate id's stream at a's version, inside tx;
// once tx commits, a folds them. A version conflict is an error matching
// event.ErrConcurrency (Store.Run tries again); Conflict tells whether it
// was this aggregate's.
func (r *Repository[A]) Save(tx *Tx, id string, a A, data ...event.Data) (event.Position, error) {
	if len(data) == 0 {
		return event.Position{}, nil
	}
	data = r.followed(a, data)
	stream, from := r.stream(id), a.Version()
	pos, err := tx.Append(stream, from, data...)
	if err != nil {
		return pos, err
	}
	tx.afterCommit(func(at time.Time) error {
		for i, d := range data {
			if err := a.Apply(event.Recorded(stream, from+1+int64(i), at, d)); err != nil {
				return err
			}
		}
		return nil
	})
	return pos, nil
}

// followed is data and what Kind.Follow decides follows it.
func (r *Repository[A]) followed(a A, data []event.Data) []event.Data {
	if r.follow == nil {
		return data
	}
	if more := r.follow(a, data); len(more) > 0 {
		return append(data[:len(data):len(data)], more...)
	}
	return data
}

// SaveWith is Save with the events' metadata meta (its empty fields taken
// from the transaction's): for a transaction that appends on behalf of
// several callers, each with its own (the worker's grouped step charges).
func (r *Repository[A]) SaveWith(tx *Tx, id string, a A, meta event.Metadata, data ...event.Data) (event.Position, error) {
	saved := tx.meta
	tx.meta = meta.Or(saved)
	defer func() { tx.meta = saved }()
	return r.Save(tx, id, a, data...)
}

// Conflict reports whether err is a version conflict on aggregate id's
// stream: another writer moved it first.
func (r *Repository[A]) Conflict(err error, id string) bool {
	return event.ConflictOn(err, r.stream(id))
}

// Update loads aggregate id of organization orgID (any organization's when
// orgID is ""), lets decide choose the events to append, and appends them
// to its stream alone, at the version it loaded: a lost version race
// reloads and decides again, at most DefaultAttempts times. Concurrent
// updates of different aggregates share commits (Store.Append). It returns
// the aggregate with the events folded and the position of the last one.
func (r *Repository[A]) Update(ctx context.Context, orgID, id string, decide func(A) ([]event.Data, error)) (A, event.Position, error) {
	var (
		out A
		pos event.Position
	)
	meta := event.Metadata{OrgID: orgID}
	err := Retry(ctx, DefaultAttempts, func() error {
		a, err := r.Get(ctx, id)
		if err == nil && orgID != "" {
			a, err = r.own(a, orgID)
		}
		if err != nil {
			return err
		}
		data, err := decide(a)
		if err != nil || len(data) == 0 {
			out = a
			return err
		}
		data = r.followed(a, data)
		events := make([]event.New, len(data))
		for i, d := range data {
			events[i] = event.New{Data: d, Metadata: meta}
		}
		stream, from := r.stream(id), a.Version()
		if pos, err = r.store.Append(ctx, stream, from, events...); err != nil {
			return err
		}
		now := time.Now()
		for i, d := range data {
			if err := a.Apply(event.Recorded(stream, from+1+int64(i), now, d)); err != nil {
				return fmt.Errorf("eventstore: fold after append: %w", err)
			}
		}
		out = a
		return nil
	})
	return out, pos, err
}

// LoadAfter is Load of aggregate id inside tx right after stmt (args), a
// statement such as a lock that must come first: with a fold cache that
// has folded the aggregate before, both go to the database in one round
// trip; otherwise stmt runs, then Load.
func (r *Repository[A]) LoadAfter(tx *Tx, id, stmt string, args ...any) (A, error) {
	var zero A
	if r.cache != nil && (r.valid == nil || r.valid(id)) {
		stream := r.stream(id)
		a, ok, err := r.cache.loadAfter(tx.ctx, tx.tx, id, stream, r.snaps, stmt, args)
		if err != nil {
			return zero, fmt.Errorf("load %s: %w", stream, err)
		}
		if ok {
			if r.notFound != nil && !r.exists(a) {
				return zero, r.notFound
			}
			return a, nil
		}
	}
	if _, err := tx.tx.Exec(tx.ctx, stmt, args...); err != nil {
		return zero, err
	}
	return r.Load(tx, id)
}

func (r *Repository[A]) load(ctx context.Context, db DB, id string) (A, error) {
	var (
		a   A
		err error
	)
	if r.valid != nil && !r.valid(id) && r.notFound != nil {
		return a, r.notFound
	}
	stream := r.stream(id)
	switch {
	case r.cache != nil && r.snaps != nil:
		a, err = r.cache.loadSnapshotted(ctx, db, id, stream, r.snaps)
	case r.cache != nil:
		a, err = r.cache.load(ctx, db, id, stream)
	case r.snaps != nil:
		a, err = r.snaps.load(ctx, db, id, stream, r.blank)
	default:
		a = r.blank(id)
		var events []event.Event
		if events, err = ReadStream(ctx, db, stream, 0); err == nil {
			for _, e := range events {
				if err = a.Apply(e); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		var zero A
		return zero, fmt.Errorf("load %s: %w", stream, err)
	}
	if r.notFound != nil && !r.exists(a) {
		var zero A
		return zero, r.notFound
	}
	return a, nil
}

func (r *Repository[A]) own(a A, orgID string) (A, error) {
	if r.owner != nil && r.owner(a) != orgID {
		var zero A
		if r.notFound != nil {
			return zero, r.notFound
		}
		return zero, fmt.Errorf("eventstore: aggregate of another organization")
	}
	return a, nil
}
