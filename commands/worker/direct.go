package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/adapters/llm"
	"svc/commands"
	"svc/domain/contract"
	"svc/domain/credit"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore"
)

// Direct execution (spec A): the content steps of a run are composed into
// one tier-2 call, and a Synthesis step with an output_contract answers
// the contract's JSON, validated deterministically in place of the review.

// start appends WorkflowStarted. A direct run that cannot be direct (the
// server disallows it, or the plan is over the composition limit) first
// records its runtime fallback, in the same transaction.
func (r *run) start(ctx context.Context) error {
	var events []eventstore.NewEvent
	if fb, ok := r.wf.RuntimeFallback(!r.w.cfg.DisallowDirect, planning.CompositionLimit); ok {
		r.w.log.Info("direct execution fell back to standard", "workflow_id", r.wf.ID(), "reason", fb.Reason)
		events = append(events, eventstore.NewEvent{Type: workflow.EventExecutionFellBack, Data: fb})
	}
	events = append(events, eventstore.NewEvent{Type: workflow.EventStarted, Data: workflow.Started{Worker: r.w.cfg.ID}})
	return r.append(ctx, nil, events...)
}

// compose runs the content steps of batch (next's step first) in one call
// and records one result per step, charged in one transaction; the call
// is recorded on the first step. A failed call takes the first step down
// standard execution's failure ladder; the others are composed again.
func (r *run) compose(ctx context.Context, next workflow.Next, batch []workflow.PlannedStep) error {
	first := batch[0]
	for _, s := range batch {
		if s.NeedsContext && !r.probed {
			r.probed = true // once per run, as for a single step
			if issues := r.probe(ctx); len(issues) > 0 {
				return r.halt(ctx, s.Step, "connection_failure", issues)
			}
		}
	}
	names := make([]string, len(batch))
	started := make([]eventstore.NewEvent, len(batch))
	for i, s := range batch {
		names[i] = s.Name
		started[i] = eventstore.NewEvent{Type: workflow.EventStepStarted, Data: workflow.StepStarted{Step: s.Step, Name: s.Name, Attempt: r.wf.Attempt(s.Step)}}
	}
	if err := r.append(ctx, nil, started...); err != nil {
		return err
	}
	req := r.request(llm.KindStep, first)
	req.Framework, req.Frameworks = "", names
	start := time.Now()
	resp, err := r.w.llm.Complete(ctx, req)
	var outs []llm.StepOutput
	if err == nil {
		outs, err = llm.ParseComposed(resp.Text, names)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.failed(ctx, first, next, fmt.Errorf("composed call of %d steps: %w", len(batch), err))
	}
	events := make([]eventstore.NewEvent, len(batch))
	for i, s := range batch {
		c := workflow.StepCompleted{Step: s.Step, Name: s.Name, Kind: s.Kind, Summary: outs[i].Summary, Sections: sections(outs[i].Sections),
			Credits: r.wf.StepCharge(s), Calls: []workflow.Call{callOf(resp, start)}}
		if i > 0 {
			c.Calls, c.ComposedInto = []workflow.Call{}, first.Step
			c.Summary = fmt.Sprintf("Written in step %d's composed call (direct execution). %s", first.Step, c.Summary)
		}
		events[i] = eventstore.NewEvent{Type: workflow.EventStepCompleted, Data: c}
	}
	err = r.append(ctx, []also{r.chargeSteps(batch)}, events...)
	if errors.Is(err, credit.ErrInsufficient) {
		return r.halt(ctx, first.Step, "insufficient_credits", []string{fmt.Sprintf(
			"The balance no longer covers steps %d to %d (composed): credits were spent elsewhere while the workflow ran.", first.Step, batch[len(batch)-1].Step)})
	}
	return err
}

