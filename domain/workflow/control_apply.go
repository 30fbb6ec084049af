package workflow

import (
	"fmt"
	"svc/eventstore/event"
	"time"
)

// applyControl folds the events of workflow control.
func (w *Workflow) applyControl(data event.Data, at time.Time) error {
	switch d := data.(type) {
	case StepRequested:
		w.requested = &d
		w.status = StatusStepExecuting
	case StepSkipped:
		s, err := w.step(d.Step)
		if err != nil {
			return err
		}
		s.skipped = true
		w.current = d.Step
		w.stepEnded()
	case Aborted:
		w.aborted = &d
		w.end(StatusAborted, at)
	case TimedOut:
		w.end(StatusTimedOut, at)
	case ApprovalRequested:
		w.pending = &d
		w.status = StatusPendingApproval
	case Approved:
		w.passed[d.Gate] = true
		if d.Notes != "" {
			w.guidance = append(w.guidance, "Approver notes: "+d.Notes)
		}
		w.status = StatusApproved
	case Rejected:
		decision := Decision(d)
		w.rejected = &decision
		w.end(StatusFailed, at)
	case Resumed:
		if w.status == StatusPendingApproval && w.pending != nil {
			w.passed[w.pending.Gate] = true // resuming a paused run passes its gate
		}
		if d.RevisionGuidance != "" {
			w.guidance = append(w.guidance, "Revision guidance: "+d.RevisionGuidance)
			w.revision = d.RevisionGuidance
		}
		w.failed, w.endedAt = nil, time.Time{}
		w.status = StatusResuming
	case Cancelled:
		w.cancelled = &d
		w.end(StatusCancelled, at)
	default:
		return fmt.Errorf("%w: %T is not an event of a workflow stream", event.ErrUnknownType, data)
	}
	return nil
}

// stepEnded moves an interactive step back to waiting once its result is
// in; after the last step the run goes on to its review and end.
func (w *Workflow) stepEnded() {
	if w.status != StatusStepExecuting && w.status != StatusInteractiveWaiting {
		return
	}
	w.requested = nil
	w.status = StatusInteractiveWaiting
	if _, open := w.NextOpen(); !open || w.abandoned() {
		w.status = StatusExecuting
	}
}

// abandoned reports whether a chunked step was given up.
func (w *Workflow) abandoned() bool {
	for _, s := range w.steps {
		if s.incomplete != nil && s.incomplete.Abandoned {
			return true
		}
	}
	return false
}

func (w *Workflow) end(status string, at time.Time) {
	w.status = status
	w.endedAt = at
}
