package workflow

import (
	"fmt"

	"svc/domain/contract"
	"svc/eventstore/event"
)

// The decisions of a run: a worker asks Next what to do, makes the LLM
// calls, and hands each outcome to the methods below, which return the
// events to append. No rule that picks an event lives in the worker.

// ladder is the terminal step's strategy at attempt n (1 for the first):
// normal, compressed, chunked, then the salvage that needs no model.
func ladder(n int) string {
	return []string{"", StrategyCompressed, StrategyChunked, StrategySalvage}[min(max(n, 1), TerminalMaxAttempts)-1]
}

// Start decides the start of a queued (or approved, or resuming) run: its
// WorkflowStarted, after the runtime fallback of a direct run that cannot
// be direct (allowed is the server's switch, limit the composition limit).
func (w *Workflow) Start(worker string, allowed bool, limit int) []event.Data {
	var out []event.Data
	if fb, ok := w.RuntimeFallback(allowed, limit); ok {
		out = append(out, fb)
	}
	return append(out, Started{Worker: worker})
}

// TakeOver decides what a worker records when it picks up a run another
// worker left mid-way (executing or in review); nil when the run was not
// left mid-way.
func (w *Workflow) TakeOver(worker string) []event.Data {
	if w.status != StatusExecuting && w.status != StatusQualityReview {
		return nil
	}
	return []event.Data{Started{Worker: worker, Resumed: true}}
}

// StartStep decides the StepStarted of next.
func (w *Workflow) StartStep(next Next) StepStarted {
	return StepStarted{Step: next.Step.Step, Name: next.Step.Name, Attempt: next.Attempt, Strategy: next.Strategy}
}

// StartChunk decides the StepStarted of try (0 first) of chunk i of n of
// step, run in chunked mode at attempt.
func (w *Workflow) StartChunk(step PlannedStep, attempt, i, n, try int) StepStarted {
	return StepStarted{Step: step.Step, Name: step.Name, Attempt: attempt, Retry: try, Strategy: StrategyChunked, Chunk: &Chunk{Index: i, Total: n}}
}

// StartComposed decides the StepStarted of every step of a composed call
// (direct execution).
func (w *Workflow) StartComposed(batch []PlannedStep) []event.Data {
	out := make([]event.Data, len(batch))
	for i, s := range batch {
		out[i] = StepStarted{Step: s.Step, Name: s.Name, Attempt: w.Attempt(s.Step)}
	}
	return out
}

// SalvageStep decides the terminal step's last rung: a deliverable assembled
// from the completed steps, without a model.
func (w *Workflow) SalvageStep(step PlannedStep) StepIncomplete {
	return StepIncomplete{Step: step.Step, Name: step.Name, Reason: ReasonBudgetExhausted, Salvaged: true, Deliverable: w.Salvage()}
}

// Result is what a step's call (or calls, when chunked) wrote.
type Result struct {
	Summary     string
	Sections    []Section
	Deliverable *Deliverable
	Calls       []Call
	// Validation is the output_contract's verdict on a contract answer.
	Validation *contract.Result
}

// StepSucceeded decides the record of step's result written under
// strategy: StepCompleted, charged the step's price (StepCharge: the caller
// charges the ledger the same amount in the same transaction), or, for an
// output that violates the output_contract, StepIncomplete (a failed step,
// no deliverable).
func (w *Workflow) StepSucceeded(step PlannedStep, strategy string, r Result) event.Data {
	if v := r.Validation; v != nil && !v.OK() {
		return StepIncomplete{Step: step.Step, Name: step.Name, Reason: ViolationReason(string(v.Status), v.Violations), Calls: r.Calls,
			OutputValidationStatus: string(v.Status), OutputValidationViolations: v.Violations}
	}
	c := StepCompleted{Step: step.Step, Name: step.Name, Kind: step.Kind, Summary: r.Summary, Sections: r.Sections,
		Deliverable: r.Deliverable, Credits: w.StepCharge(step), Strategy: strategy, Calls: r.Calls}
	if v := r.Validation; v != nil {
		c.OutputFindings, c.OutputValidationStatus, c.OutputValidationViolations = v.Findings, string(v.Status), v.Violations
	}
	return c
}

