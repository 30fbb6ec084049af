package eventstore_test

import (
	"context"
	"testing"
	"time"

	"svc/eventstore"
	"svc/eventstore/event"
)

// pushing starts Push on store until the test ends and waits until its
// listener is connected (it signals every subscriber once it listens).
func pushing(t *testing.T, store *eventstore.Store, headEvery time.Duration) {
	t.Helper()
	ready, stop := store.SubscribeTypes("nothing.ever")
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := store.Push(ctx, eventstore.PushOptions{HeadEvery: headEvery}); err != nil {
			t.Errorf("push: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	expectSignal(t, "the listener's first signal", ready, 10*time.Second)
}

func expectSignal(t *testing.T, what string, ch <-chan struct{}, within time.Duration) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(within):
		t.Fatalf("no signal: %s", what)
	}
}

func expectQuiet(t *testing.T, what string, ch <-chan struct{}, during time.Duration) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("signalled: %s", what)
	case <-time.After(during):
	}
}

// Two stores on one database stand for two processes: an append in one
// wakes the other's subscribers of its type and of its stream, and no
// others.
func TestPushWakesOtherProcess(t *testing.T) {
	a := newStore(t)
	b := eventstore.New(widePool(t, 4))
	pushing(t, a, time.Hour)
	pushing(t, b, time.Hour)

	byType, stop := b.SubscribeTypes("A")
	defer stop()
	otherType, stop2 := b.SubscribeTypes("Z")
	defer stop2()
	byStream, stop3 := b.SubscribeStream("s-1")
	defer stop3()
	otherStream, stop4 := b.SubscribeStream("s-2")
	defer stop4()

	appendA(t, a, "s-1")
	expectSignal(t, "b's subscriber of type A", byType, 5*time.Second)
	expectSignal(t, "b's subscriber of stream s-1", byStream, 5*time.Second)
	expectQuiet(t, "b's subscriber of type Z", otherType, 200*time.Millisecond)
	expectQuiet(t, "b's subscriber of stream s-2", otherStream, 50*time.Millisecond)

	// a pseudo type (a projection moved) reaches b's subscribers of it
	moved, stop5 := b.SubscribeTypes("projection:x")
	defer stop5()
	a.NotifyTypes("projection:x")
	expectSignal(t, "b's subscriber of projection:x", moved, 5*time.Second)
	expectQuiet(t, "b's subscriber of stream s-1 after a pseudo type", byStream, 200*time.Millisecond)
}

// A process's own commits signal its subscribers once, not again when its
// own notification comes back.
func TestPushSkipsOwnNotifications(t *testing.T) {
	a := newStore(t)
	pushing(t, a, time.Hour)
	ch, stop := a.SubscribeTypes("A")
	defer stop()
	appendA(t, a, "s-1")
	expectSignal(t, "the local signal", ch, time.Second)
	expectQuiet(t, "the own notification coming back", ch, 300*time.Millisecond)
}

// An operator command's store (AnnounceEachCommit, no Push) is heard by
// the serving process at once.
func TestAnnounceEachCommitWithoutPush(t *testing.T) {
	serving := newStore(t)
	pushing(t, serving, time.Hour)
	ch, stop := serving.SubscribeTypes("A")
	defer stop()
	cli := eventstore.New(widePool(t, 2))
	cli.AnnounceEachCommit()
	appendA(t, cli, "s-1")
	expectSignal(t, "the serving process's subscriber", ch, 5*time.Second)

	// a store without either announces nothing: only the head check finds it
	quiet := eventstore.New(widePool(t, 2))
	appendA(t, quiet, "s-2")
	expectQuiet(t, "a commit nobody announced", ch, 300*time.Millisecond)
}

// An event whose notification never came (written by a process that does
// not announce) wakes every subscriber at the next head check.
func TestHeadCheckWakesOnUnannouncedEvents(t *testing.T) {
	serving := newStore(t)
	pushing(t, serving, 200*time.Millisecond)
	ch, stop := serving.SubscribeTypes("A")
	defer stop()
	st, stop2 := serving.SubscribeStream("s-9")
	defer stop2()
	time.Sleep(300 * time.Millisecond) // a head check has read the head
	select {
	case <-ch:
	default:
	}
	quiet := eventstore.New(widePool(t, 2))
	appendA(t, quiet, "s-9")
	// other packages' transactions can hold the visible head back
	expectSignal(t, "the head check's wake-up", ch, 30*time.Second)
	expectSignal(t, "the head check's wake-up of stream subscribers", st, time.Second)
}

// An event a silent process appends after the listener connected but
// before the first head check is found too: the first check has no
// earlier head to compare with, so it wakes every subscriber.
func TestFirstHeadCheckWakes(t *testing.T) {
	serving := newStore(t)
	pushing(t, serving, 500*time.Millisecond)
	ch, stop := serving.SubscribeTypes("A")
	defer stop()
	quiet := eventstore.New(widePool(t, 2))
	appendA(t, quiet, "s-10")
	expectSignal(t, "the first head check's wake-up", ch, 30*time.Second)
}

// appendA appends one event of type A to a new stream.
func appendA(t *testing.T, st *eventstore.Store, stream string) {
	t.Helper()
	if _, err := st.Append(testCtx(t, 10*time.Second), stream, event.NewStream, event.New{Data: data{"A", stream}}); err != nil {
		t.Fatal(err)
	}
}

// Statements counts what a pool from Connect sent, BEGIN and COMMIT and
// each statement of a batch included; other pools count nothing.
func TestStatementsCountsWhatAPoolSent(t *testing.T) {
	ctx := testCtx(t, 10*time.Second)
	pool, err := eventstore.Connect(ctx, testDB.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	before := eventstore.Statements(pool)
	st := eventstore.New(pool)
	if _, err := st.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		_, err := tx.Append("s-count", event.NewStream, data{"A", "x"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// begin, the append, commit
	if n := eventstore.Statements(pool) - before; n < 3 {
		t.Fatalf("counted %d statements for a transaction of one append", n)
	}
	other := widePool(t, 2) // opened without Connect
	if err := other.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if n := eventstore.Statements(other); n != 0 {
		t.Fatalf("a pool Connect did not open counted %d", n)
	}
}
