package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"svc/eventstore/event"
	"sync"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is what the store needs from a pool or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store appends and reads events in PostgreSQL.
type Store struct {
	pool *pgxpool.Pool

	mu        sync.Mutex
	listeners map[chan struct{}]map[string]bool // nil filter: every append
	streams   map[string]map[chan struct{}]bool // SubscribeStream's listeners

	groupOnce sync.Once
	calls     chan *appendCall

	push *push // announcing commits to other processes (notify.go)
}

// New returns a store over pool. The schema comes from package migrations.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, listeners: map[chan struct{}]map[string]bool{},
		streams: map[string]map[chan struct{}]bool{}, push: newPush()}
}

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// appendOneSQL checks the stream's version and inserts one event in one
// statement: one round trip. No row back means the expected version did not
// match; a unique violation means another writer won the race.
const appendOneSQL = `
INSERT INTO events (event_id, stream_id, version, type, data, metadata, org_id)
SELECT $3::uuid, $1, cur.v + 1, $4, $5::jsonb, $6::jsonb, $7::uuid
FROM (SELECT coalesce(max(version), -1) AS v FROM events WHERE stream_id = $1) AS cur
WHERE $2::bigint = -2 OR cur.v = $2::bigint
RETURNING position, transaction_id::text`

// appendManySQL is appendOneSQL for several events of one stream.
const appendManySQL = `
INSERT INTO events (event_id, stream_id, version, type, data, metadata, org_id)
SELECT e.id::uuid, $1, cur.v + e.ord, e.type, e.data::jsonb, e.metadata::jsonb, e.org::uuid
FROM (SELECT coalesce(max(version), -1) AS v FROM events WHERE stream_id = $1) AS cur,
	unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS e(id, type, data, metadata, org, ord)
WHERE $2::bigint = -2 OR cur.v = $2::bigint
ORDER BY e.ord
RETURNING position, transaction_id::text`

// Append appends events to stream if its version is expected (event.NewStream,
// event.AnyVersion or the version of its last event), in a transaction of its own,
// and returns the position of the last event appended. Concurrent calls on
// different streams may share a transaction (see group.go); each keeps its
// own outcome.
func (s *Store) Append(ctx context.Context, stream string, expected int64, events ...event.New) (event.Position, error) {
	if err := validate(stream, expected, events); err != nil {
		return event.Position{}, err
	}
	rows, err := encode(ctx, events)
	if err != nil {
		return event.Position{}, err
	}
	var pos event.Position
	once := func() (err error) {
		pos, err = s.groupAppend(ctx, stream, expected, rows)
		return err
	}
	err = once()
	if expected == event.AnyVersion && errors.Is(err, event.ErrConcurrency) {
		// two writers read the same last version: try again, as promised
		err = Retry(ctx, 32, once)
	}
	if err == nil {
		types := typesOf(events)
		s.notify(commit{types: types, streams: []string{stream}})
		event.ReceiptFrom(ctx).Record(pos, types...)
	}
	return pos, err
}

// typesOf lists the types of events.
func typesOf(events []event.New) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type()
	}
	return out
}

// AppendTx appends inside tx; the events are delivered only if tx commits.
// Call Notify (or use Transact, which does) after the commit.
func (s *Store) AppendTx(ctx context.Context, tx pgx.Tx, stream string, expected int64, events ...event.New) (event.Position, error) {
	if err := validate(stream, expected, events); err != nil {
		return event.Position{}, err
	}
	rows, err := encode(ctx, events)
	if err != nil {
		return event.Position{}, err
	}
	return s.appendRows(ctx, tx, stream, expected, rows)
}

func validate(stream string, expected int64, events []event.New) error {
	switch {
	case stream == "":
		return errors.New("eventstore: empty stream id")
	case len(events) == 0:
		return errors.New("eventstore: nothing to append")
	case expected < event.AnyVersion:
		return fmt.Errorf("eventstore: invalid expected version %d", expected)
	}
	return nil
}

