package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"svc/adapters/webhook"
	"svc/commands"
	"svc/commands/webhooks"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// TestDeliversEveryEventOnceSigned runs the dispatcher over a full, a
// partial and a failed webhook workflow and a polling one: every
// deliverable event arrives once, signed with the workflow's secret, with
// its payload, and the delivery log says so.
func TestDeliversEveryEventOnceSigned(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, nil)

	// the polling workflow first: the dispatcher handles the log in order,
	// so by the time the webhook workflows are delivered it has passed it
	polling := newFlow(t, box, "polling", "")
	polling.step1()
	polling.complete()

	full := newFlow(t, box, "webhook", rc.url())
	full.step1()
	full.complete()

	partial := newFlow(t, box, "webhook", rc.url()+"?kind=partial")
	partial.step1()
	partial.append(
		event.New{Data: workflow.StepIncomplete{Step: 2, Name: "Synthesis", Reason: "provider_exhausted"}},
		event.New{Data: workflow.Completed{Partial: true, Error: "Synthesis did not finish.",
			IncompleteSteps: []workflow.Incomplete{{StepIndex: 2, Framework: "Synthesis", Reason: "provider_exhausted"}}}},
	)

	failed := newFlow(t, box, "webhook", rc.url()+"?kind=failed")
	failed.step1()
	failed.append(event.New{Data: workflow.Failed{Code: "provider_exhausted", Error: "Every provider failed.", Step: 2, Refunded: 100}})

	startDispatcher(t, rc, box, webhooks.Config{})

	fullRows := waitRows(t, full, 3)
	partialRows := waitRows(t, partial, 2)
	failedRows := waitRows(t, failed, 2)
	time.Sleep(300 * time.Millisecond) // room for a duplicate to show up
	if rows, err := projections.Deliveries(context.Background(), db.Pool, polling.org, polling.id); err != nil || len(rows) != 0 {
		t.Fatalf("polling workflow has deliveries %+v, %v", rows, err)
	}
	var scheduled int
	if err := db.Pool.QueryRow(context.Background(), "SELECT count(DISTINCT stream_id) FROM events WHERE type = $1", delivery.EventDeliveryScheduled).Scan(&scheduled); err != nil || scheduled != 7 {
		t.Fatalf("%d deliveries scheduled in the log (%v), want 7: none for the polling workflow", scheduled, err)
	}

	got := rc.requests()
	if len(got) != 7 {
		t.Fatalf("receiver got %d requests, want 7", len(got))
	}
	secrets := map[string]string{full.id: full.secret, partial.id: partial.secret, failed.id: failed.secret}
	bodies := map[string]map[string]any{} // by delivery id
	for _, r := range got {
		id := r.header.Get(webhook.HeaderDelivery)
		if _, dup := bodies[id]; dup {
			t.Fatalf("delivery %s sent twice", id)
		}
		wf := r.header.Get(webhook.HeaderWorkflowID)
		if err := webhook.Verify(secrets[wf], r.header.Get(webhook.HeaderSignature), r.body, 0, time.Now()); err != nil {
			t.Errorf("delivery %s of %s: signature: %v", id, wf, err)
		}
		if a := r.header.Get(webhook.HeaderAttempt); a != "1" {
			t.Errorf("delivery %s: attempt header %q", id, a)
		}
		var body map[string]any
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		if body["delivery_id"] != id || body["workflow_id"] != wf || body["event"] != r.header.Get(webhook.HeaderEvent) {
			t.Errorf("body %s does not match headers %v", r.body, r.header)
		}
		if _, err := time.Parse(time.RFC3339Nano, body["occurred_at"].(string)); err != nil {
			t.Errorf("occurred_at: %v", err)
		}
		bodies[id] = body
	}

	wantTypes := func(rows []projections.DeliveryRow, types ...string) {
		t.Helper()
		for i, r := range rows {
			if r.EventType != types[i] || r.Status != projections.DeliveryDelivered || r.Attempts != 1 ||
				r.LastStatusCode == nil || *r.LastStatusCode != 200 || r.LastError != nil || r.NextAttemptAt != nil || r.DeliveredAt == nil {
				t.Errorf("row %d: %+v, want a delivered %s", i, r, types[i])
			}
			log := logOf(t, r)
			if len(log) != 1 || !log[0].Delivered || log[0].GaveUp || log[0].Attempt != 1 || log[0].ResponseSnippet != "status 200" {
				t.Errorf("log of %s: %+v", r.DeliveryID, log)
			}
			if bodies[r.DeliveryID] == nil {
				t.Errorf("row %s was never received", r.DeliveryID)
			}
		}
	}
	wantTypes(fullRows, delivery.TypeStepCompleted, delivery.TypeStepCompleted, delivery.TypeWorkflowCompleted)
	wantTypes(partialRows, delivery.TypeStepCompleted, delivery.TypeWorkflowCompletedPartial)
	wantTypes(failedRows, delivery.TypeStepCompleted, delivery.TypeWorkflowFailed)

	step := bodies[fullRows[0].DeliveryID]
	if step["step"] != 1.0 || step["name"] != "Stakeholder Map" || step["summary"] != "Mapped the stakeholders." || step["credits"] != 100.0 {
		t.Errorf("step_completed payload %v", step)
	}
	done := bodies[fullRows[2].DeliveryID]
	if done["status"] != "completed" || done["quality_score"] != 85.0 || done["credits_used"] != 150.0 || done["total_credits"] != 150.0 ||
		done["steps_completed"] != 2.0 || done["total_steps"] != 2.0 || done["deliverable"] == nil {
		t.Errorf("workflow_completed payload %v", done)
	}
	part := bodies[partialRows[1].DeliveryID]
	incomplete, _ := part["incomplete_steps"].([]any)
	if part["status"] != "completed_partial" || part["quality_score"] != nil || part["total_credits"] != 100.0 ||
		part["steps_completed"] != 1.0 || part["total_steps"] != 2.0 || len(incomplete) != 1 || part["error"] != "Synthesis did not finish." {
		t.Errorf("workflow_completed_partial payload %v", part)
	}
	fail := bodies[failedRows[1].DeliveryID]
	if fail["status"] != "failed" || fail["error"] != "Every provider failed." || fail["code"] != "provider_exhausted" || fail["credits_used"] != 0.0 {
		t.Errorf("workflow_failed payload %v", fail)
	}

	var leases int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM job_leases WHERE kind = 'delivery'`).Scan(&leases); err != nil || leases != 0 {
		t.Errorf("%d leases left (%v)", leases, err)
	}
}

// TestRedeliveredMessageSchedulesOnce hands the handler the same message
// twice, then replays the whole topic to the consumer group: nothing is
// scheduled or sent twice.
func TestRedeliveredMessageSchedulesOnce(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, nil)
	f := newFlow(t, box, "webhook", rc.url())
	f.step1()

	events, err := store.Load(context.Background(), workflow.Stream(f.id))
	if err != nil {
		t.Fatal(err)
	}
	e := events[len(events)-1]
	msg := func() *message.Message {
		m := message.NewMessage(e.ID.String(), message.Payload(e.Data))
		m.Metadata.Set("type", e.Type)
		m.Metadata.Set("stream_id", e.StreamID)
		m.Metadata.Set("version", strconv.FormatInt(e.Version, 10))
		return m
	}
	d := webhooks.New(commands.NewRepositories(store), rc.sender(t), box, webhooks.Config{}, logger())
	for i := range 2 {
		if err := d.Handle(msg()); err != nil {
			t.Fatalf("handling #%d: %v", i+1, err)
		}
	}
	if n := deliveryStreams(t); n != 1 {
		t.Fatalf("%d deliveries scheduled, want 1", n)
	}

	stop := startDispatcher(t, rc, box, webhooks.Config{})
	f.complete()
	waitRows(t, f, 3)
	stop()
	if n := len(rc.requests()); n != 3 {
		t.Fatalf("receiver got %d requests, want 3", n)
	}

	// Replay the topic from the start for the group, as after a lost offset.
	if _, err := db.Pool.Exec(context.Background(), `UPDATE watermill_offsets_events SET offset_acked = 0, last_processed_transaction_id = '0'
		WHERE consumer_group = $1`, webhooks.DefaultConsumerGroup); err != nil {
		t.Fatal(err)
	}
	var last string
	if err := db.Pool.QueryRow(context.Background(), `SELECT max(transaction_id)::text FROM events`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	startDispatcher(t, rc, box, webhooks.Config{})
	deadline := time.Now().Add(45 * time.Second)
	for {
		var caught bool
		if err := db.Pool.QueryRow(context.Background(), `SELECT last_processed_transaction_id >= $1::text::xid8 FROM watermill_offsets_events
			WHERE consumer_group = $2`, last, webhooks.DefaultConsumerGroup).Scan(&caught); err != nil {
			t.Fatal(err)
		}
		if caught {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replay did not reach the end of the log")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if n := deliveryStreams(t); n != 3 {
		t.Fatalf("after the replay %d deliveries are scheduled, want 3", n)
	}
	if n := len(rc.requests()); n != 3 {
		t.Fatalf("after the replay the receiver got %d requests, want 3", n)
	}
}

// TestRetriesAfterServerErrorThenSucceeds: two 500s, then 200.
func TestRetriesAfterServerErrorThenSucceeds(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, func(_ http.ResponseWriter, _ *http.Request, n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	f := newFlow(t, box, "webhook", rc.url())
	f.step1()
	startDispatcher(t, rc, box, webhooks.Config{BackoffScale: 0.001})
	rows := waitRows(t, f, 1)
	r := rows[0]
	if r.Status != projections.DeliveryDelivered || r.Attempts != 3 || *r.LastStatusCode != 200 || r.LastError != nil {
		t.Fatalf("row %+v", r)
	}
	log := logOf(t, r)
	if len(log) != 3 {
		t.Fatalf("log %+v", log)
	}
	for i, a := range log[:2] {
		if a.Attempt != i+1 || a.Delivered || a.GaveUp || *a.StatusCode != 500 || a.Error == nil || a.NextAttemptAt == nil ||
			a.NextAttemptAt.Before(a.AttemptedAt) || log[i+1].AttemptedAt.Before(*a.NextAttemptAt) {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	if a := log[2]; !a.Delivered || a.NextAttemptAt != nil || a.Error != nil || a.Attempt != 3 {
		t.Errorf("attempt 3: %+v", a)
	}
	got := rc.requests()
	if len(got) != 3 {
		t.Fatalf("%d requests", len(got))
	}
	for i, r := range got {
		if r.header.Get(webhook.HeaderAttempt) != strconv.Itoa(i+1) || string(r.body) != string(got[0].body) {
			t.Errorf("request %d: attempt %s, body %s", i+1, r.header.Get(webhook.HeaderAttempt), r.body)
		}
		if err := webhook.Verify(f.secret, r.header.Get(webhook.HeaderSignature), r.body, 0, time.Now()); err != nil {
			t.Errorf("request %d: %v", i+1, err)
		}
	}
}

// TestHonoursRetryAfter: a 503 with Retry-After: 1 delays the retry by a
// second although the scaled backoff is milliseconds.
func TestHonoursRetryAfter(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) int {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	f := newFlow(t, box, "webhook", rc.url())
	f.step1()
	startDispatcher(t, rc, box, webhooks.Config{BackoffScale: 0.001})
	log := logOf(t, waitRows(t, f, 1)[0])
	if len(log) != 2 || !log[1].Delivered {
		t.Fatalf("log %+v", log)
	}
	if gap := log[1].AttemptedAt.Sub(log[0].AttemptedAt); gap < 900*time.Millisecond {
		t.Errorf("retry after %v, want about 1 s (Retry-After)", gap)
	}
}

// TestGivesUpAfterMaxAttempts: a receiver that always fails gets
// MaxAttempts attempts, then the delivery fails.
func TestGivesUpAfterMaxAttempts(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, func(http.ResponseWriter, *http.Request, int) int { return http.StatusBadGateway })
	f := newFlow(t, box, "webhook", rc.url())
	f.append(event.New{Data: workflow.Failed{Code: "provider_exhausted", Error: "boom"}})
	startDispatcher(t, rc, box, webhooks.Config{BackoffScale: 0.00001})
	r := waitRows(t, f, 1)[0]
	if r.Status != projections.DeliveryFailed || r.Attempts != delivery.MaxAttempts || *r.LastStatusCode != 502 || r.LastError == nil ||
		r.NextAttemptAt != nil || r.DeliveredAt != nil {
		t.Fatalf("row %+v", r)
	}
	log := logOf(t, r)
	if len(log) != delivery.MaxAttempts {
		t.Fatalf("%d attempts logged", len(log))
	}
	for i, a := range log {
		last := i == len(log)-1
		if a.Attempt != i+1 || a.GaveUp != last || (a.NextAttemptAt == nil) != last || a.Delivered {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if n := len(rc.requests()); n != delivery.MaxAttempts {
		t.Fatalf("receiver got %d requests, want %d", n, delivery.MaxAttempts)
	}
}

// TestClientErrorStopsAtOnce: a 400 is not retried.
func TestClientErrorStopsAtOnce(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, func(http.ResponseWriter, *http.Request, int) int { return http.StatusBadRequest })
	f := newFlow(t, box, "webhook", rc.url())
	f.step1()
	startDispatcher(t, rc, box, webhooks.Config{BackoffScale: 0.00001})
	r := waitRows(t, f, 1)[0]
	log := logOf(t, r)
	if r.Status != projections.DeliveryFailed || r.Attempts != 1 || *r.LastStatusCode != 400 || len(log) != 1 || !log[0].GaveUp || log[0].NextAttemptAt != nil {
		t.Fatalf("row %+v, log %+v", r, log)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.requests()); n != 1 {
		t.Fatalf("receiver got %d requests, want 1", n)
	}
}

// TestStopAbandonsAttemptAndReleasesLease: stopping during a slow attempt
// records nothing and hands the lease back; the next dispatcher makes the
// attempt again, with the same number.
func TestStopAbandonsAttemptAndReleasesLease(t *testing.T) {
	fresh(t)
	box := newBox(t)
	var slow atomic.Bool
	slow.Store(true)
	arrived := make(chan struct{}, 10)
	rc := newReceiver(t, func(_ http.ResponseWriter, r *http.Request, _ int) int {
		if slow.Load() {
			arrived <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
		}
		return http.StatusOK
	})
	f := newFlow(t, box, "webhook", rc.url())
	f.step1()
	stop := startDispatcher(t, rc, box, webhooks.Config{StopGrace: 100 * time.Millisecond})
	select {
	case <-arrived:
	case <-time.After(45 * time.Second):
		t.Fatal("the attempt never arrived")
	}
	start := time.Now()
	stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %v", took)
	}
	var leases int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM job_leases WHERE kind = 'delivery'`).Scan(&leases); err != nil || leases != 0 {
		t.Fatalf("%d leases after stopping (%v)", leases, err)
	}
	var attempted int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = $1`, delivery.EventDeliveryAttempted).Scan(&attempted); err != nil || attempted != 0 {
		t.Fatalf("%d attempts recorded for an abandoned attempt (%v)", attempted, err)
	}

	slow.Store(false)
	startDispatcher(t, rc, box, webhooks.Config{})
	r := waitRows(t, f, 1)[0]
	if r.Status != projections.DeliveryDelivered || r.Attempts != 1 {
		t.Fatalf("row %+v", r)
	}
	got := rc.requests()
	if len(got) < 1 || got[len(got)-1].header.Get(webhook.HeaderAttempt) != "1" {
		t.Fatalf("requests after restart: %d, last attempt %q", len(got), got[len(got)-1].header.Get(webhook.HeaderAttempt))
	}
}

// TestTwoDispatchersNeverSendAnAttemptTwice runs two dispatchers (two
// processes) polling fast over many deliveries: the leases keep each
// attempt to one of them.
func TestTwoDispatchersNeverSendAnAttemptTwice(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, func(_ http.ResponseWriter, _ *http.Request, n int) int {
		time.Sleep(10 * time.Millisecond)
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return http.StatusOK
	})
	var flows []*flow
	for range 8 {
		f := newFlow(t, box, "webhook", rc.url())
		flows = append(flows, f)
	}
	startDispatcher(t, rc, box, webhooks.Config{ID: "a", Poll: 5 * time.Millisecond, Concurrency: 4, BackoffScale: 0.001})
	startDispatcher(t, rc, box, webhooks.Config{ID: "b", Poll: 5 * time.Millisecond, Concurrency: 4, BackoffScale: 0.001})
	for _, f := range flows {
		f.step1()
		f.complete()
	}
	for _, f := range flows {
		for _, r := range waitRows(t, f, 3) {
			if r.Status != projections.DeliveryDelivered || r.Attempts != 2 {
				t.Errorf("row %+v", r)
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range rc.requests() {
		k := r.header.Get(webhook.HeaderDelivery) + "#" + r.header.Get(webhook.HeaderAttempt)
		if seen[k] {
			t.Errorf("attempt %s sent twice", k)
		}
		seen[k] = true
	}
	if len(seen) != 8*3*2 {
		t.Errorf("%d attempts sent, want %d", len(seen), 8*3*2)
	}
}

// TestUnopenableSecretFailsWithoutSending: a secret the service key cannot
// open (the key changed) fails the delivery at once, and nothing is sent
// unsigned.
func TestUnopenableSecretFailsWithoutSending(t *testing.T) {
	fresh(t)
	rc := newReceiver(t, nil)
	f := newFlow(t, newBox(t), "webhook", rc.url())
	f.step1()
	startDispatcher(t, rc, newBox(t), webhooks.Config{})
	r := waitRows(t, f, 1)[0]
	if r.Status != projections.DeliveryFailed || r.Attempts != 1 || r.LastStatusCode != nil || r.LastError == nil ||
		!strings.Contains(*r.LastError, "secret unavailable") {
		t.Fatalf("row %+v", r)
	}
	if n := len(rc.requests()); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
}