// ComposedSucceeded decides the results of a composed call (direct
// execution): one StepCompleted per step of batch, each charged its price;
// the call is recorded on the first step, which the others point to.
func (w *Workflow) ComposedSucceeded(batch []PlannedStep, outputs []Result) []event.Data {
	first := batch[0].Step
	out := make([]event.Data, len(batch))
	for i, s := range batch {
		c := StepCompleted{Step: s.Step, Name: s.Name, Kind: s.Kind, Summary: outputs[i].Summary, Sections: outputs[i].Sections,
			Credits: w.StepCharge(s), Calls: outputs[i].Calls}
		if i > 0 {
			c.Calls, c.ComposedInto = []Call{}, first
			c.Summary = fmt.Sprintf("Written in step %d's composed call (direct execution). %s", first, c.Summary)
		}
		out[i] = c
	}
	return out
}

// Failure is what a failed call tells the aggregate.
type Failure struct {
	// Cause is the error, for operators (events' error fields, logs).
	Cause string
	// TimedOut is a call over its time budget.
	TimedOut bool
}

// says is the failure in words fit for the customer: never the providers'
// hosts, status codes or answers.
func (f Failure) says() string {
	if f.TimedOut {
		return "it ran out of its time budget"
	}
	return "every LLM provider failed"
}

// FailureOutcome is what a step failure does to the run: events to record, or
// another try in parts first, or the end of the run.
type FailureOutcome struct {
	// Events are recorded, and the run goes on from them.
	Events []event.Data
	// RetryChunked asks for the step again in parts (ChunkedFailed
	// decides if that fails too).
	RetryChunked bool
	// FailRun ends the run as failed (provider_exhausted): the caller
	// refunds the charges and records Fail's event.
	FailRun bool
}

// StepFailed decides what the failure of next does to the run: the
// terminal step climbs its retry ladder; a content step over its time
// budget is tried in parts; a required research step is lost, not the
// run; a step needing material nobody supplied ends incomplete; anything
// else fails the run.
func (w *Workflow) StepFailed(next Next, f Failure) FailureOutcome {
	step := next.Step
	switch {
	case step.Kind == KindSynthesis:
		// the rung after the failed one: starts a takeover abandoned
		// climb nothing (next.Attempt counts them)
		attempt := w.rung() + 1
		strategy := ladder(attempt)
		return FailureOutcome{Events: []event.Data{TerminalRetrying{StepIndex: step.Step - 1, StepName: step.Name, Attempt: attempt,
			MaxAttempts: TerminalMaxAttempts, Strategy: strategy,
			Message: fmt.Sprintf("%s could not finish (%s); attempt %d of %d uses the %s strategy.", step.Name, f.says(), attempt, TerminalMaxAttempts, strategy)}}}
	case f.TimedOut && next.Strategy == "":
		return FailureOutcome{RetryChunked: true}
	case step.Kind == KindResearch && step.PriorityClass == "must":
		return FailureOutcome{Events: []event.Data{w.lost(step, f)}}
	case step.NeedsContext && w.planned.ContextLess:
		return FailureOutcome{Events: []event.Data{StepIncomplete{Step: step.Step, Name: step.Name, Error: f.Cause,
			Reason: fmt.Sprintf("%s needs material nobody supplied (no connection, no additional context), as the plan warned; it is absent from the deliverable.", step.Name)}}}
	}
	return FailureOutcome{FailRun: true}
}