// appendRows appends encoded events to one stream through db.
func (s *Store) appendRows(ctx context.Context, db DB, stream string, expected int64, events []eventRow) (event.Position, error) {
	var (
		rows pgx.Rows
		err  error
	)
	if len(events) == 1 {
		e := events[0]
		rows, err = db.Query(ctx, appendOneSQL, stream, expected, e.id, e.typ, e.data, e.meta, e.org)
	} else {
		n := len(events)
		ids, types, datas, metas, orgs := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]*string, n)
		for i, e := range events {
			ids[i], types[i], datas[i], metas[i], orgs[i] = e.id, e.typ, e.data, e.meta, e.org
		}
		rows, err = db.Query(ctx, appendManySQL, stream, expected, ids, types, datas, metas, orgs)
	}
	if err != nil {
		return event.Position{}, fmt.Errorf("eventstore: append to %s: %w", stream, err)
	}
	var (
		last  event.Position
		count int
	)
	for rows.Next() {
		var (
			p      event.Position
			txText string
		)
		if err := rows.Scan(&p.Global, &txText); err != nil {
			rows.Close()
			return event.Position{}, fmt.Errorf("eventstore: append to %s: %w", stream, err)
		}
		if p.TransactionID, err = strconv.ParseUint(txText, 10, 64); err != nil {
			rows.Close()
			return event.Position{}, fmt.Errorf("eventstore: transaction id %q: %w", txText, err)
		}
		if last.Less(p) {
			last = p
		}
		count++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "events_stream_version" {
			return event.Position{}, &event.ConflictError{Stream: stream, Expected: expected, Actual: -2}
		}
		return event.Position{}, fmt.Errorf("eventstore: append to %s: %w", stream, err)
	}
	if count != len(events) {
		// the expected version did not match: find the actual one for the error
		actual := int64(-2)
		_ = db.QueryRow(ctx, `SELECT coalesce(max(version), -1) FROM events WHERE stream_id = $1`, stream).Scan(&actual)
		return event.Position{}, &event.ConflictError{Stream: stream, Expected: expected, Actual: actual}
	}
	return last, nil
}

// Transact runs fn in a transaction and tells subscribers after it commits.
func (s *Store) Transact(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := pgx.BeginFunc(ctx, s.pool, fn); err != nil {
		return err
	}
	s.notify(commit{})
	return nil
}

// eventColumns are selected by every reader. The text copy of the
// transaction id gets its own name so ORDER BY transaction_id means the xid8
// column, never its text (where "10" sorts before "9").
const eventColumns = "position, transaction_id::text AS transaction_id_text, event_id, stream_id, version, type, data, metadata, recorded_at"

// Load returns the events of stream in version order (none for a missing stream).
func (s *Store) Load(ctx context.Context, stream string) ([]event.Event, error) {
	return s.LoadFrom(ctx, s.pool, stream, 0)
}

// LoadFrom returns the events of stream from version from on, read through db.
func (s *Store) LoadFrom(ctx context.Context, db DB, stream string, from int64) ([]event.Event, error) {
	return ReadStream(ctx, db, stream, from)
}

// ReadStream returns the events of stream from version from on, read
// through db (a pool, a connection or a transaction).
func ReadStream(ctx context.Context, db DB, stream string, from int64) ([]event.Event, error) {
	return ReadRange(ctx, db, stream, from, math.MaxInt64)
}

// ReadRange returns the events of stream with versions from..to
// (inclusive), read through db.
func ReadRange(ctx context.Context, db DB, stream string, from, to int64) ([]event.Event, error) {
	rows, err := db.Query(ctx, "SELECT "+eventColumns+" FROM events WHERE stream_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version", stream, from, to)
	if err != nil {
		return nil, fmt.Errorf("eventstore: load %s: %w", stream, err)
	}
	return collect(rows)
}

// Filter narrows ReadAll.
type Filter struct {
	OrgID string         // only events whose metadata names this org
	Types []string       // only these event types
	Until event.Position // when set, only events at or before this position
}

