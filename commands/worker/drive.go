package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
)

// run is one workflow being driven.
type run struct {
	w  *Worker
	wf *workflow.Workflow
	// appended are the events of the transaction in progress, folded
	// into wf once it commits (no read back).
	appended []eventstore.NewEvent
	// probed is set once the plan's context connections were checked.
	probed bool
}

// errLost stops a run whose stream moved under it (another worker).
var errLost = errors.New("workflow moved by another worker")

// drive runs workflow id until it ends, its lease is lost or ctx ends.
func (w *Worker) drive(ctx context.Context, id string) {
	defer w.release(id) // after the cancel below: no renewal races the release
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go w.keepLease(ctx, id, cancel)

	events, err := w.store.Load(ctx, workflow.Stream(id))
	if err != nil {
		w.log.Warn("loading a workflow", "workflow_id", id, "error", err)
		return
	}
	wf, err := workflow.Load(events)
	if err != nil {
		w.log.Error("folding a workflow", "workflow_id", id, "error", err)
		return
	}
	r := &run{w: w, wf: wf}
	ctx = eventstore.WithMetadata(ctx, eventstore.Metadata{OrgID: wf.OrgID(), Actor: "system", CorrelationID: id})
	if wf.Status() == workflow.StatusExecuting || wf.Status() == workflow.StatusQualityReview {
		// a run another worker left: say who carries on
		if err := r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStarted, Data: workflow.Started{Worker: w.cfg.ID, Resumed: true}}); err != nil {
			r.stopped(err)
			return
		}
	}
	for ctx.Err() == nil {
		next := r.wf.Next()
		var err error
		switch next.Action {
		case workflow.ActNone:
			return
		case workflow.ActStart:
			err = r.start(ctx) // direct.go
		case workflow.ActStep:
			err = r.step(ctx, next)
		case workflow.ActReview:
			err = r.review(ctx)
		case workflow.ActFinish:
			err = r.finish(ctx)
		case workflow.ActPause:
			err = r.pause(ctx, next.Step)
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

// also is a write of the same transaction as a workflow event, on another
// stream (the org's ledger, its active slots).
type also func(ctx context.Context, tx pgx.Tx) error

// append appends events to the workflow with its expected version, and
// the writes of extra in the same transaction; it then folds what it wrote.
func (r *run) append(ctx context.Context, extra []also, events ...eventstore.NewEvent) error {
	durable := false
	for _, e := range events {
		durable = durable || e.Type == workflow.EventCompleted || e.Type == workflow.EventHalted || e.Type == workflow.EventFailed
	}
	err := r.transact(ctx, durable, func(ctx context.Context, tx pgx.Tx) error {
		if err := r.appendTx(ctx, tx, events...); err != nil {
			return err
		}
		for _, f := range extra {
			if err := f(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.catchUp(ctx)
}

// transact runs fn in a transaction, again when another stream (a busy
// ledger) conflicted; a conflict on the workflow's own stream means
// another worker moved it: errLost, not retried. A transaction that is
// not durable commits without waiting for the WAL flush (decision 44):
// losing it in a database crash only makes a worker run a step again.
func (r *run) transact(ctx context.Context, durable bool, fn func(ctx context.Context, tx pgx.Tx) error) error {
	err := eventstore.Retry(ctx, 32, func() error {
		r.appended = nil
		return r.w.store.Transact(ctx, func(tx pgx.Tx) error {
			if !durable {
				if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
					return err
				}
			}
			return fn(ctx, tx)
		})
	})
	if err != nil {
		r.appended = nil
	}
	return err
}

// appendTx appends events to the workflow's stream inside tx.
func (r *run) appendTx(ctx context.Context, tx pgx.Tx, events ...eventstore.NewEvent) error {
	m := eventstore.MetadataFrom(ctx)
	for i := range events {
		events[i].Metadata = m
	}
	stream := workflow.Stream(r.wf.ID())
	_, err := r.w.store.AppendTx(ctx, tx, stream, r.wf.Version(), events...)
	var conflict *eventstore.ConflictError
	if errors.As(err, &conflict) && conflict.Stream == stream {
		return errLost
	}
	if err == nil {
		r.appended = append(r.appended, events...)
	}
	return err
}

// catchUp folds the events the last transaction appended, as written,
// without reading them back.
func (r *run) catchUp(context.Context) error {
	now := time.Now()
	for _, ne := range r.appended {
		data, err := json.Marshal(ne.Data)
		if err != nil {
			return err
		}
		e := eventstore.Event{StreamID: workflow.Stream(r.wf.ID()), Version: r.wf.Version() + 1, Type: ne.Type, Data: data,
			Metadata: ne.Metadata, RecordedAt: now}
		if err := r.wf.Apply(e); err != nil {
			return err
		}
	}
	r.appended = nil
	return nil
}

// charge appends a charge to the org's ledger in the workflow's
// transaction.
func (r *run) charge(amount int, reason string, step int) also {
	return func(ctx context.Context, tx pgx.Tx) error {
		if amount <= 0 {
			return nil
		}
		q := r.wf.Queued()
		ledger, err := commands.LoadLedger(ctx, r.w.store, tx, r.wf.OrgID())
		if err != nil {
			return err
		}
		c, err := ledger.Charge(credit.Charged{Amount: int64(amount), Reason: reason, WorkflowID: r.wf.ID(), Step: step, KeyID: q.KeyID, AgentID: q.AgentID})
		if err != nil {
			return err
		}
		_, err = r.w.store.AppendTx(ctx, tx, credit.Stream(r.wf.OrgID()), ledger.Version(), eventstore.NewEvent{Type: credit.EventCharged, Data: c, Metadata: eventstore.MetadataFrom(ctx)})
		return err
	}
}

// refund returns every credit charged to the workflow, in its transaction;
// the amount goes into *refunded.
func (r *run) refund(refunded *int) also {
	return func(ctx context.Context, tx pgx.Tx) error {
		ledger, err := commands.LoadLedger(ctx, r.w.store, tx, r.wf.OrgID())
		if err != nil {
			return err
		}
		amount := ledger.ChargedTo(r.wf.ID())
		*refunded = int(amount)
		if amount <= 0 {
			return nil
		}
		d, err := ledger.Refund(r.wf.ID(), amount, "workflow_failed")
		if err != nil {
			return err
		}
		_, err = r.w.store.AppendTx(ctx, tx, credit.Stream(r.wf.OrgID()), ledger.Version(), eventstore.NewEvent{Type: credit.EventRefunded, Data: d, Metadata: eventstore.MetadataFrom(ctx)})
		return err
	}
}

// releaseSlot frees the workflow's place under the concurrent limit, in
// the transaction of its terminal event.
func (r *run) releaseSlot() also {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := r.w.store.AppendTx(ctx, tx, workflow.SlotsStream(r.wf.OrgID()), eventstore.AnyVersion,
			eventstore.NewEvent{Type: workflow.EventSlotReleased, Data: workflow.Slot{WorkflowID: r.wf.ID()}, Metadata: eventstore.MetadataFrom(ctx)})
		return err
	}
}

// finish appends the terminal event of a run whose steps all have results.
func (r *run) finish(ctx context.Context) error {
	done, err := r.wf.Finish()
	if err != nil {
		return err
	}
	err = r.append(ctx, []also{r.charge(done.Fee, "orchestration_fee", 0), r.releaseSlot()},
		eventstore.NewEvent{Type: workflow.EventCompleted, Data: done})
	if errors.Is(err, credit.ErrInsufficient) {
		// the balance was spent elsewhere since execute checked it: the
		// deliverable is not held back for the fee
		r.w.log.Warn("orchestration fee not covered by the balance; completing without it", "workflow_id", r.wf.ID(), "fee", done.Fee)
		done.CreditsUsed -= done.Fee
		done.Fee = 0
		err = r.append(ctx, []also{r.releaseSlot()}, eventstore.NewEvent{Type: workflow.EventCompleted, Data: done})
	}
	if err == nil {
		r.w.log.Info("workflow finished", "workflow_id", r.wf.ID(), "status", r.wf.Status(), "credits_used", r.wf.View(false).CreditsUsed)
	}
	return err
}

// fail ends the run as failed and refunds its per-step charges; the
// refund is decided inside the transaction and the event carries it.
func (r *run) fail(ctx context.Context, step int, code string, cause error) error {
	name := ""
	if step >= 1 && step <= len(r.wf.Planned().Steps) {
		name = " (" + r.wf.Planned().Steps[step-1].Name + ")"
	}
	// the error shown to the customer names the step, not the provider's
	// host or answer; the cause stays in the event and the log
	d := workflow.Failed{Code: code, Step: step, Cause: cause.Error(),
		Error: fmt.Sprintf("%s: every LLM provider failed at step %d%s; the credits charged were refunded.", code, step, name)}
	var refunded int
	refund := r.refund(&refunded)
	err := r.transact(ctx, true, func(ctx context.Context, tx pgx.Tx) error {
		if err := refund(ctx, tx); err != nil {
			return err
		}
		d.Refunded = refunded
		if err := r.appendTx(ctx, tx, eventstore.NewEvent{Type: workflow.EventFailed, Data: d}); err != nil {
			return err
		}
		return r.releaseSlot()(ctx, tx)
	})
	if err != nil {
		return err
	}
	r.w.log.Warn("workflow failed", "workflow_id", r.wf.ID(), "code", code, "step", step, "refunded", refunded, "error", cause)
	return r.catchUp(ctx)
}

// pause stops the run at the approval gate before step, with the
// deliverable so far; approve or resume moves it on.
func (r *run) pause(ctx context.Context, step workflow.PlannedStep) error {
	r.w.log.Info("workflow paused for approval", "workflow_id", r.wf.ID(), "step", step.Step)
	return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventApprovalRequested, Data: workflow.ApprovalRequested{
		Gate: step.Step - 1, Step: step.Step, Deliverable: r.wf.PartialDeliverable()}})
}

// halt ends the run as halted before step n.
func (r *run) halt(ctx context.Context, n int, reason string, issues []string) error {
	h := r.wf.HaltOn(n, reason, issues)
	r.w.log.Warn("workflow halted", "workflow_id", r.wf.ID(), "step", n, "reason", reason)
	return r.append(ctx, []also{r.releaseSlot()}, eventstore.NewEvent{Type: workflow.EventHalted, Data: h})
}

// since is milliseconds since t, for call records.
func since(t time.Time) int64 { return time.Since(t).Milliseconds() }
