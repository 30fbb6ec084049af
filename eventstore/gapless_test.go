package eventstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/eventstore"
	"svc/eventstore/event"
)

// checkpointReader reads the log the way projections do: ReadAll after its
// checkpoint, moving the checkpoint to the last event returned.
type checkpointReader struct {
	s     *eventstore.Store
	db    eventstore.DB
	after event.Position
	seen  []event.Event
	page  int
}

// poll reads every event visible now after the checkpoint, in pages.
func (r *checkpointReader) poll(ctx context.Context) ([]event.Event, error) {
	var got []event.Event
	for {
		page, err := r.s.ReadAll(ctx, r.db, r.after, r.page, eventstore.Filter{})
		if err != nil {
			return got, err
		}
		for _, e := range page {
			if !r.after.Less(e.Position) {
				return got, fmt.Errorf("event %s at %+v is not after the checkpoint %+v", e.ID, e.Position, r.after)
			}
			r.after = e.Position
			r.seen = append(r.seen, e)
			got = append(got, e)
		}
		if len(page) < r.page {
			return got, nil
		}
	}
}

func (r *checkpointReader) mustPoll(t *testing.T, ctx context.Context) []event.Event {
	t.Helper()
	got, err := r.poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func types(events []event.Event) []string {
	out := []string{}
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

func begin(t *testing.T, ctx context.Context, pool *pgxpool.Pool) pgx.Tx {
	t.Helper()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

// TestReaderNeverSkipsLateCommits is the event store's version of
// watermill-sql's TestNotMissingMessages: a transaction that appended first
// but commits last must not be skipped by a reader that already read what
// committed in the meantime.
func TestReaderNeverSkipsLateCommits(t *testing.T) {
	testDB.Reset(t)
	pool := widePool(t, 10)
	s := eventstore.New(pool)
	ctx := testCtx(t, 60*time.Second)
	r := &checkpointReader{s: s, db: pool, page: 10}

	if _, err := s.Append(ctx, "seed", event.NewStream, ev("Seed", nil)); err != nil {
		t.Fatal(err)
	}
	settle(t)
	if got := r.mustPoll(t, ctx); len(got) != 1 || got[0].Type != "Seed" {
		t.Fatalf("first read: %v", types(got))
	}

	t.Run("OlderOpenTransactionHoldsBackNewerCommits", func(t *testing.T) {
		txA := begin(t, ctx, pool)
		posA, err := s.AppendTx(ctx, txA, "a", event.NewStream, ev("A", nil))
		if err != nil {
			t.Fatal(err)
		}
		posB, err := s.Append(ctx, "b", event.NewStream, ev("B", nil))
		if err != nil {
			t.Fatal(err)
		}
		if !posA.Less(posB) || posA.Global >= posB.Global {
			t.Fatalf("A at %+v should precede B at %+v", posA, posB)
		}
		// B is committed and visible...
		if evs, err := s.Load(ctx, "b"); err != nil || len(evs) != 1 {
			t.Fatalf("B not committed: %d events, %v", len(evs), err)
		}
		// ...but a reader must not get it while A, older, may still commit.
		if got := r.mustPoll(t, ctx); len(got) != 0 {
			t.Fatalf("read %v while an older transaction was open; its event would be skipped", types(got))
		}
		if n, err := s.CountAfter(ctx, pool, r.after); err != nil || n != 0 {
			t.Fatalf("CountAfter = %d, %v while the older transaction is open; want 0", n, err)
		}
		if err := txA.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		settle(t)
		if n, err := s.CountAfter(ctx, pool, r.after); err != nil || n != 2 {
			t.Fatalf("CountAfter = %d, %v after commit; want 2", n, err)
		}
		got := r.mustPoll(t, ctx)
		if fmt.Sprint(types(got)) != "[A B]" {
			t.Fatalf("after A committed read %v, want [A B]", types(got))
		}
		if got[0].Position != posA || got[1].Position != posB {
			t.Fatalf("positions %+v %+v, want %+v %+v", got[0].Position, got[1].Position, posA, posB)
		}
	})

	t.Run("TransactionOrderNotSequenceOrder", func(t *testing.T) {
		// A takes its transaction id first but appends after B commits: A's
		// event has the larger sequence position yet comes first.
		txA := begin(t, ctx, pool)
		if _, err := txA.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
			t.Fatal(err)
		}
		posB, err := s.Append(ctx, "b", 0, ev("B2", nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.mustPoll(t, ctx); len(got) != 0 {
			t.Fatalf("read %v while an older transaction was open", types(got))
		}
		posA, err := s.AppendTx(ctx, txA, "a", 0, ev("A2", nil))
		if err != nil {
			t.Fatal(err)
		}
		if posA.Global <= posB.Global || !posA.Less(posB) {
			t.Fatalf("A2 at %+v, B2 at %+v: want A2 later in sequence, earlier in transaction order", posA, posB)
		}
		if got := r.mustPoll(t, ctx); len(got) != 0 {
			t.Fatalf("read %v while an older transaction was open", types(got))
		}
		if err := txA.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		settle(t)
		if got := r.mustPoll(t, ctx); fmt.Sprint(types(got)) != "[A2 B2]" {
			t.Fatalf("read %v, want [A2 B2]", types(got))
		}
	})

	t.Run("RolledBackTransactionLeavesNothingAndReleasesReaders", func(t *testing.T) {
		txC := begin(t, ctx, pool)
		if _, err := s.AppendTx(ctx, txC, "c", event.NewStream, ev("C", nil), ev("C", nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, "d", event.NewStream, ev("D", nil)); err != nil {
			t.Fatal(err)
		}
		if got := r.mustPoll(t, ctx); len(got) != 0 {
			t.Fatalf("read %v while an older transaction was open", types(got))
		}
		if err := txC.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		settle(t)
		if got := r.mustPoll(t, ctx); fmt.Sprint(types(got)) != "[D]" {
			t.Fatalf("after rollback read %v, want [D]", types(got))
		}
		// A rolled back Transact neither stores nor blocks.
		boom := errors.New("boom")
		err := s.Transact(ctx, func(tx pgx.Tx) error {
			if _, err := s.AppendTx(ctx, tx, "c", event.NewStream, ev("C", nil)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, "d", 0, ev("D2", nil)); err != nil {
			t.Fatal(err)
		}
		settle(t)
		if got := r.mustPoll(t, ctx); fmt.Sprint(types(got)) != "[D2]" {
			t.Fatalf("read %v, want [D2]", types(got))
		}
		if evs, _ := s.Load(ctx, "c"); len(evs) != 0 {
			t.Fatalf("rolled back stream c has %d events", len(evs))
		}
	})

	t.Run("ManyInterleavedTransactions", func(t *testing.T) {
		// Open five transactions, append in each, commit them in a shuffled
		// order with a read after each commit: the reader ends with every
		// event once, in transaction order.
		const n = 5
		txs := make([]pgx.Tx, n)
		for i := range txs {
			txs[i] = begin(t, ctx, pool)
			if _, err := s.AppendTx(ctx, txs[i], fmt.Sprintf("i-%d", i), event.NewStream, ev(fmt.Sprintf("I%d", i), nil)); err != nil {
				t.Fatal(err)
			}
		}
		var got []event.Event
		for _, i := range []int{3, 1, 4, 0, 2} {
			if i == 4 {
				if err := txs[i].Rollback(ctx); err != nil {
					t.Fatal(err)
				}
			} else if err := txs[i].Commit(ctx); err != nil {
				t.Fatal(err)
			}
			got = append(got, r.mustPoll(t, ctx)...)
		}
		settle(t)
		got = append(got, r.mustPoll(t, ctx)...)
		if fmt.Sprint(types(got)) != "[I0 I1 I2 I3]" {
			t.Fatalf("read %v, want [I0 I1 I2 I3]", types(got))
		}
	})

	// Everything the reader saw, in the order it saw it, is the log read in
	// one go: nothing skipped, nothing twice.
	settle(t)
	all := readAllPages(t, ctx, s, pool, event.Position{}, 1000, eventstore.Filter{})
	if len(all) != len(r.seen) {
		t.Fatalf("reader saw %d events, the log has %d", len(r.seen), len(all))
	}
	for i := range all {
		if all[i].ID != r.seen[i].ID {
			t.Fatalf("event %d: reader saw %s (%s), log has %s (%s)", i, r.seen[i].Type, r.seen[i].ID, all[i].Type, all[i].ID)
		}
	}
}

// TestReaderStress has writers commit or roll back transactions at random,
// with random pauses, while a reader pages continuously from its checkpoint.
// In the end the reader has seen exactly the committed events, each once, in
// strictly increasing global order.
func TestReaderStress(t *testing.T) {
	const (
		writers = 8
		ops     = 40
	)
	testDB.Reset(t)
	pool := widePool(t, writers+4)
	s := eventstore.New(pool)
	ctx := testCtx(t, 60*time.Second)

	type key struct{ W, Op, K int }
	var (
		mu        sync.Mutex
		committed = map[key]bool{}
		rolled    int
		errs      []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	var writersDone atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			version := map[string]int64{}
			for op := 0; op < ops; op++ {
				pause := func() { time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond) }
				streams := 1 + rng.IntN(2)
				var keys []key
				next := map[string]int64{}
				if rng.IntN(5) == 0 {
					// A plain Append, committed at once.
					stream := fmt.Sprintf("w%d-s%d", w, rng.IntN(3))
					cur, ok := version[stream]
					if !ok {
						cur = event.NewStream
					}
					k := key{w, op, 0}
					if _, err := s.Append(ctx, stream, cur, event.New{Data: data{"Plain", k}}); err != nil {
						fail(err)
						return
					}
					version[stream] = cur + 1
					mu.Lock()
					committed[k] = true
					mu.Unlock()
					pause()
					continue
				}
				tx, err := pool.Begin(ctx)
				if err != nil {
					fail(err)
					return
				}
				pause()
				for i := 0; i < streams; i++ {
					stream := fmt.Sprintf("w%d-s%d", w, (op+i)%3)
					cur, ok := next[stream]
					if !ok {
						if cur, ok = version[stream]; !ok {
							cur = event.NewStream
						}
					}
					k1, k2 := key{w, op, 2 * i}, key{w, op, 2*i + 1}
					_, err := s.AppendTx(ctx, tx, stream, cur, event.New{Data: data{"Tx", k1}}, event.New{Data: data{"Tx", k2}})
					if err != nil {
						_ = tx.Rollback(ctx)
						fail(err)
						return
					}
					next[stream] = cur + 2
					keys = append(keys, k1, k2)
					pause()
				}
				if rng.IntN(10) < 3 {
					if err := tx.Rollback(ctx); err != nil {
						fail(err)
						return
					}
					mu.Lock()
					rolled += len(keys)
					mu.Unlock()
					continue
				}
				if err := tx.Commit(ctx); err != nil {
					fail(err)
					return
				}
				for st, v := range next {
					version[st] = v
				}
				mu.Lock()
				for _, k := range keys {
					committed[k] = true
				}
				mu.Unlock()
			}
		}(w)
	}

	r := &checkpointReader{s: s, db: pool, page: 7}
	readerErr := make(chan error, 1)
	go func() {
		for {
			done := writersDone.Load()
			if _, err := r.poll(ctx); err != nil {
				readerErr <- err
				return
			}
			if done {
				// Every writer had finished, and everything committed was
				// visible, before this poll began.
				readerErr <- nil
				return
			}
			time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
		}
	}()
	wg.Wait()
	settle(t)
	writersDone.Store(true)
	if err := <-readerErr; err != nil {
		t.Fatalf("reader: %v", err)
	}
	for _, err := range errs {
		t.Errorf("writer: %v", err)
	}

	assertStrictOrder(t, r.seen)
	seen := map[key]bool{}
	for _, e := range r.seen {
		var k key
		if err := json.Unmarshal(e.Data, &k); err != nil {
			t.Fatal(err)
		}
		if seen[k] {
			t.Errorf("event %+v read twice", k)
		}
		seen[k] = true
		if !committed[k] {
			t.Errorf("read event %+v that was not committed", k)
		}
	}
	for k := range committed {
		if !seen[k] {
			t.Errorf("committed event %+v never read", k)
		}
	}
	if len(committed) == 0 || rolled == 0 {
		t.Fatalf("degenerate run: %d committed, %d rolled back", len(committed), rolled)
	}
	all := readAllPages(t, ctx, s, pool, event.Position{}, 1000, eventstore.Filter{})
	if len(all) != len(r.seen) {
		t.Fatalf("reader saw %d events, the log has %d", len(r.seen), len(all))
	}
	for i := range all {
		if all[i].ID != r.seen[i].ID {
			t.Fatalf("event %d differs between the continuous reader and a full read", i)
		}
	}
	t.Logf("%d events committed, %d rolled back, reader saw %d", len(committed), rolled, len(r.seen))
}
