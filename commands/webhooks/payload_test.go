package webhooks

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/adapters/webhook"
	"svc/domain"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

func TestDeliveryIDDeterministic(t *testing.T) {
	e := uuid.NewString()
	a, b := delivery.ID(e, "webhook-1"), delivery.ID(e, "webhook-1")
	if a != b || len(a) != len("dlv_")+32 || a[:4] != "dlv_" {
		t.Fatalf("ids %q %q", a, b)
	}
	if delivery.ID(e, "webhook-2") == a || delivery.ID(uuid.NewString(), "webhook-1") == a {
		t.Fatal("different sources share an id")
	}
}

// stream builds a workflow stream in memory: planned, queued for a webhook,
// then the given events.
func stream(t *testing.T, tail ...event.New) []event.Event {
	t.Helper()
	id, org := workflow.NewID(), uuid.NewString()
	head := []event.New{
		{Data: workflow.Planned{WorkflowID: id, OrgID: org, TotalSteps: 2, Steps: []workflow.PlannedStep{
			{Step: 1, Name: "Stakeholder Map", Kind: workflow.KindContent, Credits: 100},
			{Step: 2, Name: "Synthesis", Kind: workflow.KindSynthesis, Credits: 50}}}},
		{Data: workflow.Queued{WorkflowID: id, OrgID: org, Delivery: workflow.Delivery{Method: "webhook", WebhookURL: "https://example.com/h"}}},
		{Data: workflow.Started{Worker: "w"}},
		{Data: workflow.StepCompleted{Step: 1, Name: "Stakeholder Map", Summary: "s", Credits: 100}},
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out []event.Event
	for i, ne := range append(head, tail...) {
		data, err := json.Marshal(ne.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, event.Event{ID: uuid.New(), StreamID: workflow.Stream(id), Version: int64(i), Type: ne.Type(), Data: data,
			RecordedAt: at.Add(time.Duration(i) * time.Second)})
	}
	return out
}

// payloadOf renders the payload of the last event of events.
func payloadOf(t *testing.T, events []event.Event) (string, map[string]any) {
	t.Helper()
	wf, err := workflow.Load(events)
	if err != nil {
		t.Fatal(err)
	}
	src := events[len(events)-1]
	data, err := domain.Events().Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	typ, ok := delivery.TypeOf(data)
	if !ok {
		t.Fatalf("%s: not delivered", src.Type)
	}
	b, err := buildPayload(typ, "dlv_x", wf, src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["event"] != typ || m["delivery_id"] != "dlv_x" || m["workflow_id"] != wf.ID() || m["sequence"] != float64(src.Version) ||
		m["occurred_at"] != src.RecordedAt.Format(time.RFC3339Nano) {
		t.Errorf("%s envelope: %v", typ, m)
	}
	return typ, m
}

func TestPayloads(t *testing.T) {
	typ, m := payloadOf(t, stream(t))
	if typ != delivery.TypeStepCompleted || m["step"] != 1.0 || m["credits"] != 100.0 || m["credits_used"] != 100.0 || m["status"] != "executing" {
		t.Errorf("%s: %v", typ, m)
	}

	typ, m = payloadOf(t, stream(t, event.New{Data: workflow.Halted{Step: 2, Reason: "missing context",
		BlockingIssues: []string{"no repository"}, CreditsSaved: 50}}))
	if typ != delivery.TypeWorkflowHalted || m["status"] != "halted" || m["halted_at_step"] != 2.0 || m["halt_reason"] != "missing context" ||
		m["credits_saved_by_halt"] != 50.0 || len(m["resolution_options"].([]any)) != 4 || m["error"] == nil {
		t.Errorf("%s: %v", typ, m)
	}

	typ, m = payloadOf(t, stream(t, event.New{Data: workflow.TimedOut{IdleSeconds: 1900}}))
	if typ != delivery.TypeTimedOut || m["status"] != "timed_out" || m["error"] == nil || m["steps_completed"] != 1.0 {
		t.Errorf("%s: %v", typ, m)
	}

	typ, m = payloadOf(t, stream(t, event.New{Data: workflow.Completed{Partial: true}}))
	if typ != delivery.TypeWorkflowCompletedPartial || m["incomplete_steps"] == nil || m["quality_score"] != nil {
		t.Errorf("%s: %v", typ, m)
	}

	if _, ok := delivery.TypeOf(workflow.StepStarted{}); ok || delivery.Delivers(workflow.EventStepStarted) {
		t.Error("StepStarted is delivered")
	}
}

func TestOutcome(t *testing.T) {
	wrapped := fmt.Errorf("webhook: deliver dlv_1: %w: 503", webhook.ErrStatus)
	o := outcome("dlv_1", webhook.Result{StatusCode: 503, Err: wrapped, Retryable: true, RetryAfter: time.Minute, Duration: time.Second})
	if o.StatusCode != 503 || o.Err != "webhook: receiver answered non-2xx: 503" || !o.Retryable || o.RetryAfter != time.Minute || o.Duration != time.Second {
		t.Errorf("failed attempt: %+v", o)
	}
	if o := outcome("dlv_1", webhook.Result{StatusCode: 204, Delivered: true}); !o.Delivered || o.Err != "" {
		t.Errorf("delivered: %+v", o)
	}
}
