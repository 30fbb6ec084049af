package workflow

import (
	"errors"
	"fmt"
	"time"

	"svc/eventstore/event"
)

// The decisions of workflow control: each method checks what the caller
// asks against the workflow's state and returns the events to append.

// Interactive step actions.
const (
	StepNext  = "next"
	StepSkip  = "skip"
	StepAbort = "abort"
)

// ErrInvalidAction is a step action other than next, skip and abort.
var ErrInvalidAction = errors.New("action must be next, skip or abort")

// ErrResumeConflict is a resume that lost the race to another one, or of
// a workflow a worker is running.
var ErrResumeConflict = errors.New("another resume of the workflow is in flight")

// Interact decides an interactive step action (next, skip or abort) at
// now, for a session idle limit: StepRequested (with the caller's
// feedback), StepSkipped or WorkflowAborted. A session idle past its
// limit decides WorkflowTimedOut together with ErrSessionExpired: the
// caller records the event and answers the error.
func (w *Workflow) Interact(action, feedback string, now time.Time, limit time.Duration) ([]event.Data, error) {
	switch action {
	case StepNext, StepSkip, StepAbort:
	default:
		return nil, ErrInvalidAction
	}
	if err := w.CheckStep(now, limit); errors.Is(err, ErrSessionExpired) {
		return []event.Data{TimedOut{IdleSeconds: int64(w.Idle(now).Seconds())}}, err
	} else if err != nil {
		return nil, err
	}
	open, ok := w.NextOpen()
	if !ok { // cannot happen at interactive_waiting: the last result moves the run on
		return nil, ErrNothingLeft
	}
	switch action {
	case StepNext:
		return []event.Data{StepRequested{Step: open.Step, Name: open.Name, Feedback: feedback}}, nil
	case StepSkip:
		return []event.Data{StepSkipped{Step: open.Step, Name: open.Name}}, nil
	}
	return []event.Data{Aborted{StepsCompleted: w.StepsCompleted(), TotalSteps: len(w.planned.Steps)}}, nil
}

// Approve decides the approval gate the run waits at: WorkflowApproved (a
// worker takes the run on, the notes reach the later steps) or, when
// approved is false, WorkflowRejected (the run ends failed).
func (w *Workflow) Approve(approved bool, notes, agentID, keyID string) (event.Data, error) {
	gate := w.PendingGate()
	if gate < 0 {
		return nil, fmt.Errorf("%w: %s", ErrInvalidStatus, w.status)
	}
	d := Decision{Gate: gate, Notes: notes, AgentID: agentID, KeyID: keyID}
	if approved {
		return Approved(d), nil
	}
	return Rejected(d), nil
}

// Resume decides WorkflowResumed from the first step without a result:
// approve is the query's approve=true (pending_human_review), running
// whether a worker holds a live lease on the workflow (a running workflow
// is not stalled: ErrResumeConflict, as for a resume already in flight).
func (w *Workflow) Resume(approve, running bool, guidance, keyID string) (Resumed, error) {
	if w.status == StatusResuming || running {
		return Resumed{}, ErrResumeConflict
	}
	if err := w.CheckResume(approve); err != nil {
		return Resumed{}, err
	}
	next, _ := w.NextOpen()
	return Resumed{From: w.status, FromStep: next.Step, RevisionGuidance: guidance, KeyID: keyID}, nil
}

// Cancel actions of a bulk cancel.
const (
	ActionCancel      = "cancel"
	ActionForceCancel = "force_cancel"
)

// CancelPlan says what a bulk cancel does to the workflow: the action
// (cancel, force_cancel) or, when it is skipped, why.
func (w *Workflow) CancelPlan(force bool) (action, reason string) {
	switch a := CancelAction(w.status); {
	case a == ActionCancel, a == ActionForceCancel && force:
		return a, ""
	case a == ActionForceCancel:
		return "", fmt.Sprintf("The workflow is %s; set force: true to cancel it while it runs.", w.status)
	}
	return "", fmt.Sprintf("A workflow in status %s cannot be cancelled.", w.status)
}

// Cancel decides WorkflowCancelled, when the plan allows it.
func (w *Workflow) Cancel(force bool, keyID string) (Cancelled, error) {
	action, reason := w.CancelPlan(force)
	if action == "" {
		return Cancelled{}, fmt.Errorf("%w: %s", ErrInvalidStatus, reason)
	}
	return Cancelled{From: w.status, Force: action == ActionForceCancel, KeyID: keyID}, nil
}

// Ended reports whether the workflow no longer runs nor waits: its slot
// under the concurrent limit is free.
func (w *Workflow) Ended() bool { return Terminal(w.status) }

// Ends reports whether recording data ends the run (a terminal status):
// its slot under the concurrent limit is then released in the same
// transaction.
func Ends(data ...event.Data) bool {
	for _, d := range data {
		switch d.(type) {
		case Completed, Failed, Halted, Rejected, Cancelled, Aborted, TimedOut:
			return true
		}
	}
	return false
}
