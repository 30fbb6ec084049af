package webhooks

import (
	"encoding/json"
	"fmt"
	"time"

	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// envelope is what every payload starts with.
type envelope struct {
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	WorkflowID string    `json:"workflow_id"`
	OccurredAt time.Time `json:"occurred_at"`
	// Sequence is the source event's version in the workflow's stream:
	// deliveries may arrive out of order, receivers can sort by it.
	Sequence int64 `json:"sequence"`
}

// stepPayload is the payload of step_completed.
type stepPayload struct {
	envelope
	Status         string `json:"status"`
	Step           int    `json:"step"`
	Name           string `json:"name"`
	Summary        string `json:"summary"`
	Credits        int    `json:"credits"`
	CreditsUsed    int    `json:"credits_used"`
	StepsCompleted int    `json:"steps_completed"`
	TotalSteps     int    `json:"total_steps"`
}

// completedPayload is the payload of workflow_completed and
// workflow_completed_partial.
type completedPayload struct {
	envelope
	Status          string                  `json:"status"`
	QualityScore    *int                    `json:"quality_score"`
	QualityReview   *workflow.QualityReview `json:"quality_review,omitempty"`
	CreditsUsed     int                     `json:"credits_used"`
	TotalCredits    int                     `json:"total_credits"`
	StepsCompleted  int                     `json:"steps_completed"`
	TotalSteps      int                     `json:"total_steps"`
	IncompleteSteps []workflow.Incomplete   `json:"incomplete_steps"`
	Deliverable     *workflow.Deliverable   `json:"deliverable,omitempty"`
	Error           *string                 `json:"error"`
	CompletedAt     *time.Time              `json:"completed_at"`
}

// failedPayload is the payload of workflow_failed.
type failedPayload struct {
	envelope
	Status          string `json:"status"`
	Error           string `json:"error"`
	Code            string `json:"code"`
	Step            int    `json:"step,omitempty"`
	CreditsUsed     int    `json:"credits_used"`
	CreditsRefunded int    `json:"credits_refunded"`
	StepsCompleted  int    `json:"steps_completed"`
	TotalSteps      int    `json:"total_steps"`
}

// haltedPayload is the payload of workflow_halted.
type haltedPayload struct {
	envelope
	Status             string   `json:"status"`
	HaltedAtStep       *int     `json:"halted_at_step"`
	HaltReason         string   `json:"halt_reason"`
	BlockingIssues     []string `json:"blocking_issues"`
	ResolutionOptions  []string `json:"resolution_options"`
	CreditsUsed        int      `json:"credits_used"`
	CreditsSavedByHalt *int     `json:"credits_saved_by_halt"`
	StepsCompleted     int      `json:"steps_completed"`
	TotalSteps         int      `json:"total_steps"`
	Error              *string  `json:"error"`
}

// timedOutPayload is the payload of timed_out.
type timedOutPayload struct {
	envelope
	Status         string  `json:"status"`
	Error          *string `json:"error"`
	CreditsUsed    int     `json:"credits_used"`
	StepsCompleted int     `json:"steps_completed"`
	TotalSteps     int     `json:"total_steps"`
}

// buildPayload renders the payload of event src of wf, where wf is the
// workflow folded up to and including src.
func buildPayload(typ, deliveryID string, wf *workflow.Workflow, src event.Event) ([]byte, error) {
	v := wf.View(false)
	env := envelope{Event: typ, DeliveryID: deliveryID, WorkflowID: wf.ID(), OccurredAt: src.RecordedAt.UTC(), Sequence: src.Version}
	var body any
	switch typ {
	case delivery.TypeStepCompleted:
		var d workflow.StepCompleted
		if err := src.Decode(&d); err != nil {
			return nil, err
		}
		body = stepPayload{envelope: env, Status: v.Status, Step: d.Step, Name: d.Name, Summary: d.Summary, Credits: d.Credits,
			CreditsUsed: v.CreditsUsed, StepsCompleted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps}
	case delivery.TypeWorkflowCompleted, delivery.TypeWorkflowCompletedPartial:
		incomplete := v.IncompleteSteps
		if incomplete == nil {
			incomplete = []workflow.Incomplete{}
		}
		body = completedPayload{envelope: env, Status: v.Status, QualityScore: v.QualityScore, QualityReview: v.QualityReview,
			CreditsUsed: v.CreditsUsed, TotalCredits: v.CreditsUsed, StepsCompleted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps,
			IncompleteSteps: incomplete, Deliverable: v.Deliverable, Error: v.Error, CompletedAt: utc(v.CompletedAt)}
	case delivery.TypeWorkflowFailed:
		var d workflow.Failed
		if src.Type == workflow.EventRejected {
			d = workflow.Failed{Code: "rejected", Error: *v.Error}
		} else if err := src.Decode(&d); err != nil {
			return nil, err
		}
		body = failedPayload{envelope: env, Status: v.Status, Error: d.Error, Code: d.Code, Step: d.Step, CreditsUsed: v.CreditsUsed,
			CreditsRefunded: d.Refunded, StepsCompleted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps}
	case delivery.TypeWorkflowHalted:
		issues := v.BlockingIssues
		if issues == nil {
			issues = []string{}
		}
		body = haltedPayload{envelope: env, Status: v.Status, HaltedAtStep: v.HaltedAtStep, HaltReason: v.HaltReason, BlockingIssues: issues,
			ResolutionOptions: v.ResolutionOptions, CreditsUsed: v.CreditsUsed, CreditsSavedByHalt: v.CreditsSavedByHalt,
			StepsCompleted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps, Error: v.Error}
	case delivery.TypeTimedOut:
		body = timedOutPayload{envelope: env, Status: v.Status, Error: v.Error, CreditsUsed: v.CreditsUsed,
			StepsCompleted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps}
	default:
		return nil, fmt.Errorf("webhooks: no payload for event type %q", typ)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("webhooks: marshal %s payload: %w", typ, err)
	}
	return b, nil
}

// utc returns t in UTC, nil for nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
