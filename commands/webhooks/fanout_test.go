package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/commands/webhooks"
	"svc/domain/delivery"
	"svc/domain/hook"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// endpoint is a workspace webhook endpoint appended directly to the store.
type endpoint struct {
	id, org, ws, secret string
}

// newEndpoint creates an endpoint of workspace ws of org subscribed to
// events, its secret sealed by box.
func newEndpoint(t *testing.T, box *secrets.Box, org, ws, url string, active bool, events ...string) endpoint {
	t.Helper()
	e := endpoint{id: uuid.NewString(), org: org, ws: ws, secret: webhook.NewSecret()}
	c, err := hook.Create(e.id, org, ws, hook.Settings{URL: url, Events: events, Active: active}, box.Seal([]byte(e.secret)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(context.Background(), hook.Stream(e.id), event.NewStream, event.New{Data: c, Metadata: event.Metadata{OrgID: org}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// change appends what decide returns for the endpoint as it stands.
func (e endpoint) change(t *testing.T, decide func(h *hook.Endpoint) []event.Data) {
	t.Helper()
	_, _, err := commands.NewRepositories(store).Endpoints.Update(context.Background(), e.org, e.id,
		func(h *hook.Endpoint) ([]event.Data, error) { return decide(h), nil })
	if err != nil {
		t.Fatal(err)
	}
}

// load is the endpoint's aggregate now.
func (e endpoint) load(t *testing.T) *hook.Endpoint {
	t.Helper()
	h, err := commands.NewRepositories(store).Endpoints.Get(context.Background(), e.id)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// newFlowIn plans and queues a polling workflow of org in workspace ws.
func newFlowIn(t *testing.T, org, ws string) *flow {
	t.Helper()
	f := &flow{t: t, id: workflow.NewID(), org: org, version: -1}
	planned := workflow.Planned{WorkflowID: f.id, OrgID: org, WorkspaceID: ws, TaskType: "strategy",
		ValueClass: "strategic", Description: "Plan the launch", Title: "Launch plan", RigorLevel: "standard", TotalSteps: len(planSteps),
		Credits: 150, Execution: "standard", Plan: json.RawMessage(`{}`), Preferences: json.RawMessage(`{}`), ContextPersisted: true,
		Steps: planSteps}
	queued := workflow.Queued{WorkflowID: f.id, OrgID: org, Tier: "pro", Mode: "full", Delivery: workflow.Delivery{Method: "polling"}, Estimated: 150}
	f.append(event.New{Data: planned}, event.New{Data: queued}, event.New{Data: workflow.Started{Worker: "test"}})
	return f
}

// endpointRow is a delivery to a workspace endpoint in the read model.
type endpointRow struct {
	id, endpoint, event, status string
	attempts                    int
	lastError                   *string
}

// endpointRows lists the deliveries to workspace endpoints.
func endpointRows(t *testing.T) []endpointRow {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT delivery_id, endpoint_id, event_type, status, attempts, last_error
		FROM webhook_deliveries WHERE endpoint_id IS NOT NULL ORDER BY created_at, delivery_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []endpointRow
	for rows.Next() {
		var r endpointRow
		if err := rows.Scan(&r.id, &r.endpoint, &r.event, &r.status, &r.attempts, &r.lastError); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// waitEndpointRows waits until n deliveries to endpoints are settled.
func waitEndpointRows(t *testing.T, n int) []endpointRow {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows := endpointRows(t)
		settled := len(rows) == n
		for _, r := range rows {
			settled = settled && r.status != projections.DeliveryPending
		}
		if settled {
			return rows
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries to endpoints, want %d settled: %+v", len(rows), n, rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEndpointDeliveries: the events of a workspace's workflows reach the
// endpoints subscribed to them when they happened, once each, through two
// dispatchers at once, signed with the endpoint's secret, with a stable id
// and the documented payload; other workspaces', inactive and later
// endpoints get none; an endpoint turned off after an event gets its
// delivery recorded as given up, not sent; a restart schedules nothing
// again.
func TestEndpointDeliveries(t *testing.T) {
	fresh(t)
	box := newBox(t)
	rc := newReceiver(t, nil)
	org, ws := uuid.NewString(), uuid.NewString()
	all := hook.Events
	steps := newEndpoint(t, box, org, ws, rc.url()+"?e=steps", true, "step_completed", "workflow_completed")
	failures := newEndpoint(t, box, org, ws, rc.url()+"?e=failures", true, "step_failed")
	inactive := newEndpoint(t, box, org, ws, rc.url()+"?e=inactive", false, all...)
	elsewhere := newEndpoint(t, box, org, uuid.NewString(), rc.url()+"?e=elsewhere", true, all...)
	offLater := newEndpoint(t, box, org, ws, rc.url()+"?e=off-later", true, "workflow_completed")

	f := newFlowIn(t, org, ws)
	f.step1()
	f.complete()
	later := newEndpoint(t, box, org, ws, rc.url()+"?e=later", true, all...)
	off := false
	offLater.change(t, func(h *hook.Endpoint) []event.Data {
		d, _ := h.Update(hook.Change{Active: &off})
		return d
	})

	startDispatcher(t, rc, box, webhooks.Config{})
	stopSecond := startDispatcher(t, rc, box, webhooks.Config{})
	rows := waitEndpointRows(t, 4)
	time.Sleep(300 * time.Millisecond) // room for a duplicate
	if n := len(endpointRows(t)); n != 4 {
		t.Fatalf("%d deliveries, want 4", n)
	}
	byEndpoint := map[string][]endpointRow{}
	for _, r := range rows {
		byEndpoint[r.endpoint] = append(byEndpoint[r.endpoint], r)
	}
	for _, e := range []endpoint{failures, inactive, elsewhere, later} {
		if len(byEndpoint[e.id]) != 0 {
			t.Errorf("endpoint %s got %+v", e.id, byEndpoint[e.id])
		}
	}
	if got := byEndpoint[offLater.id]; len(got) != 1 || got[0].status != projections.DeliveryFailed || got[0].lastError == nil ||
		!strings.Contains(*got[0].lastError, "disabled") {
		t.Errorf("endpoint turned off after the event: %+v", got)
	}
	var events []string
	for _, r := range byEndpoint[steps.id] {
		if r.status != projections.DeliveryDelivered || r.attempts != 1 {
			t.Errorf("delivery %+v", r)
		}
		events = append(events, r.event)
	}
	slices.Sort(events)
	if !slices.Equal(events, []string{"step_completed", "step_completed", "workflow_completed"}) {
		t.Errorf("events %v", events)
	}
	// a workflow's own delivery log does not list them
	if own, err := projections.Deliveries(context.Background(), db.Pool, org, f.id); err != nil || len(own) != 0 {
		t.Errorf("workflow's own deliveries %+v, %v", own, err)
	}

	got := rc.requests()
	if len(got) != 3 {
		t.Fatalf("receiver got %d requests, want 3", len(got))
	}
	for _, r := range got {
		if r.header.Get("User-Agent") != webhook.UserAgent {
			t.Errorf("user agent %q", r.header.Get("User-Agent"))
		}
		if err := webhook.Verify(steps.secret, r.header.Get(webhook.HeaderSignature), r.body, 0, time.Now()); err != nil {
			t.Errorf("signature: %v", err)
		}
		var p map[string]any
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		eventID, _ := p["event_id"].(string)
		data, _ := p["data"].(map[string]any)
		if p["id"] != r.header.Get(webhook.HeaderDelivery) || p["id"] != delivery.EndpointDeliveryID(eventID, steps.id) ||
			p["type"] != r.header.Get(webhook.HeaderEvent) || p["webhook_id"] != steps.id || p["workspace_id"] != ws ||
			p["workflow_id"] != f.id || r.header.Get(webhook.HeaderWorkflowID) != f.id || data["title"] != "Launch plan" ||
			p["sequence"] == nil || p["created_at"] == nil {
			t.Errorf("delivery %v: %s", r.header, r.body)
		}
		switch p["type"] {
		case "step_completed":
			if data["status"] == nil || data["step"] == nil || data["name"] == nil || data["credits"] == nil {
				t.Errorf("step_completed data %v", data)
			}
		case "workflow_completed":
			if data["status"] != workflow.StatusCompleted || data["partial"] != false || data["quality_score"] != 85.0 ||
				data["deliverable"] == nil {
				t.Errorf("workflow_completed data %v", data)
			}
		}
	}

	// restart: nothing is scheduled again
	stopSecond()
	before := deliveryStreams(t)
	startDispatcher(t, rc, box, webhooks.Config{})
	time.Sleep(300 * time.Millisecond)
	if n := deliveryStreams(t); n != before || len(rc.requests()) != 3 {
		t.Fatalf("after a restart: %d deliveries (%d before), %d requests", n, before, len(rc.requests()))
	}
	// the later endpoint gets what happens after its creation
	f2 := newFlowIn(t, org, ws)
	f2.append(event.New{Data: workflow.StepIncomplete{Step: 1, Name: "Stakeholder Map", Reason: "provider_exhausted"}})
	rows = waitEndpointRows(t, 6)
	var toFailures, toLater int
	for _, r := range rows {
		if r.event == "step_failed" && r.endpoint == failures.id && r.status == projections.DeliveryDelivered {
			toFailures++
		}
		if r.event == "step_failed" && r.endpoint == later.id && r.status == projections.DeliveryDelivered {
			toLater++
		}
	}
	if toFailures != 1 || toLater != 1 {
		t.Fatalf("step_failed deliveries: %+v", rows)
	}
}

// TestFanoutWaitsForEndpointsModel: the fan-out never decides an event
// before the endpoints read model has applied the endpoint events that
// precede it, so an endpoint created just before an event is not missed.
func TestFanoutWaitsForEndpointsModel(t *testing.T) {
	db.Reset(t)
	ctx := context.Background()
	deliveries := projections.NewRunner(store, quiet, []projections.Projection{projections.WebhookDeliveries{}}, projections.WithPoll(20*time.Millisecond))
	endpoints := projections.NewRunner(store, quiet, []projections.Projection{projections.WebhookEndpoints{}}, projections.WithPoll(20*time.Millisecond))
	for _, r := range []*projections.Runner{deliveries, endpoints} {
		if err := r.Setup(ctx); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = deliveries.Run(runCtx) }()
	for _, group := range []string{webhooks.DefaultConsumerGroup, webhooks.FanoutGroup} {
		if _, _, err := eventstore.StartAtHead(ctx, db.Pool, group); err != nil {
			t.Fatal(err)
		}
	}
	box := newBox(t)
	rc := newReceiver(t, nil)
	org, ws := uuid.NewString(), uuid.NewString()
	e := newEndpoint(t, box, org, ws, rc.url(), true, "step_completed")
	f := newFlowIn(t, org, ws)
	f.step1()
	startDispatcher(t, rc, box, webhooks.Config{})
	time.Sleep(500 * time.Millisecond)
	if n := deliveryStreams(t); n != 0 {
		t.Fatalf("%d deliveries decided before the endpoints model had the endpoint", n)
	}
	go func() { _ = endpoints.Run(runCtx) }()
	rows := waitEndpointRows(t, 1)
	if rows[0].endpoint != e.id || rows[0].status != projections.DeliveryDelivered {
		t.Fatalf("delivery %+v", rows[0])
	}
}

// TestEndpointRotationAndDisabling: during a rotation's overlap each
// delivery carries a signature by each secret; deliveries that give up
// count in a run that a delivery arriving ends; DisableAfter of them in a
// row disable the endpoint (an event), after which nothing is scheduled
// for it.
func TestEndpointRotationAndDisabling(t *testing.T) {
	fresh(t)
	box := newBox(t)
	var refuse sync.Map // workflow id: true when its deliveries are refused
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) int {
		if v, _ := refuse.Load(r.Header.Get(webhook.HeaderWorkflowID)); v == true {
			return http.StatusBadRequest // not retried: gives up at once
		}
		return http.StatusNoContent
	})
	org, ws := uuid.NewString(), uuid.NewString()
	e := newEndpoint(t, box, org, ws, rc.url(), true, "step_completed")
	newSecret := webhook.NewSecret()
	e.change(t, func(h *hook.Endpoint) []event.Data {
		r, err := h.RotateSecret(box.Seal([]byte(newSecret)), time.Now(), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return []event.Data{r}
	})
	startDispatcher(t, rc, box, webhooks.Config{DisableAfter: 3})

	f := newFlowIn(t, org, ws)
	f.step1()
	waitEndpointRows(t, 1)
	got := rc.requests()
	sig := got[0].header.Get(webhook.HeaderSignature)
	if strings.Count(sig, "v1=") != 2 {
		t.Fatalf("signature during the overlap %q", sig)
	}
	for _, s := range []string{newSecret, e.secret} {
		if err := webhook.Verify(s, sig, got[0].body, 0, time.Now()); err != nil {
			t.Errorf("verify: %v", err)
		}
	}

	// two give up, one arrives: the run ends
	for i := range 3 {
		g := newFlowIn(t, org, ws)
		refuse.Store(g.id, i < 2)
		g.step1()
		waitEndpointRows(t, 2+i)
	}
	if h := e.load(t); h.Failures() != 0 || !h.Settings().Active {
		t.Fatalf("after a recovery: %d failures, active %v", h.Failures(), h.Settings().Active)
	}
	// three in a row: disabled
	for i := range 3 {
		g := newFlowIn(t, org, ws)
		refuse.Store(g.id, true)
		g.step1()
		waitEndpointRows(t, 5+i)
	}
	h := e.load(t)
	if h.Settings().Active || h.Failures() != 3 {
		t.Fatalf("after 3 failures in a row: active %v, %d failures", h.Settings().Active, h.Failures())
	}
	types := streamTypes(t, hook.Stream(e.id))
	want := []string{hook.EventCreated, hook.EventSecretRotated, hook.EventDeliveryFailed, hook.EventDeliveryFailed, hook.EventRecovered,
		hook.EventDeliveryFailed, hook.EventDeliveryFailed, hook.EventDeliveryFailed, hook.EventDisabled}
	if !slices.Equal(types, want) {
		t.Fatalf("endpoint stream %v, want %v", types, want)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		row, err := queries(t).WebhookEndpoint(context.Background(), ws, e.id)
		if err == nil && !row.Active {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("read model: %+v %v", row, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// disabled: the next event is not scheduled for it
	g := newFlowIn(t, org, ws)
	g.step1()
	time.Sleep(300 * time.Millisecond)
	if n := len(endpointRows(t)); n != 7 {
		t.Fatalf("%d deliveries after disabling, want 7", n)
	}
}

// streamTypes lists the event types of stream in order.
func streamTypes(t *testing.T, stream string) []string {
	t.Helper()
	events, err := store.Load(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

// queries reads the read models.
func queries(t *testing.T) *projections.Queries {
	t.Helper()
	return projections.NewQueries(store, commands.NewRepositories(store).Workflows, nil, quiet)
}
