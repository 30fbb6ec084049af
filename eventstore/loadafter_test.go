package eventstore_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"svc/eventstore"
)

// LoadAfter runs its statement first and then reads what was committed
// meanwhile: with a warm fold cache in one round trip, cold as Load does;
// the result always equals a fold of the whole stream.
func TestLoadAfter(t *testing.T) {
	s := newStore(t)
	for _, cache := range []int{0, 10} {
		r := tallies(s, cache, nil)
		id := uuid.NewString()
		want := count(t, s, id, 3)
		load := func() *tally {
			t.Helper()
			var got *tally
			_, err := s.Run(context.Background(), eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
				a, err := r.LoadAfter(tx, id, `SELECT pg_advisory_xact_lock($1)`, int64(7_240_999))
				got = a
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if a := load(); a.sum != want || a.version != 2 { // cold
			t.Fatalf("cache %d: cold load sum %d version %d, want %d at 2", cache, a.sum, a.version, want)
		}
		want += count(t, s, id, 4) // appended by another writer
		if a := load(); a.sum != want || a.version != 6 {
			t.Fatalf("cache %d: warm load sum %d version %d, want %d at 6", cache, a.sum, a.version, want)
		}
		if cache > 0 {
			if a := load(); a.folded != 7 { // nothing new: the copy of the entry
				t.Fatalf("folded %d events in all, want 7", a.folded)
			}
		}
	}
}
