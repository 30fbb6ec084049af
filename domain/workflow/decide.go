package workflow

import (
	"fmt"
	"strings"
)

// Action is what a worker does next with a workflow.
type Action int

// Actions, in the order a run takes them.
const (
	ActNone   Action = iota // nothing: not queued, or ended
	ActStart                // append WorkflowStarted
	ActStep                 // run Next.Step
	ActReview               // run the independent quality review
	ActFinish               // append the terminal event
	ActPause                // stop at an approval gate (ApprovalRequested)
)

// Terminal-step strategies (spec A's retry ladder), by failed attempts.
const (
	StrategyCompressed = "compressed"
	StrategyChunked    = "chunked"
	StrategySalvage    = "salvage"
	// TerminalMaxAttempts counts the attempts of the ladder: normal,
	// compressed, chunked, then the salvage that needs no model.
	TerminalMaxAttempts = 4
)

// Reasons of incomplete_steps entries.
const (
	ReasonBudgetExhausted = "invocation_budget_exhausted"
	ReasonChunksAbandoned = "review_chunks_abandoned"
	ReasonNotReached      = "not_reached"
)

// Next is a worker's next move.
type Next struct {
	Action   Action
	Step     PlannedStep
	Attempt  int    // 1 for a step's first start, one more for each start after it
	Strategy string // for the terminal step: "", compressed, chunked, salvage
}

// Next decides what a worker does next: an action in RunnableStatuses,
// ActNone in every other status.
func (w *Workflow) Next() Next {
	switch w.status {
	case StatusQueued, StatusApproved, StatusResuming:
		return Next{Action: ActStart}
	case StatusStepExecuting: // the interactive step asked for
		if w.requested == nil {
			return Next{Action: ActNone}
		}
		s, err := w.step(w.requested.Step)
		if err != nil || s.done() {
			return Next{Action: ActNone}
		}
		return w.stepNext(w.requested.Step - 1)
	case StatusExecuting:
	case StatusQualityReview:
		if w.review == nil {
			return Next{Action: ActReview}
		}
		return Next{Action: ActFinish}
	default:
		return Next{Action: ActNone}
	}
	for i, s := range w.steps {
		if s.incomplete != nil && s.incomplete.Abandoned {
			return Next{Action: ActFinish}
		}
		if s.done() {
			continue
		}
		if step := w.planned.Steps[i]; w.gateBefore(step.Step) {
			return Next{Action: ActPause, Step: step}
		}
		return w.stepNext(i)
	}
	// a run resumed after its review was recorded (WorkflowStarted puts
	// it back to executing) finishes; it is not reviewed twice
	if w.Deliverable() != nil && w.review == nil {
		return Next{Action: ActReview}
	}
	return Next{Action: ActFinish}
}

// stepNext runs step i (zero-based): the terminal Synthesis step follows
// its retry ladder, in a full run and in an interactive one alike.
//
// Every start of a step is a new attempt, numbered one past the step's
// starts so far, so a start a takeover abandoned (a StepStarted with no
// outcome, its worker dead) counts too and no two starts of a step share
// a number (decision 129). The ladder's rung is another count: failed
// attempts only (TerminalRetrying), so a Synthesis step taken over runs
// again with the strategy it had.
func (w *Workflow) stepNext(i int) Next {
	step := w.planned.Steps[i]
	n := Next{Action: ActStep, Step: step, Attempt: w.Attempt(step.Step)}
	if step.Kind == KindSynthesis {
		n.Attempt = max(n.Attempt, w.rung())
		n.Strategy = ladder(w.rung())
	}
	return n
}

// rung is the terminal step's rung of the retry ladder for its next
// attempt: 1 (normal) plus its failed attempts.
func (w *Workflow) rung() int { return w.attempts + 1 }

// Deliverable is the Synthesis step's deliverable, or the salvaged one.
func (w *Workflow) Deliverable() *Deliverable {
	for _, s := range w.steps {
		if s.completed != nil && s.completed.Deliverable != nil {
			return s.completed.Deliverable
		}
		if s.incomplete != nil && s.incomplete.Deliverable != nil {
			return s.incomplete.Deliverable
		}
	}
	return nil
}

