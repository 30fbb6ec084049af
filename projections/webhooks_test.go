package projections_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore/event"
	"svc/projections"
)

// appendDelivery schedules a delivery of workflow wf of org and records
// the given attempts, as the dispatcher would.
func appendDelivery(t *testing.T, org, wf, typ string, attempts ...delivery.Attempted) string {
	t.Helper()
	ctx := context.Background()
	id := delivery.ID(uuid.NewString(), "webhook-x")
	m := event.Metadata{OrgID: org, Actor: "system"}
	s := delivery.Scheduled{DeliveryID: id, OrgID: org, WorkflowID: wf, Event: typ, URL: "https://example.com/hook",
		WebhookID: "webhook-x", SourceEventID: uuid.NewString(), Body: `{"event":"` + typ + `"}`, NextAttemptAt: time.Now().Add(-time.Second).UTC()}
	if _, err := store.Append(ctx, delivery.Stream(id), event.NewStream, event.New{Data: s, Metadata: m}); err != nil {
		t.Fatal(err)
	}
	for i, a := range attempts {
		if _, err := store.Append(ctx, delivery.Stream(id), int64(i), event.New{Data: a, Metadata: m}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func ptr[T any](v T) *T { return &v }

func TestWebhookDeliveriesModel(t *testing.T) {
	db.Reset(t)
	ctx := context.Background()
	ps := []projections.Projection{projections.WebhookDeliveries{}}
	r := newRunner(t, ps)
	org, other, wf, otherWF := uuid.NewString(), uuid.NewString(), workflow.NewID(), workflow.NewID()
	now := time.Now().UTC()
	later := now.Add(time.Hour)

	delivered := appendDelivery(t, org, wf, delivery.TypeStepCompleted,
		delivery.Attempted{Attempt: 1, AttemptedAt: now, StatusCode: ptr(500), Error: ptr("500 Internal Server Error"), NextAttemptAt: &now},
		delivery.Attempted{Attempt: 2, AttemptedAt: now, StatusCode: ptr(200), Delivered: true, DurationMS: 12, ResponseSnippet: "ok"})
	waiting := appendDelivery(t, org, wf, delivery.TypeStepCompleted,
		delivery.Attempted{Attempt: 1, AttemptedAt: now, Error: ptr("connection refused"), NextAttemptAt: &later})
	due := appendDelivery(t, org, wf, delivery.TypeWorkflowCompleted)
	failed := appendDelivery(t, other, otherWF, delivery.TypeWorkflowFailed,
		delivery.Attempted{Attempt: 1, AttemptedAt: now, StatusCode: ptr(410), Error: ptr("gone"), GaveUp: true})
	catchUp(t, r)

	rows, err := projections.Deliveries(ctx, db.Pool, org, wf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows for the workflow, want 3", len(rows))
	}
	byID := map[string]projections.DeliveryRow{}
	for _, row := range rows {
		byID[row.DeliveryID] = row
	}
	if d := byID[delivered]; d.Status != projections.DeliveryDelivered || d.Attempts != 2 || *d.LastStatusCode != 200 || d.LastError != nil ||
		d.NextAttemptAt != nil || d.DeliveredAt == nil || d.URL != "https://example.com/hook" {
		t.Errorf("delivered: %+v", d)
	}
	var log []delivery.Attempted
	if err := json.Unmarshal(byID[delivered].Log, &log); err != nil || len(log) != 2 || log[0].Attempt != 1 || !log[1].Delivered || log[1].ResponseSnippet != "ok" {
		t.Errorf("log %s: %v", byID[delivered].Log, err)
	}
	if d := byID[waiting]; d.Status != projections.DeliveryPending || d.Attempts != 1 || d.LastStatusCode != nil ||
		*d.LastError != "connection refused" || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(later.Truncate(time.Microsecond)) {
		t.Errorf("waiting: %+v", d)
	}
	if d := byID[due]; d.Status != projections.DeliveryPending || d.Attempts != 0 || string(d.Log) != "[]" || d.EventType != delivery.TypeWorkflowCompleted {
		t.Errorf("due: %+v", d)
	}
	if rows, err := projections.Deliveries(ctx, db.Pool, org, "wr_none"); err != nil || len(rows) != 0 {
		t.Errorf("unknown workflow: %v %v", rows, err)
	}
	if rows, err := projections.Deliveries(ctx, db.Pool, other, wf); err != nil || len(rows) != 0 {
		t.Errorf("another org sees %v %v", rows, err)
	}

	ids, err := projections.DueDeliveries(ctx, db.Pool, 10)
	if err != nil || !reflect.DeepEqual(ids, []string{due}) {
		t.Fatalf("due %v %v, want [%s]", ids, err, due)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO job_leases (kind, job_id, owner, expires_at) VALUES ('delivery', $1, 'x', now() + interval '1 minute')`, due); err != nil {
		t.Fatal(err)
	}
	if ids, err := projections.DueDeliveries(ctx, db.Pool, 10); err != nil || len(ids) != 0 {
		t.Fatalf("a leased delivery is due: %v %v", ids, err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE job_leases SET expires_at = now() - interval '1 second' WHERE kind = 'delivery'`); err != nil {
		t.Fatal(err)
	}
	if ids, err := projections.DueDeliveries(ctx, db.Pool, 10); err != nil || len(ids) != 1 {
		t.Fatalf("an expired lease hides the delivery: %v %v", ids, err)
	}
	if rows, err := projections.Deliveries(ctx, db.Pool, other, otherWF); err != nil || len(rows) != 1 || rows[0].DeliveryID != failed ||
		rows[0].Status != projections.DeliveryFailed || rows[0].NextAttemptAt != nil || *rows[0].LastStatusCode != 410 {
		t.Errorf("failed: %+v %v", rows, err)
	}

	live := dump(t, ps)
	if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(2)).Rebuild(ctx, ps[0], nil); err != nil {
		t.Fatal(err)
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
	if len(live["webhook_deliveries"]) != 4 {
		t.Fatalf("%d rows", len(live["webhook_deliveries"]))
	}
}
