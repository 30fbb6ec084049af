package worker

import (
	"context"
	"errors"
	"slices"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// run is one workflow being driven: the worker makes the calls, the
// aggregate decides every event (domain/workflow, run.go).
type run struct {
	w  *Worker
	wf *workflow.Workflow
	// probed is set once the plan's context connections were checked.
	probed bool
	// started is the step whose StepStarted the last append carried
	// (with what ended the step before it, or the run's start): the
	// next turn runs it without recording its start again.
	started *workflow.Next
}

// errLost stops a run whose stream moved under it (another worker).
var errLost = errors.New("workflow moved by another worker")

// drive runs workflow id until it ends, its lease is lost or ctx ends.
func (w *Worker) drive(ctx context.Context, id string) {
	wf, err := w.repos.Workflows.Get(ctx, id)
	if err != nil {
		w.log.Warn("loading a workflow", "workflow_id", id, "error", err)
		return
	}
	r := &run{w: w, wf: wf}
	ctx = event.WithMetadata(ctx, event.Metadata{OrgID: wf.OrgID(), Actor: "system", CorrelationID: id})
	// a run another worker left: say who carries on
	if err := r.record(ctx, wf.TakeOver(w.cfg.ID)...); err != nil {
		r.stopped(err)
		return
	}
	for ctx.Err() == nil {
		next, started := r.wf.Next(), false
		if s := r.started; s != nil {
			r.started = nil
			// the fold of the StepStarted makes Next count it as an
			// attempt: this run is that attempt
			if started = next.Action == workflow.ActStep && next.Step.Step == s.Step.Step; started {
				next = *s
			}
		}
		var err error
		switch next.Action {
		case workflow.ActNone:
			return
		case workflow.ActStart:
			err = r.start(ctx) // direct.go
		case workflow.ActStep:
			err = r.step(ctx, next, started)
		case workflow.ActReview:
			err = r.review(ctx)
		case workflow.ActFinish:
			err = r.finish(ctx)
		case workflow.ActPause:
			r.w.log.Info("workflow paused for approval", "workflow_id", r.wf.ID(), "step", next.Step.Step)
			err = r.record(ctx, r.wf.Pause(next.Step))
		}
		if err != nil {
			r.stopped(err)
			return
		}
	}
}

// stopped logs why a run stopped before its end.
func (r *run) stopped(err error) {
	switch {
	case errors.Is(err, context.Canceled):
		r.w.log.Info("run paused: lease handed back", "workflow_id", r.wf.ID())
	case errors.Is(err, errLost):
		r.w.log.Info("run stopped: another worker moved the workflow", "workflow_id", r.wf.ID())
	default:
		r.w.log.Error("run stopped", "workflow_id", r.wf.ID(), "error", err)
	}
}

// record appends the events the aggregate decided to the workflow, with
// its expected version, in a transaction of its own.
func (r *run) record(ctx context.Context, data ...event.Data) error {
	if len(data) == 0 {
		return nil
	}
	return r.transact(ctx, data, nil)
}

// transact appends data to the workflow and runs also (writes to the org's
// ledger and slots) in the same transaction, again when another stream (a
// busy ledger) conflicted; once it commits the workflow folds what it
// wrote. A conflict on the workflow's own stream means another worker
// moved it: errLost, not retried. A transaction that does not end the run
// commits without waiting for the WAL flush (decision 44): losing it in a
// database crash only makes a worker run a step again.
func (r *run) transact(ctx context.Context, data []event.Data, also func(tx *eventstore.Tx) error) error {
	opts := eventstore.TxOptions{Async: !workflow.Ends(data...)}
	_, err := r.w.repos.Store.Run(ctx, opts, func(tx *eventstore.Tx) error {
		_, err := r.w.repos.Workflows.Save(tx, r.wf.ID(), r.wf, data...)
		if r.w.repos.Workflows.Conflict(err, r.wf.ID()) {
			return errLost
		}
		if err != nil || also == nil {
			return err
		}
		return also(tx)
	})
	return err
}

// charges are the ledger's charges for amounts by step (0 for the fee),
// each step its price (workflow.StepCharge) as recorded with it, in step
// order. They name the workflow's workspace and the UTC month they are
// decided in: they count against that month's budget (credit/budget.go).
func (r *run) charges(reason string, amounts map[int]int) []credit.Charged {
	q := r.wf.Queued()
	ws, month := r.wf.Planned().WorkspaceID, ""
	if ws != "" {
		month = credit.MonthOf(time.Now())
	}
	var out []credit.Charged
	for step := 0; step <= len(r.wf.Planned().Steps); step++ {
		if a := amounts[step]; a > 0 {
			out = append(out, credit.Charged{Amount: int64(a), Reason: reason, WorkflowID: r.wf.ID(), Step: step, KeyID: q.KeyID, AgentID: q.AgentID,
				WorkspaceID: ws, Month: month})
		}
	}
	return out
}

// end is the org-level side of the run's terminal event, appended after it
// in its transaction (commands.EndRun): the ledger settles the run (the
// fee) and releases what is left of its reservation, and the slot is
// freed.
func (r *run) end(tx *eventstore.Tx, s credit.Settlement) error {
	_, err := commands.EndRun(tx, r.w.repos, r.wf, s, nil)
	return err
}

// complete records results of steps (StepCompleted, or a StepIncomplete of
// an output that violates the output_contract) and charges each its price,
// in one transaction, which other runs of the org finishing a step at the
// same time may share (charge.go); the start of what follows (the next
// step, the review) goes in the same append when nothing comes between
// (then). A charge the run's reservation and the spendable balance no
// longer cover halts the run instead.
func (r *run) complete(ctx context.Context, results []event.Data, first, last workflow.PlannedStep) error {
	amounts := map[int]int{}
	total := 0
	for _, d := range results {
		if c, ok := d.(workflow.StepCompleted); ok {
			amounts[c.Step] += c.Credits
			total += c.Credits
		}
	}
	then, next := r.then(results)
	err := r.w.charges.write(ctx, r, append(results, then...), r.charges("workflow_step", amounts))
	if errors.Is(err, credit.ErrInsufficient) {
		return r.halt(ctx, r.wf.InsufficientCredits(first, last, total))
	}
	if err == nil {
		r.started = next
	}
	return err
}

// then is what the run starts next once data is recorded, to append with
// data: the StepStarted of the next step (next) when the aggregate's next
// action is to run a step at once, in a plain call (not composed, chunked
// or salvaged, and with no connection check before it), or the review's
// start. Nil when something else comes first: that turn records it.
func (r *run) then(data []event.Data) ([]event.Data, *workflow.Next) {
	after, err := r.wf.After(time.Now(), data...)
	if err != nil {
		return nil, nil // the append fails the same way
	}
	next := after.Next()
	switch next.Action {
	case workflow.ActReview:
		if _, ok := after.ReviewByValidation(); ok {
			return nil, nil
		}
		return after.StartReview(), nil
	case workflow.ActStep:
		if next.Strategy == workflow.StrategySalvage || next.Strategy == workflow.StrategyChunked ||
			(next.Step.NeedsContext && !r.probed) || len(after.Composable(next.Step)) > 1 {
			return nil, nil
		}
		return []event.Data{after.StartStep(next)}, &next
	}
	return nil, nil
}

// finish appends the terminal event of a run whose steps all have results,
// with the fee drawn on the run's reservation and the rest of it released.
func (r *run) finish(ctx context.Context) error { return r.finishAfter(ctx, r.wf, nil) }

// finishAfter is finish of the run as it stands once pre (the review,
// not appended yet) is recorded: pre and the terminal event are appended
// in one transaction.
func (r *run) finishAfter(ctx context.Context, state *workflow.Workflow, pre []event.Data) error {
	done, err := state.Finish()
	if err != nil {
		return err
	}
	// the ending may share its transaction with other runs of the org
	// (charge.go): what EndRun does, for all of them at once
	err = r.w.charges.end(ctx, r, append(slices.Clip(pre), done),
		credit.Settlement{Reason: done.EventType(), Charges: r.charges("orchestration_fee", map[int]int{0: done.Fee})})
	if errors.Is(err, credit.ErrInsufficient) {
		// a run without a reservation whose balance was spent elsewhere
		// since execute checked it: the deliverable is not held back for
		// the fee
		r.w.log.Warn("orchestration fee not covered by the balance; completing without it", "workflow_id", r.wf.ID(), "fee", done.Fee)
		waived := done.WaiveFee()
		err = r.w.charges.end(ctx, r, append(slices.Clip(pre), waived), credit.Settlement{Reason: waived.EventType()})
	}
	if err == nil {
		r.w.log.Info("workflow finished", "workflow_id", r.wf.ID(), "status", r.wf.Status(), "credits_used", r.wf.View(false).CreditsUsed)
	}
	return err
}

// fail ends the run as failed at step, refunds every credit charged to it
// and releases what is left of its reservation; the refund is decided
// inside the transaction and the event carries it.
func (r *run) fail(ctx context.Context, step int, f workflow.Failure) error {
	var failed workflow.Failed
	_, err := r.w.repos.Store.Run(ctx, eventstore.TxOptions{}, func(tx *eventstore.Tx) error {
		_, err := commands.EndRun(tx, r.w.repos, r.wf, credit.Settlement{Reason: workflow.EventFailed, Refund: "workflow_failed"},
			func(settled credit.SettleResult) error {
				failed = r.wf.Fail(step, "provider_exhausted", f, int(settled.Refunded))
				_, err := r.w.repos.Workflows.Save(tx, r.wf.ID(), r.wf, failed)
				if r.w.repos.Workflows.Conflict(err, r.wf.ID()) {
					return errLost
				}
				return err
			})
		return err
	})
	if err == nil {
		r.w.log.Warn("workflow failed", "workflow_id", r.wf.ID(), "code", failed.Code, "step", step, "refunded", failed.Refunded, "error", f.Cause)
	}
	return err
}

// halt ends the run as halted, releasing what is left of its reservation.
func (r *run) halt(ctx context.Context, h workflow.Halted) error {
	r.w.log.Warn("workflow halted", "workflow_id", r.wf.ID(), "step", h.Step, "reason", h.Reason)
	return r.transact(ctx, []event.Data{h}, func(tx *eventstore.Tx) error {
		return r.end(tx, credit.Settlement{Reason: h.EventType()})
	})
}

// since is milliseconds since t, for call records.
func since(t time.Time) int64 { return time.Since(t).Milliseconds() }
