package delivery

import (
	"slices"
	"testing"

	"svc/domain/hook"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

func TestEndpointTypeOf(t *testing.T) {
	for _, c := range []struct {
		d    event.Data
		want string
	}{
		{workflow.StepCompleted{}, "step_completed"},
		{workflow.StepIncomplete{}, "step_failed"},
		{workflow.Completed{}, "workflow_completed"},
		{workflow.Completed{Partial: true}, "workflow_completed"},
		{workflow.Failed{}, "workflow_failed"},
		{workflow.Halted{}, "workflow_failed"},
		{workflow.Rejected{}, "workflow_failed"},
		{workflow.ApprovalRequested{}, "approval_requested"},
		{workflow.TimedOut{}, "timed_out"},
		{workflow.Cancelled{}, ""},
	} {
		got, ok := EndpointTypeOf(c.d)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%T: %q %v, want %q", c.d, got, ok, c.want)
		}
		if ok && !slices.Contains(hook.Events, got) {
			t.Errorf("%T: %q is not an endpoint event", c.d, got)
		}
		if ok && !slices.Contains(EndpointSourceTypes(), c.d.EventType()) {
			t.Errorf("%T not among the source types", c.d)
		}
	}
	// every endpoint event has a source
	seen := map[string]bool{}
	for _, d := range []event.Data{workflow.StepCompleted{}, workflow.StepIncomplete{}, workflow.Completed{}, workflow.Failed{},
		workflow.ApprovalRequested{}, workflow.TimedOut{}} {
		typ, _ := EndpointTypeOf(d)
		seen[typ] = true
	}
	for _, e := range hook.Events {
		if !seen[e] {
			t.Errorf("no source for %s", e)
		}
	}
	if a, b := EndpointDeliveryID("ev", "e1"), EndpointDeliveryID("ev", "e2"); a == b || a != EndpointDeliveryID("ev", "e1") || a == ID("ev", "e1") {
		t.Errorf("ids %s %s", a, b)
	}
}
