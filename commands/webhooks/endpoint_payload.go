package webhooks

import (
	"encoding/json"
	"fmt"
	"time"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// endpointEnvelope is every workspace webhook delivery's body (README,
// "Workspace webhooks"): who and what, then the event's own data.
type endpointEnvelope struct {
	// ID is the delivery's id, X-Svc-Delivery: the same on every attempt,
	// so receivers drop duplicates by it.
	ID string `json:"id"`
	// EventID is the event's id: the same at every endpoint it goes to.
	EventID     string    `json:"event_id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	WebhookID   string    `json:"webhook_id"`
	WorkspaceID string    `json:"workspace_id"`
	WorkflowID  string    `json:"workflow_id"`
	// Sequence is the event's place in its workflow's history: deliveries
	// may arrive out of order, receivers can sort by it.
	Sequence int64 `json:"sequence"`
	Data     any   `json:"data"`
}

// endpointWorkflow is what every event's data says of its workflow.
type endpointWorkflow struct {
	Status         string `json:"status"`
	Title          string `json:"title"`
	TaskType       string `json:"task_type"`
	CreditsUsed    int    `json:"credits_used"`
	StepsCompleted int    `json:"steps_completed"`
	TotalSteps     int    `json:"total_steps"`
}

// endpointStep is the data of step_completed and step_failed.
type endpointStep struct {
	endpointWorkflow
	Step    int    `json:"step"`
	Name    string `json:"name"`
	Summary string `json:"summary,omitempty"`
	Credits *int   `json:"credits,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// endpointCompleted is the data of workflow_completed.
type endpointCompleted struct {
	endpointWorkflow
	Partial         bool                  `json:"partial"`
	QualityScore    *int                  `json:"quality_score"`
	IncompleteSteps []workflow.Incomplete `json:"incomplete_steps"`
	Deliverable     *workflow.Deliverable `json:"deliverable,omitempty"`
	CompletedAt     *time.Time            `json:"completed_at"`
}

// endpointFailed is the data of workflow_failed.
type endpointFailed struct {
	endpointWorkflow
	Code            string  `json:"code"`
	Error           *string `json:"error"`
	Step            *int    `json:"step,omitempty"`
	HaltReason      string  `json:"halt_reason,omitempty"`
	CreditsRefunded int     `json:"credits_refunded"`
}

// endpointApproval is the data of approval_requested.
type endpointApproval struct {
	endpointWorkflow
	// ApprovalBeforeStep is the zero-based gate (spec A's
	// approval_before_step); Step the step that waits for the decision.
	ApprovalBeforeStep int `json:"approval_before_step"`
	Step               int `json:"step"`
}

// endpointTimedOut is the data of timed_out.
type endpointTimedOut struct {
	endpointWorkflow
	Error       *string `json:"error"`
	IdleSeconds int64   `json:"idle_seconds"`
}

// endpointPayload renders the body of the delivery deliveryID of event src
// of wf (folded up to and including src) to endpointID of workspace wsID,
// as typ (delivery.EndpointTypeOf of src).
func endpointPayload(typ, deliveryID, endpointID, wsID string, wf *workflow.Workflow, src event.Event, data event.Data) ([]byte, error) {
	v := wf.View(false)
	base := endpointWorkflow{Status: v.Status, Title: v.Title, TaskType: v.TaskType, CreditsUsed: v.CreditsUsed,
		StepsCompleted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps}
	var body any
	switch d := data.(type) {
	case workflow.StepCompleted:
		credits := d.Credits
		body = endpointStep{endpointWorkflow: base, Step: d.Step, Name: d.Name, Summary: d.Summary, Credits: &credits}
	case workflow.StepIncomplete:
		body = endpointStep{endpointWorkflow: base, Step: d.Step, Name: d.Name, Reason: d.Reason}
	case workflow.Completed:
		incomplete := v.IncompleteSteps
		if incomplete == nil {
			incomplete = []workflow.Incomplete{}
		}
		body = endpointCompleted{endpointWorkflow: base, Partial: d.Partial, QualityScore: v.QualityScore, IncompleteSteps: incomplete,
			Deliverable: v.Deliverable, CompletedAt: utc(v.CompletedAt)}
	case workflow.Failed:
		f := endpointFailed{endpointWorkflow: base, Code: d.Code, Error: v.Error, CreditsRefunded: d.Refunded}
		if d.Step > 0 {
			step := d.Step
			f.Step = &step
		}
		body = f
	case workflow.Halted:
		step := d.Step
		body = endpointFailed{endpointWorkflow: base, Code: "halted", Error: v.Error, Step: &step, HaltReason: d.Reason}
	case workflow.Rejected:
		body = endpointFailed{endpointWorkflow: base, Code: "rejected", Error: v.Error, HaltReason: v.HaltReason}
	case workflow.ApprovalRequested:
		body = endpointApproval{endpointWorkflow: base, ApprovalBeforeStep: d.Gate, Step: d.Step}
	case workflow.TimedOut:
		body = endpointTimedOut{endpointWorkflow: base, Error: v.Error, IdleSeconds: d.IdleSeconds}
	default:
		return nil, fmt.Errorf("webhooks: no endpoint payload for %s", src.Type)
	}
	b, err := json.Marshal(endpointEnvelope{ID: deliveryID, EventID: src.ID.String(), Type: typ, CreatedAt: src.RecordedAt.UTC(),
		WebhookID: endpointID, WorkspaceID: wsID, WorkflowID: wf.ID(), Sequence: src.Version, Data: body})
	if err != nil {
		return nil, fmt.Errorf("webhooks: marshal %s payload: %w", typ, err)
	}
	return b, nil
}
