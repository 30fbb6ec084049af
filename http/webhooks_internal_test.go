package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
	"svc/test/pgtest"
)

// TestWebhookDeliveriesHandler calls the handler directly (the route is
// registered in server.go) against the package's test database.
func TestWebhookDeliveriesHandler(t *testing.T) {
	ctx := context.Background()
	pool, err := eventstore.Connect(ctx, pgtest.URL("httpapi")) // the database TestMain made
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := eventstore.New(pool)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner := projections.NewRunner(st, quiet, []projections.Projection{projections.Workflows{}, projections.WebhookDeliveries{}})
	if err := runner.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	s := &Server{queries: projections.NewQueries(st, commands.NewRepositories(st).Workflows, runner, quiet), log: quiet}
	org, stranger := uuid.NewString(), uuid.NewString()
	wf := workflow.NewID()
	if _, err := st.Append(ctx, workflow.Stream(wf), event.NewStream, event.New{Data: workflow.Planned{WorkflowID: wf, OrgID: org, WorkspaceID: uuid.NewString(), TotalSteps: 1}, Metadata: event.Metadata{OrgID: org}}); err != nil {
		t.Fatal(err)
	}

	call := func(orgID, query string) (*httptest.ResponseRecorder, error) {
		r := httptest.NewRequest(http.MethodGet, "/api/rigor/webhooks/deliveries"+query, nil)
		c := context.WithValue(r.Context(), keyPrincipal, projections.Principal{OrgID: orgID})
		c = context.WithValue(c, keyRequestID, "req_test")
		w := httptest.NewRecorder()
		return w, s.webhookDeliveries(w, r.WithContext(c))
	}
	for _, tc := range []struct {
		org, query string
		status     int
		code       string
	}{
		{org, "", 400, "missing_field"},
		{org, "?workflow_id=", 400, "missing_field"},
		{org, "?workflow_id=nope", 404, "not_found"},
		{org, "?workflow_id=" + workflow.NewID(), 404, "not_found"},
		{stranger, "?workflow_id=" + wf, 404, "not_found"},
	} {
		_, err := call(tc.org, tc.query)
		var ae *apiError
		if !errors.As(err, &ae) || ae.Status != tc.status || ae.Code != tc.code {
			t.Errorf("%s: %v, want %d %s", tc.query, err, tc.status, tc.code)
		}
	}

	// Without deliveries: an empty list.
	w, err := call(org, "?workflow_id="+wf)
	if err != nil || w.Code != 200 {
		t.Fatalf("%v %d", err, w.Code)
	}
	var empty struct {
		Deliveries []any `json:"deliveries"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &empty); err != nil || empty.Deliveries == nil || len(empty.Deliveries) != 0 {
		t.Fatalf("body %s: %v", w.Body, err)
	}

	id := delivery.ID(uuid.NewString(), "webhook-y")
	now := time.Now().UTC()
	code := 200
	m := event.Metadata{OrgID: org}
	if _, err := st.Append(ctx, delivery.Stream(id), event.NewStream,
		event.New{Metadata: m, Data: delivery.Scheduled{DeliveryID: id, OrgID: org, WorkflowID: wf,
			Event: delivery.TypeStepCompleted, URL: "https://example.com/h", WebhookID: "webhook-y", Body: "{}", NextAttemptAt: now}},
		event.New{Metadata: m, Data: delivery.Attempted{Attempt: 1, AttemptedAt: now,
			StatusCode: &code, Delivered: true, DurationMS: 5, ResponseSnippet: "ok"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := runner.CatchUp(ctx, projections.WebhookDeliveries{}); err != nil {
			t.Fatal(err)
		}
		if rows, err := projections.Deliveries(ctx, pool, org, wf); err == nil && len(rows) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the projection did not reach the delivery")
		}
		time.Sleep(20 * time.Millisecond)
	}
	w, err = call(org, "?workflow_id="+wf)
	if err != nil || w.Code != 200 {
		t.Fatalf("%v %d", err, w.Code)
	}
	var body struct {
		OK         bool             `json:"ok"`
		RequestID  string           `json:"request_id"`
		WorkflowID string           `json:"workflow_id"`
		Deliveries []map[string]any `json:"deliveries"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if !body.OK || body.RequestID != "req_test" || body.WorkflowID != wf || len(body.Deliveries) != 1 {
		t.Fatalf("body %s", w.Body)
	}
	d := body.Deliveries[0]
	log, _ := d["log"].([]any)
	for _, k := range []string{"delivery_id", "event_type", "url", "status", "attempts", "last_status_code", "last_error", "next_attempt_at", "created_at", "delivered_at", "log"} {
		if _, ok := d[k]; !ok {
			t.Errorf("delivery has no %s: %v", k, d)
		}
	}
	if d["delivery_id"] != id || d["status"] != "delivered" || d["attempts"] != 1.0 || d["last_status_code"] != 200.0 || len(log) != 1 {
		t.Errorf("delivery %v", d)
	}
}