// Prior returns the results of the completed steps before step n (all
// completed steps when n is 0), in plan order.
func (w *Workflow) Prior(n int) []StepCompleted {
	var out []StepCompleted
	for i, s := range w.steps {
		if n > 0 && i+1 >= n {
			break
		}
		if s.completed != nil && s.completed.Deliverable == nil {
			out = append(out, *s.completed)
		}
	}
	return out
}

// Finish decides the terminal event of a run whose steps all have a
// result (or whose chunked step was abandoned).
func (w *Workflow) Finish() (Completed, error) {
	if w.status != StatusExecuting && w.status != StatusQualityReview {
		return Completed{}, fmt.Errorf("%w: %s", ErrNotRunnable, w.status)
	}
	var (
		out       = Completed{Deliverable: w.Deliverable()}
		abandoned bool
		lost      []string
		salvaged  bool
		// skippedFee: the caller skipped the Synthesis step, so no
		// deliverable was made and no fee is due
		skippedFee bool
		violated   bool
	)
	for i, s := range w.steps {
		step := w.planned.Steps[i]
		switch {
		case s.skipped:
			skippedFee = skippedFee || step.Kind == KindSynthesis
		case s.incomplete != nil:
			out.IncompleteSteps = append(out.IncompleteSteps, Incomplete{StepIndex: i, Framework: step.Name, Reason: s.incomplete.Reason})
			switch {
			case s.incomplete.Salvaged:
				salvaged = true
			case s.incomplete.Abandoned:
				abandoned = true
			default:
				lost = append(lost, step.Name)
				// an output that violates the output_contract: a failed
				// step, no deliverable (direct.go)
				violated = violated || s.incomplete.OutputValidationStatus != ""
			}
		case s.completed == nil && abandoned:
			out.IncompleteSteps = append(out.IncompleteSteps, Incomplete{StepIndex: i, Framework: step.Name, Reason: ReasonNotReached})
		case s.completed == nil:
			return Completed{}, fmt.Errorf("%w: step %d has no result", ErrNotRunnable, i+1)
		}
	}
	out.Partial = len(out.IncompleteSteps) > 0
	out.TaskType, out.Estimated, out.Free = w.planned.TaskType, w.planned.Credits, w.Free()
	// The fee is paid by a full completion and by a salvaged deliverable,
	// never when a required step was lost or the run was abandoned.
	if !w.Free() && !abandoned && len(lost) == 0 && !skippedFee {
		out.Fee = w.Fee()
	}
	out.CreditsUsed = w.live - w.refunded + out.Fee
	switch {
	case violated:
		out.Error = "The output of " + strings.Join(lost, ", ") + " violates the output_contract (see incomplete_steps and step_outputs); the run ended without a deliverable and without the orchestration fee."
	case abandoned:
		out.Deliverable = nil
		out.Error = "A step was abandoned after repeated failures in chunked mode; the run ended without a deliverable."
	case len(lost) > 0 && salvaged:
		out.Error = "Missing from the deliverable: " + strings.Join(lost, ", ") + "; the final synthesis could not finish within its retry ladder and the deliverable was assembled from the completed steps."
	case len(lost) > 0:
		out.Error = "Missing from the deliverable: " + strings.Join(lost, ", ") + ". The other steps ran on real results; the quality score measures the deliverable that exists."
	case salvaged:
		out.Error = "The final synthesis could not finish within its retry ladder; the deliverable was assembled from the completed steps."
	}
	return out, nil
}

// HaltOn decides a halt before step n.
func (w *Workflow) HaltOn(n int, reason string, issues []string) Halted {
	return Halted{Step: n, Reason: reason, BlockingIssues: issues, CreditsSaved: w.Remaining()}
}

// Salvage assembles a deliverable from the completed steps, for a terminal
// step that could not finish within its retry ladder.
func (w *Workflow) Salvage() *Deliverable {
	d := &Deliverable{Title: w.planned.Title}
	for _, c := range w.Prior(0) {
		var b strings.Builder
		b.WriteString(c.Summary)
		for _, s := range c.Sections {
			b.WriteString("\n\n" + s.Heading + "\n" + s.Content)
		}
		d.Sections = append(d.Sections, Section{Heading: c.Name, Content: b.String()})
	}
	if len(d.Sections) == 0 {
		d.Sections = []Section{{Heading: "Summary", Content: "No step finished before the synthesis; nothing could be salvaged beyond the task itself: " + w.planned.Description}}
	}
	return d
}
