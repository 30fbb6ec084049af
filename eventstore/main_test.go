package eventstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/eventstore"
	"svc/eventstore/event"
	"svc/test/pgtest"
)

// testDB is this package's database (svc_test_eventstore_<pid>), migrated by
// TestMain. Tests run one after another; those that need an empty log call
// testDB.Reset.
var testDB *pgtest.DB

func TestMain(m *testing.M) {
	pgtest.Main(m, "eventstore", func(db *pgtest.DB) { testDB = db })
}

// newStore empties the log and returns a store over the package pool.
func newStore(t *testing.T) *eventstore.Store {
	t.Helper()
	testDB.Reset(t)
	return eventstore.New(testDB.Pool)
}

// widePool opens a second pool on the test database with room for n
// connections, for tests whose writers must really run at the same time (the
// package pool has max(4, NumCPU) connections).
func widePool(t *testing.T, n int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testDB.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = n
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// testCtx returns a context that ends with the test or after d.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// settle waits until every committed event is visible to ReadAll: until no
// transaction older than the newest event's is still running. Transaction ids,
// and so pg_snapshot_xmin, are server-wide: other packages' tests running at
// the same time on the server can hold readers back for a while.
func settle(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var visible bool
		err := testDB.Pool.QueryRow(ctx, `SELECT coalesce(max(transaction_id) < pg_snapshot_xmin(pg_current_snapshot()), true) FROM events`).Scan(&visible)
		if err != nil {
			t.Fatalf("settle: %v", err)
		}
		if visible {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("settle: committed events still hidden from readers after 30s (a transaction is left open)")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ev(typ string, v any) event.New {
	return event.New{Data: data{typ, v}}
}

// data is event data under any type name, for the store's own tests: v is
// written as JSON (json.RawMessage and []byte as they are, nil as {}).
type data struct {
	typ string
	v   any
}

func (d data) EventType() string { return d.typ }

func (d data) MarshalJSON() ([]byte, error) {
	switch v := d.v.(type) {
	case nil:
		return []byte("{}"), nil
	case []byte:
		return json.RawMessage(v).MarshalJSON()
	}
	return json.Marshal(d.v)
}

// readAllPages reads the whole visible log after from through s in pages of size.
func readAllPages(t *testing.T, ctx context.Context, s *eventstore.Store, db eventstore.DB, from event.Position, size int, f eventstore.Filter) []event.Event {
	t.Helper()
	var out []event.Event
	after := from
	for {
		page, err := s.ReadAll(ctx, db, after, size, f)
		if err != nil {
			t.Fatalf("ReadAll after %+v: %v", after, err)
		}
		if len(page) > size {
			t.Fatalf("ReadAll returned %d events, limit %d", len(page), size)
		}
		out = append(out, page...)
		if len(page) < size {
			return out
		}
		after = page[len(page)-1].Position
	}
}

// assertStrictOrder fails unless events are strictly increasing in global order.
func assertStrictOrder(t *testing.T, events []event.Event) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if !events[i-1].Position.Less(events[i].Position) {
			t.Fatalf("events %d and %d out of global order: %+v then %+v", i-1, i, events[i-1].Position, events[i].Position)
		}
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}