// ReadAll returns up to limit events after position after, in global order,
// through db. It returns only events of transactions older than every
// transaction still running, so no later call can find an event before the
// last one returned.
func (s *Store) ReadAll(ctx context.Context, db DB, after event.Position, limit int, f Filter) ([]event.Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	q := psql.Select(eventColumns).From("events").
		Where("(transaction_id, position) > (?::text::xid8, ?)", xid(after), after.Global).
		Where("transaction_id < pg_snapshot_xmin(pg_current_snapshot())").
		OrderBy("events.transaction_id", "events.position").
		Limit(uint64(limit))
	if f.OrgID != "" {
		q = q.Where(sq.Eq{"org_id": f.OrgID})
	}
	if len(f.Types) > 0 {
		q = q.Where(sq.Eq{"type": f.Types})
	}
	if !f.Until.IsZero() {
		q = q.Where("(transaction_id, position) <= (?::text::xid8, ?)", xid(f.Until), f.Until.Global)
	}
	sqlText, args, err := q.ToSql()
	if err != nil {
		return nil, fmt.Errorf("eventstore: build read: %w", err)
	}
	rows, err := db.Query(ctx, sqlText, args...)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read all: %w", err)
	}
	return collect(rows)
}

// headSQL reads the last event readers may read now (below the oldest
// transaction still running), in read order: the primary key's, backwards,
// one index entry. The text copy of the transaction id has its own name
// so that ORDER BY means the xid8 column (a text sort reads every row).
const headSQL = `SELECT e.transaction_id::text AS tx_text, e.position FROM events e
WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY e.transaction_id DESC, e.position DESC LIMIT 1`

// HeadSQL is Head's query, for a statement that reads the head beside
// something else (a projection's checkpoint, in one round trip): one row,
// tx_text (the transaction id as text) and position, or none for an empty
// log.
const HeadSQL = headSQL

// Head returns the last event ReadAll may return now, through db; false
// for none. Every event up to it belongs to a transaction that has ended,
// so no later read finds another event before it: a reader that looked
// at every event up to Head (of the types it wants, say) may move its
// checkpoint there.
func Head(ctx context.Context, db DB) (event.Position, bool, error) {
	var (
		txText string
		head   event.Position
	)
	err := db.QueryRow(ctx, headSQL).Scan(&txText, &head.Global)
	if errors.Is(err, pgx.ErrNoRows) {
		return event.Position{}, false, nil
	}
	if err != nil {
		return event.Position{}, false, fmt.Errorf("eventstore: read the head: %w", err)
	}
	if head.TransactionID, err = strconv.ParseUint(txText, 10, 64); err != nil {
		return event.Position{}, false, fmt.Errorf("eventstore: head transaction id %q: %w", txText, err)
	}
	return head, true, nil
}

// PositionOf returns the global-order position of the event with the given
// sequence position, for readers that start at an event an operator names.
func (s *Store) PositionOf(ctx context.Context, global int64) (event.Position, bool, error) {
	var txText string
	err := s.pool.QueryRow(ctx, `SELECT transaction_id::text FROM events WHERE position = $1`, global).Scan(&txText)
	if errors.Is(err, pgx.ErrNoRows) {
		return event.Position{}, false, nil
	}
	if err != nil {
		return event.Position{}, false, fmt.Errorf("eventstore: find position %d: %w", global, err)
	}
	tx, err := strconv.ParseUint(txText, 10, 64)
	if err != nil {
		return event.Position{}, false, fmt.Errorf("eventstore: transaction id %q: %w", txText, err)
	}
	return event.Position{TransactionID: tx, Global: global}, true, nil
}

// CountAfter counts the events after p that readers can see now.
func (s *Store) CountAfter(ctx context.Context, db DB, p event.Position) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `SELECT count(*) FROM events
		WHERE (transaction_id, position) > ($1::text::xid8, $2)
		AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())`, xid(p), p.Global).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("eventstore: count after %v: %w", p, err)
	}
	return n, nil
}

func collect(rows pgx.Rows) ([]event.Event, error) {
	defer rows.Close()
	var out []event.Event
	for rows.Next() {
		var (
			e      event.Event
			txText string
			data   []byte // not json.RawMessage: jsonb is valid already, skip pgx's re-validation
			meta   []byte
		)
		if err := rows.Scan(&e.Position.Global, &txText, &e.ID, &e.StreamID, &e.Version, &e.Type, &data, &meta, &e.RecordedAt); err != nil {
			return nil, fmt.Errorf("eventstore: scan event: %w", err)
		}
		tx, err := strconv.ParseUint(txText, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("eventstore: transaction id %q: %w", txText, err)
		}
		e.Position.TransactionID = tx
		e.Data = data
		if err := json.Unmarshal(meta, &e.Metadata); err != nil {
			return nil, fmt.Errorf("eventstore: metadata of %s: %w", e.ID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventstore: read events: %w", err)
	}
	return out, nil
}

// Subscribe returns a channel that receives a signal (coalesced) after each
// append this process commits, and, while Push runs, each append another
// process commits; and a function that stops the signals.
func (s *Store) Subscribe() (<-chan struct{}, func()) { return s.SubscribeTypes() }

// SubscribeTypes is Subscribe for appends holding an event of one of types
// (every append when none is given; a transaction whose types are unknown,
// Transact, signals every subscriber).
func (s *Store) SubscribeTypes(types ...string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	var filter map[string]bool
	if len(types) > 0 {
		filter = map[string]bool{}
		for _, t := range types {
			filter[t] = true
		}
	}
	s.mu.Lock()
	s.listeners[ch] = filter
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.listeners, ch)
		s.mu.Unlock()
	}
}

