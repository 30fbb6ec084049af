package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Interactive step actions.
const (
	StepNext  = workflow.StepNext
	StepSkip  = workflow.StepSkip
	StepAbort = workflow.StepAbort
)

// ErrInvalidAction is a step action other than next, skip and abort.
var ErrInvalidAction = workflow.ErrInvalidAction

// StepWorkflow drives an interactive workflow one action at a time.
type StepWorkflow struct {
	OrgID, KeyID string
	WorkflowID   string
	Action       string
	Feedback     string
}

// WorkflowStepped is the outcome of StepWorkflow.
type WorkflowStepped struct {
	Status string // step_executing, interactive_waiting, aborted, or executing after the last step
	// Step is the step next runs or skip skipped.
	Step workflow.PlannedStep
	// NextStep is the step after a skip (HasNext false when none is left).
	NextStep       workflow.PlannedStep
	HasNext        bool
	StepsCompleted int
	TotalSteps     int
	Position       event.Position
}

// StepWorkflowHandler handles StepWorkflow.
type StepWorkflowHandler struct {
	repos *Repositories
	idle  time.Duration
	now   func() time.Time
}

// NewStepWorkflowHandler returns a handler over repos whose sessions
// expire after idle without activity (spec A: 30 minutes).
func NewStepWorkflowHandler(repos *Repositories, idle time.Duration) StepWorkflowHandler {
	if idle <= 0 {
		idle = workflow.InteractiveIdle
	}
	return StepWorkflowHandler{repos: must(repos), idle: idle, now: time.Now}
}

// Handle takes the workflow's step lock and appends the action's events in
// one transaction. An idle session is marked timed_out (committed) and the
// call answers workflow.ErrSessionExpired.
func (h StepWorkflowHandler) Handle(ctx context.Context, cmd StepWorkflow) (WorkflowStepped, error) {
	var (
		wf      *workflow.Workflow
		step    workflow.PlannedStep
		before  int
		expired bool
	)
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		// the step lock: one action per workflow at a time, across processes
		var locked bool
		if err := tx.DB().QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext('step:' || $1))`, cmd.WorkflowID).Scan(&locked); err != nil {
			return err
		}
		if !locked {
			return workflow.ErrStepInProgress
		}
		var err error
		if wf, err = h.repos.Workflows.LoadOwned(tx, cmd.OrgID, cmd.WorkflowID); err != nil {
			return err
		}
		step, _ = wf.NextOpen()
		before = wf.StepsCompleted()
		events, err := wf.Interact(cmd.Action, cmd.Feedback, h.now(), h.idle)
		expired = errors.Is(err, workflow.ErrSessionExpired)
		if err != nil && !expired {
			return err
		}
		// the step is charged when it completes, from the run's
		// reservation first: that and the spendable balance must cover it
		if cmd.Action == StepNext && !expired {
			if err := covers(tx, h.repos, wf, wf.StepCharge(step)); err != nil {
				return err
			}
		}
		_, err = h.repos.Workflows.Save(tx, wf.ID(), wf, events...)
		if h.repos.Workflows.Conflict(err, wf.ID()) {
			return workflow.ErrStepInProgress
		}
		if err != nil {
			return err
		}
		if workflow.Ends(events...) { // aborted, or timed out
			return endRun(tx, h.repos, wf, events[len(events)-1].EventType())
		}
		return nil
	})
	if err != nil {
		return WorkflowStepped{}, fmt.Errorf("step workflow: %w", err)
	}
	out := WorkflowStepped{Status: wf.Status(), TotalSteps: len(wf.Planned().Steps), Position: pos}
	if expired {
		return out, fmt.Errorf("step workflow: %w", workflow.ErrSessionExpired)
	}
	out.StepsCompleted = before
	if cmd.Action != StepAbort {
		out.Step = step
	}
	if cmd.Action == StepSkip {
		out.NextStep, out.HasNext = wf.NextOpen()
	}
	return out, nil
}
