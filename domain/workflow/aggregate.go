package workflow

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"svc/eventstore/event"
)

// Domain errors of execution.
var (
	ErrHasProgress  = errors.New("workflow has step results")
	ErrNotQueueable = errors.New("workflow status does not permit execution")
	ErrNoPlan       = errors.New("workflow has no plan")
	ErrNotRunnable  = errors.New("workflow is not running")
	ErrUnknownStep  = errors.New("no such step in the plan")
)

// stepState is what the stream says of one planned step.
type stepState struct {
	started    int // StepStarted events
	completed  *StepCompleted
	incomplete *StepIncomplete
	chunk      *Chunk
	skipped    bool
}

func (s *stepState) done() bool { return s.completed != nil || s.incomplete != nil || s.skipped }

// Workflow is the aggregate: a workflow's stream folded.
type Workflow struct {
	planned   Planned
	queued    *Queued
	status    string
	version   int64
	steps     []*stepState // index = step-1
	current   int          // most recent step number reached
	retrying  *TerminalRetrying
	attempts  int // failed attempts at the terminal step
	review    *Reviewed
	completed *Completed
	failed    *Failed
	halted    *Halted
	live      int // per-step credits charged
	refunded  int // credits refunded (a failed run)
	calls     []Call

	// workflow control
	requested *StepRequested     // the interactive step asked for
	pending   *ApprovalRequested // the gate a run waits at
	passed    map[int]bool       // approval gates passed
	guidance  []string           // approval notes and revision guidance, in order
	revision  string             // the latest revision guidance
	rejected  *Decision
	cancelled *Cancelled
	aborted   *Aborted

	fellBack *ExecutionFellBack // a runtime fallback from direct execution (direct.go)

	createdAt, updatedAt, startedAt, endedAt time.Time
}

// New is a workflow with no events folded.
func New() *Workflow { return &Workflow{version: event.NewStream, passed: map[int]bool{}} }

// Load folds a workflow stream; an empty or foreign stream is ErrNotFound.
func Load(events []event.Event) (*Workflow, error) {
	if len(events) == 0 || events[0].Type != EventPlanned {
		return nil, ErrNotFound
	}
	w := New()
	if err := event.Fold(w, events); err != nil {
		return nil, err
	}
	return w, nil
}

// Clone is a copy of w that folds events without changing w: a fold
// cache's private copy (the workflows read model).
func (w *Workflow) Clone() *Workflow {
	c := *w
	c.steps = make([]*stepState, len(w.steps))
	for i, s := range w.steps {
		cs := *s
		c.steps[i] = &cs
	}
	c.passed = maps.Clone(w.passed)
	if c.passed == nil {
		c.passed = map[int]bool{}
	}
	// slices the fold appends to: the copy gets its own backing arrays
	c.guidance = slices.Clip(w.guidance)
	c.calls = slices.Clip(w.calls)
	return &c
}

// After is the workflow as it will stand once data, decided now, is
// recorded at: a copy, w unchanged. A worker asks it what follows events
// it is about to append (the next step starts in the same append).
func (w *Workflow) After(at time.Time, data ...event.Data) (*Workflow, error) {
	c := w.Clone()
	for _, d := range data {
		if err := c.apply(d, at); err != nil {
			return nil, err
		}
		c.version++
		c.updatedAt = at
	}
	return c, nil
}

// Apply folds one event of the workflow's stream. An event of another
// type is an error: a workflow stream holds only the types RegisterRunEvents
// lists.
func (w *Workflow) Apply(e event.Event) error {
	data, err := runEvents.Decode(e)
	if err != nil {
		return fmt.Errorf("workflow %s: %w", w.planned.WorkflowID, err)
	}
	if err := w.apply(data, e.RecordedAt); err != nil {
		return fmt.Errorf("workflow %s event %d (%s): %w", w.planned.WorkflowID, e.Version, e.Type, err)
	}
	w.version = e.Version
	w.updatedAt = e.RecordedAt
	return nil
}

