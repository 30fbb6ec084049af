package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/workflow"
	"svc/eventstore"
)

// Interactive step actions.
const (
	StepNext  = "next"
	StepSkip  = "skip"
	StepAbort = "abort"
)

// ErrInvalidAction is a step action other than next, skip and abort.
var ErrInvalidAction = errors.New("action must be next, skip or abort")

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
	// NextStep is the step after a skip (ok false when none is left).
	NextStep       workflow.PlannedStep
	HasNext        bool
	StepsCompleted int
	TotalSteps     int
	Position       eventstore.Position
}

// StepWorkflowHandler handles StepWorkflow.
type StepWorkflowHandler struct {
	store *eventstore.Store
	idle  time.Duration
	now   func() time.Time
}

// NewStepWorkflowHandler returns a handler whose sessions expire after
// idle without activity (spec A: 30 minutes).
func NewStepWorkflowHandler(store *eventstore.Store, idle time.Duration) StepWorkflowHandler {
	if store == nil {
		panic("nil dependency")
	}
	if idle <= 0 {
		idle = workflow.InteractiveIdle
	}
	return StepWorkflowHandler{store: store, idle: idle, now: time.Now}
}

// Handle takes the workflow's step lock and appends the action's events in
// one transaction. An idle session is marked timed_out (committed) and the
// call answers workflow.ErrSessionExpired.
func (h StepWorkflowHandler) Handle(ctx context.Context, cmd StepWorkflow) (WorkflowStepped, error) {
	switch cmd.Action {
	case StepNext, StepSkip, StepAbort:
	default:
		return WorkflowStepped{}, ErrInvalidAction
	}
	var (
		out     WorkflowStepped
		expired bool
	)
	err := eventstore.Retry(ctx, attempts, func() error {
		out, expired = WorkflowStepped{}, false
		return h.store.Transact(ctx, func(tx pgx.Tx) error {
			var err error
			out, expired, err = h.step(ctx, tx, cmd)
			return err
		})
	})
	if err != nil {
		return WorkflowStepped{}, fmt.Errorf("step workflow: %w", err)
	}
	if expired {
		return out, fmt.Errorf("step workflow: %w", workflow.ErrSessionExpired)
	}
	return out, nil
}

func (h StepWorkflowHandler) step(ctx context.Context, tx pgx.Tx, cmd StepWorkflow) (WorkflowStepped, bool, error) {
	// the step lock: one action per workflow at a time, across processes
	var locked bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext('step:' || $1))`, cmd.WorkflowID).Scan(&locked); err != nil {
		return WorkflowStepped{}, false, err
	}
	if !locked {
		return WorkflowStepped{}, false, workflow.ErrStepInProgress
	}
	wf, err := loadOwned(ctx, h.store, tx, cmd.OrgID, cmd.WorkflowID)
	if err != nil {
		return WorkflowStepped{}, false, err
	}
	if err := wf.CheckStep(h.now(), h.idle); errors.Is(err, workflow.ErrSessionExpired) {
		idle := int64(wf.Idle(h.now()).Seconds())
		pos, err := appendWorkflow(ctx, h.store, tx, wf, workflow.ErrStepInProgress,
			eventstore.NewEvent{Type: workflow.EventTimedOut, Data: workflow.TimedOut{IdleSeconds: idle}})
		if err != nil {
			return WorkflowStepped{}, false, err
		}
		return WorkflowStepped{Status: workflow.StatusTimedOut, TotalSteps: len(wf.Planned().Steps), Position: pos}, true, releaseSlot(ctx, h.store, tx, wf)
	} else if err != nil {
		return WorkflowStepped{}, false, err
	}
	out := WorkflowStepped{TotalSteps: len(wf.Planned().Steps), StepsCompleted: wf.StepsCompleted()}
	open, ok := wf.NextOpen()
	if !ok { // cannot happen at interactive_waiting: the last result moves the run on
		return WorkflowStepped{}, false, workflow.ErrNothingLeft
	}
	var ev eventstore.NewEvent
	switch cmd.Action {
	case StepNext:
		if err := covers(ctx, h.store, tx, wf, wf.StepCharge(open)); err != nil {
			return WorkflowStepped{}, false, err
		}
		ev = eventstore.NewEvent{Type: workflow.EventStepRequested, Data: workflow.StepRequested{Step: open.Step, Name: open.Name, Feedback: cmd.Feedback}}
		out.Status, out.Step = workflow.StatusStepExecuting, open
	case StepSkip:
		ev = eventstore.NewEvent{Type: workflow.EventStepSkipped, Data: workflow.StepSkipped{Step: open.Step, Name: open.Name}}
		out.Status, out.Step = workflow.StatusInteractiveWaiting, open
	case StepAbort:
		ev = eventstore.NewEvent{Type: workflow.EventAborted, Data: workflow.Aborted{StepsCompleted: out.StepsCompleted, TotalSteps: out.TotalSteps}}
		out.Status = workflow.StatusAborted
	}
	pos, err := appendWorkflow(ctx, h.store, tx, wf, workflow.ErrStepInProgress, ev)
	if err != nil {
		return WorkflowStepped{}, false, err
	}
	out.Position = pos
	if cmd.Action == StepAbort {
		if err := releaseSlot(ctx, h.store, tx, wf); err != nil {
			return WorkflowStepped{}, false, err
		}
	}
	if cmd.Action == StepSkip {
		// what follows the skip: the next open step, or the run's end
		for _, s := range wf.Planned().Steps[open.Step:] {
			if !wf.StepDone(s.Step) {
				out.NextStep, out.HasNext = s, true
				break
			}
		}
		if !out.HasNext {
			out.Status = workflow.StatusExecuting
		}
	}
	return out, false, nil
}
