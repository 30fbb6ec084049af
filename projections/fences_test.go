package projections_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// syncBuffer is a log sink safe for the goroutines of a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// grantFenced appends a grant to a new organization's ledger as caller,
// fenced for fences, and returns the command's receipt.
func grantFenced(t *testing.T, caller string, fences ...string) *event.Receipt {
	t.Helper()
	ctx := event.WithMetadata(context.Background(), event.Metadata{Actor: caller})
	ctx, receipt := event.WithReceipt(ctx)
	orgID := uuid.NewString()
	if _, err := store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: orgID}}, func(tx *eventstore.Tx) error {
		tx.Fence(fences...)
		_, err := tx.Append(credit.Stream(orgID), event.NewStream, credit.Granted{OrgID: orgID, Amount: 10, Reason: "test"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return receipt
}

// TestReadFences: a fenced write's answer does not wait for the read
// models; the caller's next request does, for the read models it reads,
// and another caller's does not.
func TestReadFences(t *testing.T) {
	ctx := context.Background()
	runner := newRunner(t, []projections.Projection{projections.Billing{}})
	catchUp(t, runner) // not running: it moves only when the test steps it
	logs := &syncBuffer{}
	q := projections.NewQueries(store, commands.NewRepositories(store).Workflows, runner,
		slog.New(slog.NewTextHandler(logs, nil)), projections.WithWaitBound(time.Second))
	caller := "key:" + uuid.NewString()

	receipt := grantFenced(t, caller, caller)
	if !receipt.FencedFor(caller) || receipt.FencedFor("key:other") {
		t.Fatalf("receipt fenced for %s: %v, for another: %v", caller, receipt.FencedFor(caller), receipt.FencedFor("key:other"))
	}
	// the answer: no wait (a wait would pass the bound, the runner being
	// stopped, and log it)
	projections.NewFenced(q).WaitFor(event.WithMetadata(ctx, event.Metadata{Actor: caller}), receipt)
	if strings.Contains(logs.String(), "lagging") {
		t.Fatalf("a fenced write waited for the read models: %s", logs)
	}
	// a request that reads other read models, and another caller's, go on
	q.AwaitFences(ctx, caller, []string{credit.EventCharged})
	q.AwaitFences(ctx, "key:"+uuid.NewString(), nil)
	if strings.Contains(logs.String(), "lagging") {
		t.Fatalf("a request waited for a fence it does not read: %s", logs)
	}
	// the caller's next request waits until billing applied the grant
	done := make(chan struct{})
	go func() {
		q.AwaitFences(context.Background(), caller, nil)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("the caller's next request did not wait for the read model")
	case <-time.After(200 * time.Millisecond):
	}
	catchUp(t, runner)
	<-done
	if strings.Contains(logs.String(), "lagging") {
		t.Fatalf("the wait passed its bound: %s", logs)
	}
	// a write without the caller's fence is waited for in the answer
	unfenced := grantFenced(t, caller)
	if unfenced.FencedFor(caller) {
		t.Fatal("an unfenced write reads as fenced")
	}
	projections.NewFenced(q).WaitFor(event.WithMetadata(ctx, event.Metadata{Actor: caller}), unfenced)
	if !strings.Contains(logs.String(), "read model lagging behind a command") {
		t.Fatalf("an unfenced write did not wait: %s", logs)
	}
}

// TestReadFencesRollBack: a transaction that rolls back leaves no fence,
// and a fence only moves forward.
func TestReadFencesRollBack(t *testing.T) {
	ctx := context.Background()
	caller := "key:" + uuid.NewString()
	boom := errors.New("boom")
	_, err := store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		tx.Fence(caller)
		orgID := uuid.NewString()
		if _, err := tx.Append(credit.Stream(orgID), event.NewStream, credit.Granted{OrgID: orgID, Amount: 1, Reason: "test"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM read_fences WHERE caller = $1`, caller).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a rolled-back transaction left %d fences (%v)", n, err)
	}
	first := grantFenced(t, caller, caller).Last()
	second := grantFenced(t, caller, caller).Last()
	var tx, pos int64
	if err := db.Pool.QueryRow(ctx, `SELECT transaction_id, position FROM read_fences WHERE caller = $1 AND event_type = $2`,
		caller, credit.EventGranted).Scan(&tx, &pos); err != nil {
		t.Fatal(err)
	}
	if got := (event.Position{TransactionID: uint64(tx), Global: pos}); got != second || !first.Less(got) {
		t.Fatalf("fence at %s, want the second write's %s", got, second)
	}
}
