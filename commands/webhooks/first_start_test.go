package webhooks_test

import (
	"context"
	"testing"
	"time"

	"svc/commands/webhooks"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// settled waits until every committed event is visible to the consumer
// group's reads (no transaction older than the newest event's still runs):
// transaction ids are server-wide, so other packages' tests can hold the
// bound back for a moment. Events below it are the log's history.
func settled(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var visible bool
		if err := db.Pool.QueryRow(context.Background(),
			`SELECT coalesce(max(transaction_id) < pg_snapshot_xmin(pg_current_snapshot()), true) FROM events`).Scan(&visible); err != nil {
			t.Fatal(err)
		}
		if visible {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("committed events still hidden from readers after 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupStarted waits until the consumer group has an offset (the
// dispatcher's first start recorded the head).
func groupStarted(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM watermill_offsets_events WHERE consumer_group = $1`,
			webhooks.DefaultConsumerGroup).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the dispatcher never started its consumer group")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFirstStartSkipsHistory: the dispatcher's first start over a database
// that already has webhook workflows (an existing deployment upgrading)
// schedules nothing for those that ended before it, and only the later
// events of one still running; a workflow that runs after the start is
// delivered in full. A restart resumes where the group stopped, so what
// happened while the dispatcher was down is delivered.
func TestFirstStartSkipsHistory(t *testing.T) {
	freshLog(t)
	box := newBox(t)
	rc := newReceiver(t, nil)

	ended := newFlow(t, box, "webhook", rc.url())
	ended.step1()
	ended.complete()
	failed := newFlow(t, box, "webhook", rc.url()+"?kind=failed")
	failed.step1()
	failed.append(event.New{Data: workflow.Failed{Code: "provider_exhausted", Error: "Every provider failed.", Step: 2, Refunded: 100}})
	running := newFlow(t, box, "webhook", rc.url()+"?kind=running")
	running.step1() // before the start: not delivered; its end is
	settled(t)

	stop := startDispatcher(t, rc, box, webhooks.Config{})
	groupStarted(t)

	after := newFlow(t, box, "webhook", rc.url()+"?kind=after")
	after.step1()
	after.complete()
	running.complete()

	afterRows := waitRows(t, after, 3)
	runningRows := waitRows(t, running, 2)
	// the log is read in order: once the later workflows are delivered,
	// anything scheduled for the earlier ones would be there too
	time.Sleep(300 * time.Millisecond)
	for _, f := range []*flow{ended, failed} {
		if rows, err := projections.Deliveries(context.Background(), db.Pool, f.org, f.id); err != nil || len(rows) != 0 {
			t.Fatalf("workflow %s ended before the first start, yet has deliveries %+v (%v)", f.id, rows, err)
		}
	}
	if runningRows[0].EventType != delivery.TypeStepCompleted || runningRows[1].EventType != delivery.TypeWorkflowCompleted {
		t.Errorf("deliveries of the workflow running across the start: %+v", runningRows)
	}
	for _, r := range append(afterRows, runningRows...) {
		if r.Status != projections.DeliveryDelivered {
			t.Errorf("delivery %+v", r)
		}
	}
	if n := deliveryStreams(t); n != 5 {
		t.Fatalf("%d deliveries scheduled, want 5 (3 of the workflow after the start, 2 of the one running across it)", n)
	}
	if n := len(rc.requests()); n != 5 {
		t.Fatalf("receiver got %d requests, want 5", n)
	}

	// A restart keeps the group's offset: a workflow that ended while the
	// dispatcher was down is delivered.
	stop()
	down := newFlow(t, box, "webhook", rc.url()+"?kind=down")
	down.step1()
	down.append(event.New{Data: workflow.Failed{Code: "provider_exhausted", Error: "Every provider failed.", Step: 2, Refunded: 100}})
	settled(t)
	startDispatcher(t, rc, box, webhooks.Config{})
	waitRows(t, down, 2)
	time.Sleep(300 * time.Millisecond)
	if n := deliveryStreams(t); n != 7 {
		t.Fatalf("%d deliveries scheduled after the restart, want 7", n)
	}
}