// SubscribeStream returns a channel that receives a signal (coalesced)
// after each commit appending to stream, in this process and, while Push
// runs, in the others (a commit whose streams are unknown signals every
// stream); and a function that stops the signals.
func (s *Store) SubscribeStream(stream string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	if s.streams[stream] == nil {
		s.streams[stream] = map[chan struct{}]bool{}
	}
	s.streams[stream][ch] = true
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.streams[stream], ch)
		if len(s.streams[stream]) == 0 {
			delete(s.streams, stream)
		}
		s.mu.Unlock()
	}
}

// Notify signals every subscriber; call it after committing a transaction
// that appended with AppendTx outside Transact and Run.
func (s *Store) Notify() { s.notify(commit{}) }

// NotifyTypes signals the subscribers to any of types, in this process and
// (see Push) the others: for a commit that changed what they read without
// appending events of those types (a projection's pseudo type, say).
// Stream subscribers are not signalled.
func (s *Store) NotifyTypes(types ...string) {
	if len(types) > 0 {
		s.notify(commit{types: types, streams: []string{}})
	}
}

// commit is what a committed transaction tells subscribers: the types it
// appended (nil: unknown, every subscriber) and the streams it appended to
// (nil: unknown, every stream; empty: none).
type commit struct {
	types   []string
	streams []string
}

// notify tells this process's subscribers of c and announces c to the
// other processes.
func (s *Store) notify(c commit) {
	s.signal(c)
	s.announce(c)
}

// signal wakes this process's subscribers of c.
func (s *Store) signal(c commit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch, filter := range s.listeners {
		if filter != nil && c.types != nil && !anyOf(filter, c.types) {
			continue
		}
		wake(ch)
	}
	if c.streams == nil {
		for _, chs := range s.streams {
			for ch := range chs {
				wake(ch)
			}
		}
		return
	}
	for _, st := range c.streams {
		for ch := range s.streams[st] {
			wake(ch)
		}
	}
}

// wake signals ch unless a signal is pending already.
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func anyOf(set map[string]bool, types []string) bool {
	for _, t := range types {
		if set[t] {
			return true
		}
	}
	return false
}

// Retry runs fn until it returns something other than a version conflict, at
// most attempts times, with a short jittered pause between tries.
func Retry(ctx context.Context, attempts int, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); !errors.Is(err, event.ErrConcurrency) {
			return err
		}
		pause := time.Duration(1+i) * time.Duration(500+jitter(1500)) * time.Microsecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	return err
}

// Last returns the last event of stream, read through db; ok is false for
// a missing stream.
func (s *Store) Last(ctx context.Context, db DB, stream string) (e event.Event, ok bool, err error) {
	rows, err := db.Query(ctx, "SELECT "+eventColumns+" FROM events WHERE stream_id = $1 ORDER BY version DESC LIMIT 1", stream)
	if err != nil {
		return event.Event{}, false, fmt.Errorf("eventstore: last of %s: %w", stream, err)
	}
	events, err := collect(rows)
	if err != nil || len(events) == 0 {
		return event.Event{}, false, err
	}
	return events[0], true, nil
}

// Version returns the version of the last event of stream (event.NewStream when
// it has none).
func (s *Store) Version(ctx context.Context, stream string) (int64, error) {
	var v int64
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(max(version), -1) FROM events WHERE stream_id = $1", stream).Scan(&v); err != nil {
		return 0, fmt.Errorf("eventstore: version of %s: %w", stream, err)
	}
	return v, nil
}