// apply folds the data of one event recorded at.
func (w *Workflow) apply(data event.Data, at time.Time) error {
	switch d := data.(type) {
	case Planned:
		w.planned = d
		w.status = StatusPlanned
		w.createdAt = at
		w.steps = make([]*stepState, len(w.planned.Steps))
		for i := range w.steps {
			w.steps[i] = &stepState{}
		}
	case Queued:
		w.queued = &d
		w.status = StatusQueued
		if d.Mode == ModeInteractive {
			w.status = StatusInteractiveWaiting
		}
	case Started:
		if !d.Resumed || w.status != StatusQualityReview { // a takeover keeps the review it found
			w.status = StatusExecuting
		}
		if w.startedAt.IsZero() {
			w.startedAt = at
		}
	case StepStarted:
		s, err := w.step(d.Step)
		if err != nil {
			return err
		}
		s.started++
		s.chunk = d.Chunk
		w.current = d.Step
	case StepCompleted:
		s, err := w.step(d.Step)
		if err != nil {
			return err
		}
		s.completed, s.chunk = &d, nil
		w.live += d.Credits
		w.calls = append(w.calls, d.Calls...)
		w.current = d.Step
		w.retrying = nil
		w.stepEnded()
	case StepIncomplete:
		s, err := w.step(d.Step)
		if err != nil {
			return err
		}
		s.incomplete, s.chunk = &d, nil
		w.current = d.Step
		w.retrying = nil
		w.stepEnded()
	case TerminalRetrying:
		w.retrying = &d
		w.attempts = d.Attempt - 1
	case ReviewStarted:
		w.status = StatusQualityReview
	case Reviewed:
		w.review = &d
		w.calls = append(w.calls, d.Calls...)
	case Completed:
		w.completed = &d
		w.status = StatusCompleted
		if d.Partial {
			w.status = StatusCompletedPartial
		}
		w.endedAt = at
	case Failed:
		w.failed = &d
		w.refunded += d.Refunded
		w.status = StatusFailed
		w.endedAt = at
	case Halted:
		w.halted = &d
		w.status = StatusHalted
		w.endedAt = at
	case ExecutionFellBack:
		w.fellBack = &d
	default:
		return w.applyControl(data, at)
	}
	return nil
}

func (w *Workflow) step(n int) (*stepState, error) {
	if n < 1 || n > len(w.steps) {
		return nil, fmt.Errorf("%w: step %d of %d", ErrUnknownStep, n, len(w.steps))
	}
	return w.steps[n-1], nil
}

// ID is the workflow id.
func (w *Workflow) ID() string { return w.planned.WorkflowID }

// OrgID is the owning organization.
func (w *Workflow) OrgID() string { return w.planned.OrgID }

// Planned is the workflow's plan event.
func (w *Workflow) Planned() Planned { return w.planned }

// Queued is the execute request, nil before execution.
func (w *Workflow) Queued() *Queued { return w.queued }

// Status is the current status.
func (w *Workflow) Status() string { return w.status }

// Version is the stream version of the last event folded.
func (w *Workflow) Version() int64 { return w.version }

// Free reports whether the run charges nothing (the org's first workflow).
func (w *Workflow) Free() bool { return w.queued != nil && w.queued.Free }

// CreditsLive is the per-step credits charged so far.
func (w *Workflow) CreditsLive() int { return w.live }

// HasProgress reports whether any step has a result.
func (w *Workflow) HasProgress() bool {
	for _, s := range w.steps {
		if s.done() {
			return true
		}
	}
	return false
}

// CanQueue decides whether execute may queue this workflow.
func (w *Workflow) CanQueue() error {
	if len(w.planned.Steps) == 0 {
		return ErrNoPlan
	}
	if w.HasProgress() {
		return ErrHasProgress
	}
	if w.status != StatusPlanned {
		return fmt.Errorf("%w: %s", ErrNotQueueable, w.status)
	}
	return nil
}

// Fee is the orchestration fee: the estimate of the terminal Synthesis
// step, charged once on a full completion (or a salvaged deliverable).
func (w *Workflow) Fee() int {
	for _, s := range w.planned.Steps {
		if s.Kind == KindSynthesis {
			return s.Credits
		}
	}
	return 0
}

// StepCharge is what completing step costs: its estimate, except the
// Synthesis step (the fee) and every step of a free workflow.
func (w *Workflow) StepCharge(step PlannedStep) int {
	if w.Free() || step.Kind == KindSynthesis {
		return 0
	}
	return step.Credits
}

// Remaining is the estimate of the steps without a result, plus the fee.
func (w *Workflow) Remaining() int {
	if w.Free() {
		return 0
	}
	n := 0
	for i, s := range w.steps {
		if !s.done() && w.planned.Steps[i].Kind != KindSynthesis {
			n += w.planned.Steps[i].Credits
		}
	}
	return n + w.Fee()
}
