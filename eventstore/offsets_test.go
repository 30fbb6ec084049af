package eventstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/eventstore"
	"svc/eventstore/event"
)

// groupOffset reads a consumer group's stored offset as a position.
func groupOffset(t *testing.T, group string) (event.Position, bool) {
	t.Helper()
	var (
		pos event.Position
		n   int
	)
	err := testDB.Pool.QueryRow(context.Background(), `SELECT count(*), coalesce(max(offset_acked), 0),
		coalesce(max(last_processed_transaction_id::text), '0')::bigint FROM watermill_offsets_events WHERE consumer_group = $1`, group).
		Scan(&n, &pos.Global, &pos.TransactionID)
	if err != nil {
		t.Fatal(err)
	}
	return pos, n == 1
}

// TestStartAtHead: a group without an offset starts at the head of the
// log (the zero offset on an empty log), so a subscriber of it receives
// only what is appended later; a group with an offset keeps it; the head
// is taken below the oldest running transaction, so an event of a
// transaction open at the start is received once it commits, as is one
// committed meanwhile.
func TestStartAtHead(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t, 90*time.Second)

	empty := "empty-" + uuid.NewString()
	head, started, err := eventstore.StartAtHead(ctx, testDB.Pool, empty)
	if err != nil || !started || head != (event.Position{}) {
		t.Fatalf("on the empty log: %+v, %v, %v; want the zero offset, started", head, started, err)
	}

	if _, err := s.Append(ctx, "h-1", event.NewStream, ev("Before", nil), ev("Before", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "h-2", event.NewStream, ev("Before", nil)); err != nil {
		t.Fatal(err)
	}
	settle(t)
	history, err := s.ReadAll(ctx, testDB.Pool, event.Position{}, 100, eventstore.Filter{})
	if err != nil || len(history) != 3 {
		t.Fatalf("history %d events, %v", len(history), err)
	}

	group := "head-" + uuid.NewString()
	head, started, err = eventstore.StartAtHead(ctx, testDB.Pool, group)
	if err != nil || !started || head != history[2].Position {
		t.Fatalf("StartAtHead = %+v, %v, %v; want %+v, started", head, started, err, history[2].Position)
	}
	if stored, ok := groupOffset(t, group); !ok || stored != head {
		t.Fatalf("stored offset %+v (%v), want %+v", stored, ok, head)
	}
	// the group with the zero offset still reads everything
	if again, started, err := eventstore.StartAtHead(ctx, testDB.Pool, empty); err != nil || started || again != (event.Position{}) {
		t.Fatalf("second StartAtHead of a started group = %+v, %v, %v; want nothing done", again, started, err)
	}
	if stored, ok := groupOffset(t, empty); !ok || stored != (event.Position{}) {
		t.Fatalf("the started group's offset moved to %+v", stored)
	}

	sub, c := subscribe(t, ctx, group)
	c.expectNothing(500*time.Millisecond, "history before the group's start")
	if _, err := s.Append(ctx, "h-3", event.NewStream, ev("After", nil)); err != nil {
		t.Fatal(err)
	}
	if got := c.receive(1); got[0].Metadata.Get("type") != "After" {
		t.Fatalf("received %s, want After", got[0].Metadata.Get("type"))
	}
	c.expectNothing(300*time.Millisecond, "after the new event")
	allSub, all := subscribe(t, ctx, empty)
	all.receive(4)
	// a subscriber holding a message nobody acknowledges holds its
	// transaction (and the readers' bound) open: close it when done
	if err := allSub.Close(); err != nil {
		t.Fatal(err)
	}

	// A restart keeps the offset: StartAtHead does nothing, the subscriber
	// resumes after what it acknowledged.
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "h-4", event.NewStream, ev("WhileDown", nil)); err != nil {
		t.Fatal(err)
	}
	settle(t)
	if _, started, err := eventstore.StartAtHead(ctx, testDB.Pool, group); err != nil || started {
		t.Fatalf("StartAtHead of a group with an offset: started %v, %v", started, err)
	}
	sub, c = subscribe(t, ctx, group)
	if got := c.receive(1); got[0].Metadata.Get("type") != "WhileDown" {
		t.Fatalf("after the restart received %s, want WhileDown", got[0].Metadata.Get("type"))
	}
	c.expectNothing(300*time.Millisecond, "after resuming")
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	restarted := c

	// An open transaction at the start: neither its event nor one committed
	// after it began is skipped.
	settle(t)
	log, err := s.ReadAll(ctx, testDB.Pool, event.Position{}, 100, eventstore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := testDB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	if _, err := tx.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "h-committed", event.NewStream, ev("CommittedMeanwhile", nil)); err != nil {
		t.Fatal(err)
	}
	late := "late-" + uuid.NewString()
	head, started, err = eventstore.StartAtHead(ctx, testDB.Pool, late)
	if err != nil || !started || head != log[len(log)-1].Position {
		t.Fatalf("StartAtHead with a transaction open = %+v, %v, %v; want %+v (below the open transaction)", head, started, err, log[len(log)-1].Position)
	}
	if _, err := s.AppendTx(ctx, tx, "h-open", event.NewStream, ev("OpenAtStart", nil)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, c = subscribe(t, ctx, late)
	got := c.receive(2)
	if got[0].Metadata.Get("type") != "OpenAtStart" || got[1].Metadata.Get("type") != "CommittedMeanwhile" {
		t.Fatalf("received %s, %s; want OpenAtStart, CommittedMeanwhile", got[0].Metadata.Get("type"), got[1].Metadata.Get("type"))
	}
	c.expectNothing(300*time.Millisecond, "after the transaction open at the start")

	for _, l := range []wmConsumer{c, all, restarted} {
		if errs := l.log.errors(); len(errs) > 0 {
			t.Errorf("watermill logged errors: %v", errs)
		}
	}
}

// TestStartAtHeadConcurrent: instances starting together record one head;
// exactly one of them reports having started the group, and appends going
// on meanwhile do not make them disagree.
func TestStartAtHeadConcurrent(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t, 60*time.Second)
	pool := widePool(t, 24)
	group := "race-" + uuid.NewString()

	stopWriting := make(chan struct{})
	writing := make(chan struct{})
	go func() {
		defer close(writing)
		for i := 0; ; i++ {
			select {
			case <-stopWriting:
				return
			default:
			}
			if _, err := s.Append(ctx, "race-"+uuid.NewString(), event.NewStream, ev("Meanwhile", nil)); err != nil {
				t.Error(err)
				return
			}
		}
	}()

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		starts  []event.Position
		callErr error
	)
	for range 20 {
		wg.Go(func() {
			head, started, err := eventstore.StartAtHead(ctx, pool, group)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				callErr = err
			}
			if started {
				starts = append(starts, head)
			}
		})
	}
	wg.Wait()
	close(stopWriting)
	<-writing
	if callErr != nil {
		t.Fatal(callErr)
	}
	if len(starts) != 1 {
		t.Fatalf("%d calls started the group, want 1", len(starts))
	}
	if stored, ok := groupOffset(t, group); !ok || stored != starts[0] {
		t.Fatalf("stored offset %+v (%v), want the starting call's %+v", stored, ok, starts[0])
	}
}
