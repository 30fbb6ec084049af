package eventstore_test

import (
	"context"
	"testing"

	"svc/eventstore"
	"svc/eventstore/event"
)

// TestReadAllOrdersTransactionIDsNumerically plants events whose transaction
// ids straddle powers of ten (9, 10, 99, 100, 1000): sorted as text they would
// come back 10, 100, 1000, 9, 99, and a paging reader would skip or repeat.
func TestReadAllOrdersTransactionIDsNumerically(t *testing.T) {
	store := newStore(t)
	ctx := context.Background()
	for i, tx := range []string{"1000", "99", "10", "100", "9"} {
		_, err := testDB.Pool.Exec(ctx, `INSERT INTO events (transaction_id, event_id, stream_id, version, type, data)
			VALUES ($1::text::xid8, gen_random_uuid(), 'planted-' || $2::int, 0, 'Planted', '{}')`, tx, i)
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []uint64
	after := event.Position{}
	for {
		page, err := store.ReadAll(ctx, testDB.Pool, after, 2, eventstore.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			got = append(got, e.Position.TransactionID)
			after = e.Position
		}
	}
	want := []uint64{9, 10, 99, 100, 1000}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("read %v, want %v", got, want)
		}
	}
}
