package workflow

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Statuses of workflow control.
const (
	StatusInteractiveWaiting = "interactive_waiting"
	StatusStepExecuting      = "step_executing"
	StatusPendingApproval    = "pending_approval"
	StatusPendingHumanReview = "pending_human_review"
	StatusApproved           = "approved"
	StatusBlocked            = "blocked"
	StatusResuming           = "resuming"
	StatusCancelled          = "cancelled"
	StatusTimedOut           = "timed_out"
	StatusAborted            = "aborted"
)

// Modes of execution.
const (
	ModeFull        = "full"
	ModeInteractive = "interactive"
)

// InteractiveIdle is spec A's interactive session idle limit.
const InteractiveIdle = 30 * time.Minute

// Control errors.
var (
	ErrNotInteractive  = errors.New("workflow was not created with mode interactive")
	ErrInvalidStatus   = errors.New("status does not permit the action")
	ErrStepInProgress  = errors.New("a step of the workflow is running")
	ErrSessionExpired  = errors.New("interactive session expired")
	ErrAlreadyComplete = errors.New("every step already has a result")
	ErrNeedsApproval   = errors.New("workflow awaits a human decision: resume with approve=true")
	ErrNothingLeft     = errors.New("no step left to run")
)

// ResumableStatuses are the statuses resume starts from (spec A).
var ResumableStatuses = []string{StatusExecuting, StatusFailed, StatusApproved, StatusBlocked, StatusTimedOut,
	StatusPendingApproval, StatusPendingHumanReview, StatusQualityReview}

// CancelAction says how bulk cancel treats a status: "cancel", "force_cancel"
// (only with force) or "" (not cancellable).
func CancelAction(status string) string {
	switch status {
	case StatusPlanned, StatusQueued, StatusInteractiveWaiting, StatusPendingApproval, StatusPendingHumanReview,
		StatusApproved, StatusBlocked, StatusResuming:
		return ActionCancel
	case StatusExecuting, StatusStepExecuting, StatusQualityReview:
		return ActionForceCancel
	}
	return ""
}

// Interactive reports whether the workflow runs one requested step at a
// time.
func (w *Workflow) Interactive() bool { return w.queued != nil && w.queued.Mode == ModeInteractive }

// NextOpen is the first step without a result, or false when none is left.
func (w *Workflow) NextOpen() (PlannedStep, bool) {
	for i, s := range w.steps {
		if !s.done() {
			return w.planned.Steps[i], true
		}
	}
	return PlannedStep{}, false
}

// StepsCompleted counts the steps with a completed result.
func (w *Workflow) StepsCompleted() int {
	n := 0
	for _, s := range w.steps {
		if s.completed != nil {
			n++
		}
	}
	return n
}

// Idle is how long the workflow has had no event, at now.
func (w *Workflow) Idle(now time.Time) time.Duration { return now.Sub(w.updatedAt) }

// CheckStep decides whether an interactive step action may run now: an
// idle session past limit is ErrSessionExpired (the caller records
// WorkflowTimedOut), a running step ErrStepInProgress.
func (w *Workflow) CheckStep(now time.Time, limit time.Duration) error {
	if !w.Interactive() {
		return ErrNotInteractive
	}
	switch w.status {
	case StatusInteractiveWaiting:
		if w.Idle(now) > limit {
			return ErrSessionExpired
		}
		return nil
	case StatusStepExecuting:
		return ErrStepInProgress
	}
	return fmt.Errorf("%w: %s", ErrInvalidStatus, w.status)
}

// CheckResume decides whether resume may start: approve is the query's
// approve=true, needed for pending_human_review.
func (w *Workflow) CheckResume(approve bool) error {
	if !slices.Contains(ResumableStatuses, w.status) {
		if w.status == StatusCompleted {
			return ErrAlreadyComplete
		}
		return fmt.Errorf("%w: %s", ErrInvalidStatus, w.status)
	}
	if w.rejected != nil { // a rejection is final: no further steps run
		return fmt.Errorf("%w: %s (rejected at its approval gate)", ErrInvalidStatus, w.status)
	}
	if w.status == StatusPendingHumanReview && !approve {
		return ErrNeedsApproval
	}
	if _, ok := w.NextOpen(); !ok {
		return ErrAlreadyComplete
	}
	return nil
}

// PendingGate is the approval gate the workflow waits at, or -1.
func (w *Workflow) PendingGate() int {
	if w.pending == nil || w.status != StatusPendingApproval {
		return -1
	}
	return w.pending.Gate
}

// gateBefore reports whether a gate not yet passed stands before step n
// (1-based). Interactive runs have no gates: each step is asked for.
func (w *Workflow) gateBefore(n int) bool {
	if w.Interactive() {
		return false
	}
	return slices.Contains(w.planned.ApprovalGates, n-1) && !w.passed[n-1]
}

// Guidance is what callers added for the later steps: approval notes,
// revision guidance, and the feedback of the step requested now.
func (w *Workflow) Guidance() []string {
	out := slices.Clone(w.guidance)
	if w.requested != nil && w.requested.Feedback != "" && w.status == StatusStepExecuting {
		out = append(out, "Feedback for this step: "+w.requested.Feedback)
	}
	return out
}

// PartialDeliverable assembles what the completed steps produced, for a
// run paused at an approval gate.
func (w *Workflow) PartialDeliverable() *Deliverable {
	if d := w.Deliverable(); d != nil {
		return d
	}
	return w.Salvage()
}

// StepDone reports whether step n (1-based) has a result or was skipped.
func (w *Workflow) StepDone(n int) bool {
	s, err := w.step(n)
	return err == nil && s.done()
}