// ChunkedFailed decides the end of a step that failed in parts too: a
// required research step is lost; any other is abandoned, and the run
// ends without a deliverable.
func (w *Workflow) ChunkedFailed(step PlannedStep, f Failure) event.Data {
	if step.Kind == KindResearch && step.PriorityClass == "must" {
		return w.lost(step, f)
	}
	return StepIncomplete{Step: step.Step, Name: step.Name, Reason: ReasonChunksAbandoned, Error: f.Cause, Abandoned: true}
}

// lost is a required research step lost: the run goes on without it.
func (w *Workflow) lost(step PlannedStep, f Failure) StepIncomplete {
	return StepIncomplete{Step: step.Step, Name: step.Name, Error: f.Cause,
		Reason: fmt.Sprintf("The required research step %s was lost (%s); the later steps ran without its findings.", step.Name, f.says())}
}

// Fail decides the end of a run whose step failed past every fallback:
// code (provider_exhausted), the customer's message naming the step (not
// the provider), the cause for operators, and refunded, the credits the
// caller refunds in the same transaction.
func (w *Workflow) Fail(step int, code string, f Failure, refunded int) Failed {
	name := ""
	if step >= 1 && step <= len(w.planned.Steps) {
		name = " (" + w.planned.Steps[step-1].Name + ")"
	}
	return Failed{Code: code, Step: step, Cause: f.Cause, Refunded: refunded,
		Error: fmt.Sprintf("%s: every LLM provider failed at step %d%s; the credits charged were refunded.", code, step, name)}
}

// Pause decides the stop at the approval gate before step, with the
// deliverable so far.
func (w *Workflow) Pause(step PlannedStep) ApprovalRequested {
	return ApprovalRequested{Gate: step.Step - 1, Step: step.Step, Deliverable: w.PartialDeliverable()}
}

// StartReview decides the start of the independent review (nothing when
// a resumed run is in review already).
func (w *Workflow) StartReview() []event.Data {
	if w.status == StatusExecuting {
		return []event.Data{ReviewStarted{}}
	}
	return nil
}

// Review is what the independent review said; a nil Score is a review
// that could not run (Failure says why).
type Review struct {
	Score     *int
	Summary   string
	PathTo100 []string
	Calls     []Call
	Failure   *Failure
}

// Reviewed decides the record of the review: the score and what it said,
// or an unscored deliverable (never 0) when the review could not run.
func (w *Workflow) Reviewed(r Review) event.Data {
	if r.Failure != nil || r.Score == nil {
		why := "the review gave no score"
		if r.Failure != nil {
			why = r.Failure.says()
		}
		return Reviewed{Summary: "The independent review could not run (" + why + "); the deliverable is unscored."}
	}
	return Reviewed{Score: r.Score, Summary: r.Summary, PathTo100: r.PathTo100, Calls: r.Calls}
}

// ReviewByValidation decides the review a conforming contract output
// gets instead of the independent one (no call); ok is false when the run
// has none.
func (w *Workflow) ReviewByValidation() (events []event.Data, ok bool) {
	rev, ok := w.ValidationReview()
	if !ok {
		return nil, false
	}
	return append(w.StartReview(), rev), true
}

// WaiveFee drops the orchestration fee from a completion the balance no
// longer covers: the deliverable is not held back for it.
func (c Completed) WaiveFee() Completed {
	c.CreditsUsed -= c.Fee
	c.Fee = 0
	return c
}

// InsufficientCredits decides the halt of a run whose step charge the
// balance no longer covers (credits spent elsewhere while it ran), before
// steps from..to (one step when equal).
func (w *Workflow) InsufficientCredits(from, to PlannedStep, charge int) Halted {
	issue := fmt.Sprintf("The balance no longer covers step %d (%s, %d credits): credits were spent elsewhere while the workflow ran.", from.Step, from.Name, charge)
	if to.Step != from.Step {
		issue = fmt.Sprintf("The balance no longer covers steps %d to %d (composed): credits were spent elsewhere while the workflow ran.", from.Step, to.Step)
	}
	return w.HaltOn(from.Step, "insufficient_credits", []string{issue})
}
