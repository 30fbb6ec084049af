package notification_test

import (
	"testing"

	"svc/domain/credit"
	"svc/domain/deletion"
	"svc/domain/hook"
	"svc/domain/notification"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

func TestFrom(t *testing.T) {
	wf := workflow.Stream("wr_1")
	for _, c := range []struct {
		e     event.Event
		title string
		typ   string
		ok    bool
	}{
		{event.Event{StreamID: wf, Payload: workflow.Completed{}}, "Scan", notification.TypeWorkflowCompleted, true},
		{event.Event{StreamID: wf, Payload: workflow.Failed{Error: "x"}}, "", notification.TypeWorkflowFailed, true},
		{event.Event{StreamID: wf, Payload: workflow.Halted{}}, "", notification.TypeWorkflowFailed, true},
		{event.Event{StreamID: wf, Payload: workflow.TimedOut{}}, "", notification.TypeWorkflowTimedOut, true},
		{event.Event{StreamID: wf, Payload: workflow.ApprovalRequested{}}, "", notification.TypeApprovalRequested, true},
		{event.Event{Payload: credit.AutoReloadSucceeded{OrgID: "o"}}, "", notification.TypeAutoReloadSucceeded, true},
		{event.Event{Payload: credit.AutoReloadFailed{OrgID: "o"}}, "", notification.TypeAutoReloadFailed, true},
		{event.Event{Payload: workspace.MemberAdded{OrgID: "o", Via: "invite"}}, "", notification.TypeMemberJoined, true},
		{event.Event{Payload: workspace.MemberAdded{OrgID: "o", Via: "signup"}}, "", "", false},
		{event.Event{StreamID: wf, Payload: workflow.Cancelled{}}, "", "", false},
		{event.Event{Payload: deletion.Requested{OrgID: "o", RequestID: "r"}}, "", notification.TypeDeletionRequested, true},
		{event.Event{Payload: hook.Disabled{OrgID: "o", WorkspaceID: "w", EndpointID: "e", URL: "https://x", Failures: 20}}, "", notification.TypeWebhookDisabled, true},
		{event.Event{Payload: deletion.Requested{OrgID: "o", RequestID: "r"}}, "", notification.TypeDeletionRequested, true},
	} {
		n, ok := notification.From(c.e, c.title)
		if ok != c.ok || n.Type != c.typ || (ok && (n.Title == "" || n.Body == "" || n.ActionURL == "" || n.ActionLabel == "")) {
			t.Errorf("%T: %+v %v", c.e.Payload, n, ok)
		}
		if ok && c.e.StreamID == wf && n.WorkflowID != "wr_1" {
			t.Errorf("%T: workflow %q", c.e.Payload, n.WorkflowID)
		}
	}
	if n, _ := notification.From(event.Event{StreamID: wf, Payload: workflow.Completed{}}, "Scan"); n.Body != `Your workflow "Scan" finished. Its deliverable is ready.` {
		t.Errorf("body %q", n.Body)
	}
}
