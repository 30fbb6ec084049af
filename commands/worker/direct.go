package worker

import (
	"context"
	"fmt"
	"time"

	"svc/adapters/llm"
	"svc/domain/contract"
	"svc/domain/planning"
	"svc/domain/workflow"
)

// Direct execution (spec A): the content steps of a run are composed into
// one tier-2 call, and a Synthesis step with an output_contract answers
// the contract's JSON, validated deterministically in place of the review.

// start records the start of the run (after the runtime fallback of a
// direct run that cannot be direct, in the same transaction).
func (r *run) start(ctx context.Context) error {
	events := r.wf.Start(r.w.cfg.ID, !r.w.cfg.DisallowDirect, planning.CompositionLimit)
	if fb, ok := events[0].(workflow.ExecutionFellBack); ok {
		r.w.log.Info("direct execution fell back to standard", "workflow_id", r.wf.ID(), "reason", fb.Reason)
	}
	then, next := r.then(events) // the first step starts with the run
	if err := r.record(ctx, append(events, then...)...); err != nil {
		return err
	}
	r.started = next
	return nil
}

// compose runs the content steps of batch (next's step first) in one call
// and records one result per step, charged in one transaction. A failed
// call takes the first step down standard execution's failure ladder; the
// others are composed again.
func (r *run) compose(ctx context.Context, next workflow.Next, batch []workflow.PlannedStep) error {
	first := batch[0]
	for _, s := range batch {
		if s.NeedsContext && !r.probed {
			if halted, err := r.probeOnce(ctx, s); halted || err != nil {
				return err
			}
		}
	}
	if err := r.record(ctx, r.wf.StartComposed(batch)...); err != nil {
		return err
	}
	names := make([]string, len(batch))
	for i, s := range batch {
		names[i] = s.Name
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
	results := make([]workflow.Result, len(batch))
	for i := range batch {
		results[i] = workflow.Result{Summary: outs[i].Summary, Sections: outs[i].Sections, Calls: []workflow.Call{callOf(resp, start)}}
	}
	return r.complete(ctx, r.wf.ComposedSucceeded(batch, results), first, batch[len(batch)-1])
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
func (r *run) validated(c contract.Contract, text string, out workflow.Result) workflow.Result {
	v := c.Validate(text)
	out.Validation = &v
	if !v.OK() {
		out.Summary = fmt.Sprintf("The output does not conform to the output_contract (%s, %d violations).", v.Status, len(v.Violations))
		return out
	}
	out.Deliverable = r.wf.ContractDeliverable(v.Findings)
	out.Summary = fmt.Sprintf("Output validated against the output_contract (%s).", v.Status)
	return out
}
