package notification

import (
	"fmt"

	"svc/domain/credit"
	"svc/domain/deletion"
	"svc/domain/hook"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Notification types (spec B shows workflow_completed; the rest are ours).
const (
	TypeWorkflowCompleted   = "workflow_completed"
	TypeWorkflowFailed      = "workflow_failed"
	TypeApprovalRequested   = "approval_requested"
	TypeWorkflowTimedOut    = "workflow_timed_out"
	TypeAutoReloadSucceeded = "auto_reload_succeeded"
	TypeAutoReloadFailed    = "auto_reload_failed"
	TypeMemberJoined        = "member_joined"
	TypeWebhookDisabled     = "webhook_disabled"
	TypeDeletionRequested   = "deletion_requested"
)

// Notice is what an event tells an organization: the notification
// without its id, organization and time (the projection's).
type Notice struct {
	Type        string
	Title       string
	Body        string
	ActionURL   string
	ActionLabel string
	// WorkflowID is set for a workflow's notices; its organization and
	// title come from the workflow's WorkflowPlanned.
	WorkflowID string
	// OrgID is the organization for the events that name it (not the
	// workflow events).
	OrgID    string
	Metadata map[string]any
}

// EventTypes are the event types From derives a notice from.
func EventTypes() []string {
	return []string{workflow.EventCompleted, workflow.EventFailed, workflow.EventHalted, workflow.EventTimedOut,
		workflow.EventApprovalRequested, credit.EventAutoReloadSucceeded, credit.EventAutoReloadFailed,
		workspace.EventMemberAdded, hook.EventDisabled, deletion.EventRequested}
}

// From is the one table of notifications: the notice event e (decoded)
// gives, with title the workflow's title for a workflow's events (""
// when unknown). False when e notifies nobody: a member added as the
// workspace's creator or at signup is no news to the organization.
func From(e event.Event, title string) (Notice, bool) {
	wfID, _ := workflow.IDOf(e.StreamID)
	name := "Your workflow"
	if title != "" {
		name = fmt.Sprintf("Your workflow %q", title)
	}
	wf := func(typ, head, body, label string, meta map[string]any) Notice {
		return Notice{Type: typ, Title: head, Body: body, WorkflowID: wfID, ActionURL: "/workflows/" + wfID,
			ActionLabel: label, Metadata: meta}
	}
	switch d := e.Payload.(type) {
	case workflow.Completed:
		if d.Partial {
			return wf(TypeWorkflowCompleted, "Workflow completed with gaps",
				name+" finished, but some steps are incomplete.", "View results",
				map[string]any{"partial": true, "credits_used": d.CreditsUsed}), true
		}
		return wf(TypeWorkflowCompleted, "Workflow completed", name+" finished. Its deliverable is ready.", "View results",
			map[string]any{"partial": false, "credits_used": d.CreditsUsed}), true
	case workflow.Failed:
		return wf(TypeWorkflowFailed, "Workflow failed", name+" failed: "+d.Error, "View workflow",
			map[string]any{"code": d.Code, "refunded": d.Refunded}), true
	case workflow.Halted:
		return wf(TypeWorkflowFailed, "Workflow halted", fmt.Sprintf("%s was halted at step %d: %s", name, d.Step, d.Reason),
			"View workflow", map[string]any{"code": "halted", "step": d.Step}), true
	case workflow.TimedOut:
		return wf(TypeWorkflowTimedOut, "Workflow timed out", name+" was idle too long and was stopped.", "View workflow",
			map[string]any{"idle_seconds": d.IdleSeconds}), true
	case workflow.ApprovalRequested:
		return wf(TypeApprovalRequested, "Approval requested",
			fmt.Sprintf("%s is waiting for your approval before step %d.", name, d.Step+1), "Review",
			map[string]any{"gate": d.Gate, "step": d.Step}), true
	case credit.AutoReloadSucceeded:
		return Notice{Type: TypeAutoReloadSucceeded, OrgID: d.OrgID, Title: "Credits reloaded",
			Body:      fmt.Sprintf("Auto-reload added %d credits to your balance.", d.Amount),
			ActionURL: "/settings/billing", ActionLabel: "View billing",
			Metadata: map[string]any{"reload_id": d.ReloadID, "amount": d.Amount}}, true
	case credit.AutoReloadFailed:
		body := "Auto-reload could not charge your payment method (" + d.Reason + ")."
		if d.Message != "" {
			body += " " + d.Message
		}
		return Notice{Type: TypeAutoReloadFailed, OrgID: d.OrgID, Title: "Auto-reload failed", Body: body,
			ActionURL: "/settings/billing", ActionLabel: "Update payment method",
			Metadata: map[string]any{"reload_id": d.ReloadID, "reason": d.Reason}}, true
	case workspace.MemberAdded:
		if d.Via != "direct" && d.Via != "invite" {
			return Notice{}, false
		}
		who := d.Name
		if who == "" {
			who = d.Email
		}
		return Notice{Type: TypeMemberJoined, OrgID: d.OrgID, Title: "New member joined",
			Body:      fmt.Sprintf("%s joined a workspace as %s.", who, d.Role),
			ActionURL: "/workspaces/" + d.WorkspaceID + "/members", ActionLabel: "View members",
			Metadata: map[string]any{"workspace_id": d.WorkspaceID, "user_id": d.UserID, "role": string(d.Role)}}, true
	case hook.Disabled:
		return Notice{Type: TypeWebhookDisabled, OrgID: d.OrgID, Title: "Webhook disabled",
			Body: fmt.Sprintf("The webhook to %s was turned off after %d deliveries in a row failed. Fix the receiver, then turn it on again.",
				d.URL, d.Failures),
			ActionURL: "/workspaces/" + d.WorkspaceID + "/webhooks", ActionLabel: "Review webhook",
			Metadata: map[string]any{"webhook_id": d.EndpointID, "workspace_id": d.WorkspaceID, "url": d.URL,
				"failures": d.Failures, "reason": d.Reason}}, true
	case deletion.Requested:
		return Notice{Type: TypeDeletionRequested, OrgID: d.OrgID, Title: "Data deletion requested",
			Body: "A request to permanently delete all of your organization's data was made. Nothing is deleted unless it is confirmed with its token before " +
				d.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC") + ". If you did not ask for it, revoke the key or end the session that did.",
			ActionURL: "/settings/data", ActionLabel: "Review request",
			Metadata: map[string]any{"request_id": d.RequestID, "expires_at": d.ExpiresAt.UTC()}}, true
	}
	return Notice{}, false
}
