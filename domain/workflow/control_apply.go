package workflow

import (
	"time"

	"svc/eventstore"
)

// applyControl folds the events of workflow control; other event types
// (of later features) are ignored.
func (w *Workflow) applyControl(e eventstore.Event) error {
	var err error
	switch e.Type {
	case EventStepRequested:
		var d StepRequested
		if err = e.Decode(&d); err == nil {
			w.requested = &d
			w.status = StatusStepExecuting
		}
	case EventStepSkipped:
		var d StepSkipped
		if err = e.Decode(&d); err == nil {
			s, serr := w.step(d.Step)
			if serr != nil {
				return serr
			}
			s.skipped = true
			w.current = d.Step
			w.stepEnded()
		}
	case EventAborted:
		var d Aborted
		err = e.Decode(&d)
		w.aborted = &d
		w.end(StatusAborted, e)
	case EventTimedOut:
		w.end(StatusTimedOut, e)
	case EventApprovalRequested:
		var d ApprovalRequested
		err = e.Decode(&d)
		w.pending = &d
		w.status = StatusPendingApproval
	case EventApproved:
		var d Decision
		if err = e.Decode(&d); err == nil {
			w.passed[d.Gate] = true
			if d.Notes != "" {
				w.guidance = append(w.guidance, "Approver notes: "+d.Notes)
			}
			w.status = StatusApproved
		}
	case EventRejected:
		var d Decision
		err = e.Decode(&d)
		w.rejected = &d
		w.end(StatusFailed, e)
	case EventResumed:
		var d Resumed
		if err = e.Decode(&d); err == nil {
			if w.status == StatusPendingApproval && w.pending != nil {
				w.passed[w.pending.Gate] = true // resuming a paused run passes its gate
			}
			if d.RevisionGuidance != "" {
				w.guidance = append(w.guidance, "Revision guidance: "+d.RevisionGuidance)
				w.revision = d.RevisionGuidance
			}
			w.failed, w.endedAt = nil, time.Time{}
			w.status = StatusResuming
		}
	case EventCancelled:
		var d Cancelled
		err = e.Decode(&d)
		w.cancelled = &d
		w.end(StatusCancelled, e)
	}
	return err
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

func (w *Workflow) end(status string, e eventstore.Event) {
	w.status = status
	w.endedAt = e.RecordedAt
}
