package eventstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/eventstore/event"
)

// DefaultAttempts bounds the tries of a transaction that lost a version race
// (Store.Run). A hot credit ledger (many steps of one org charging at once)
// is the contended case; each retry waits a little longer, with jitter.
const DefaultAttempts = 32

// TxOptions tune Store.Run.
type TxOptions struct {
	// Attempts bounds the tries when a version conflict rolls the
	// transaction back (default DefaultAttempts; 1 tries once).
	Attempts int
	// Async commits without waiting for the WAL flush (synchronous_commit
	// off): for writes whose loss in a database crash only repeats work.
	Async bool
	// Metadata is given to every event appended, under what the context
	// carries (its OrgID names the organization the events are about).
	Metadata event.Metadata
}

// BeginAsync begins a transaction that commits without waiting for its
// WAL flush, in one round trip (pgx.TxOptions.BeginQuery): for writes
// whose loss in a database crash only repeats work.
const BeginAsync = "BEGIN; SET LOCAL synchronous_commit = off"

// Tx is one command's transaction: it loads aggregates through their
// repositories and appends what they decided. Once it commits, every
// aggregate saved in it folds the events it appended, without reading them
// back.
type Tx struct {
	ctx     context.Context
	store   *Store
	tx      pgx.Tx
	meta    event.Metadata
	last    event.Position
	types   []string
	streams []string
	folds   []func(at time.Time) error
	fences  []string
}

// Fence leaves read fences (migrations 0012) for callers: when the
// transaction appended events, it upserts, before it commits, each
// caller's fence of each type appended at the transaction's last
// position, and the context's receipt notes them (event.Receipt.Fenced),
// so a waiter can leave the wait for the callers' next requests. A caller
// is an event actor ("key:<id>"); "" is skipped.
func (t *Tx) Fence(callers ...string) {
	for _, c := range callers {
		if c != "" && !slices.Contains(t.fences, c) {
			t.fences = append(t.fences, c)
		}
	}
}

// writeFences is Fence's upsert, in the transaction, in a fixed order
// (two transactions fencing the same callers never deadlock).
func (t *Tx) writeFences(ctx context.Context) error {
	if len(t.fences) == 0 || t.last.IsZero() {
		return nil
	}
	callers := slices.Sorted(slices.Values(t.fences))
	types := slices.Compact(slices.Sorted(slices.Values(t.types)))
	_, err := t.tx.Exec(ctx, `INSERT INTO read_fences (caller, event_type, transaction_id, position)
		SELECT c, e, $3, $4 FROM unnest($1::text[]) AS c, unnest($2::text[]) AS e ORDER BY c, e
		ON CONFLICT (caller, event_type) DO UPDATE SET transaction_id = excluded.transaction_id,
			position = excluded.position, updated_at = now()
		WHERE (read_fences.transaction_id, read_fences.position) < (excluded.transaction_id, excluded.position)`,
		callers, types, int64(t.last.TransactionID), t.last.Global)
	if err != nil {
		return fmt.Errorf("eventstore: read fences: %w", err)
	}
	return nil
}

// Context is the context the transaction runs under.
func (t *Tx) Context() context.Context { return t.ctx }

// DB is the underlying transaction, for statements beyond events (locks).
func (t *Tx) DB() pgx.Tx { return t.tx }

// Store is the store the transaction appends to.
func (t *Tx) Store() *Store { return t.store }

// Append appends data to stream at expected (event.NewStream, event.AnyVersion
// or the version of its last event) and returns the position of the last
// event appended.
func (t *Tx) Append(stream string, expected int64, data ...event.Data) (event.Position, error) {
	events := make([]event.New, len(data))
	for i, d := range data {
		events[i] = event.New{Data: d, Metadata: t.meta}
	}
	pos, err := t.store.AppendTx(t.ctx, t.tx, stream, expected, events...)
	if err == nil {
		if t.last.Less(pos) {
			t.last = pos
		}
		t.types = append(t.types, typesOf(events)...)
		t.streams = append(t.streams, stream)
	}
	return pos, err
}

// afterCommit runs fold once the transaction has committed.
func (t *Tx) afterCommit(fold func(at time.Time) error) { t.folds = append(t.folds, fold) }

// Run runs fn in a transaction and commits it; when a version conflict
// rolls it back, fn runs again from the start (reloading what it loads), at
// most opts.Attempts times. It returns the position of the last event
// appended (zero when none was). Subscribers are told after the commit,
// and the context's receipt (event.WithReceipt) records what was written.
func (s *Store) Run(ctx context.Context, opts TxOptions, fn func(*Tx) error) (event.Position, error) {
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	meta := opts.Metadata.Or(event.MetadataFrom(ctx))
	var t *Tx
	err := Retry(ctx, opts.Attempts, func() error {
		t = &Tx{ctx: ctx, store: s, meta: meta}
		var txOpts pgx.TxOptions
		if opts.Async {
			txOpts.BeginQuery = BeginAsync
		}
		return pgx.BeginTxFunc(ctx, s.pool, txOpts, func(tx pgx.Tx) error {
			t.tx = tx
			if err := fn(t); err != nil {
				return err
			}
			return t.writeFences(ctx)
		})
	})
	if err != nil {
		return event.Position{}, err
	}
	if !t.last.IsZero() {
		s.notify(commit{types: t.types, streams: t.streams})
		rc := event.ReceiptFrom(ctx)
		rc.Record(t.last, t.types...)
		rc.Fenced(t.fences...)
	}
	now := time.Now()
	for _, fold := range t.folds {
		if err := fold(now); err != nil {
			return t.last, fmt.Errorf("eventstore: fold after commit: %w", err)
		}
	}
	return t.last, nil
}