// chargeSteps charges every step of steps its estimate, in the workflow's
// transaction: the ledger is read once and must cover them all, so a
// shortfall refuses them together (credit.ErrInsufficient).
func (r *run) chargeSteps(steps []workflow.PlannedStep) also {
	return func(ctx context.Context, tx pgx.Tx) error {
		q := r.wf.Queued()
		var items []credit.Charged
		var total int64
		for _, s := range steps {
			if amount := r.wf.StepCharge(s); amount > 0 {
				items = append(items, credit.Charged{Amount: int64(amount), Reason: "workflow_step", WorkflowID: r.wf.ID(), Step: s.Step, KeyID: q.KeyID, AgentID: q.AgentID})
				total += int64(amount)
			}
		}
		if len(items) == 0 {
			return nil
		}
		ledger, err := commands.LoadLedger(ctx, r.w.store, tx, r.wf.OrgID())
		if err != nil {
			return err
		}
		if _, err := ledger.Charge(credit.Charged{Amount: total, Reason: "workflow_step"}); err != nil {
			return err
		}
		events := make([]eventstore.NewEvent, len(items))
		for i, c := range items {
			d, err := ledger.Charge(c)
			if err != nil {
				return err
			}
			events[i] = eventstore.NewEvent{Type: credit.EventCharged, Data: d, Metadata: eventstore.MetadataFrom(ctx)}
		}
		_, err = r.w.store.AppendTx(ctx, tx, credit.Stream(r.wf.OrgID()), ledger.Version(), events...)
		return err
	}
}

// contractFor is the output_contract step answers under, if any: only the
// Synthesis step of a direct run whose plan carries one.
func (r *run) contractFor(step workflow.PlannedStep) (contract.Contract, bool) {
	if step.Kind != workflow.KindSynthesis {
		return contract.Contract{}, false
	}
	return r.wf.Contract()
}

// validated checks a contract answer: a conforming one becomes the
// deliverable (the findings under the workflow's title); either way the
// outcome goes on the result.
func (r *run) validated(c contract.Contract, text string, out result) result {
	v := c.Validate(text)
	out.validation = &v
	if !v.OK() {
		out.summary = fmt.Sprintf("The output does not conform to the output_contract (%s, %d violations).", v.Status, len(v.Violations))
		return out
	}
	out.deliverable = r.wf.ContractDeliverable(v.Findings)
	out.summary = fmt.Sprintf("Output validated against the output_contract (%s).", v.Status)
	return out
}

// completed is the StepCompleted of step's result res.
func (res result) completed(step workflow.PlannedStep, strategy string, charge int) workflow.StepCompleted {
	c := workflow.StepCompleted{Step: step.Step, Name: step.Name, Kind: step.Kind, Summary: res.summary, Sections: res.sections,
		Deliverable: res.deliverable, Credits: charge, Strategy: strategy, Calls: res.calls}
	if v := res.validation; v != nil {
		c.OutputFindings, c.OutputValidationStatus, c.OutputValidationViolations = v.Findings, string(v.Status), v.Violations
	}
	return c
}

// violated records a step whose output violates the contract as failed
// (incomplete): the run ends completed_partial, without a deliverable.
func (r *run) violated(ctx context.Context, step workflow.PlannedStep, res result) error {
	v := res.validation
	r.w.log.Info("output violates the output_contract", "workflow_id", r.wf.ID(), "step", step.Step, "status", v.Status, "violations", len(v.Violations))
	return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepIncomplete, Data: workflow.StepIncomplete{
		Step: step.Step, Name: step.Name, Reason: workflow.ViolationReason(string(v.Status), v.Violations), Calls: res.calls,
		OutputValidationStatus: string(v.Status), OutputValidationViolations: v.Violations}})
}

// reviewByValidation records the review a conforming contract output gets
// instead of the independent one (no call); false when the run has none.
func (r *run) reviewByValidation(ctx context.Context) (bool, error) {
	rev, ok := r.wf.ValidationReview()
	if !ok {
		return false, nil
	}
	var events []eventstore.NewEvent
	if r.wf.Status() == workflow.StatusExecuting {
		events = append(events, eventstore.NewEvent{Type: workflow.EventReviewStarted, Data: struct{}{}})
	}
	events = append(events, eventstore.NewEvent{Type: workflow.EventReviewed, Data: rev})
	return true, r.append(ctx, nil, events...)
}
