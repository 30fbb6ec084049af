package commands

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
)

// loadOwned loads workflow id inside tx; a missing workflow or one of
// another org is workflow.ErrNotFound.
func loadOwned(ctx context.Context, store *eventstore.Store, tx pgx.Tx, orgID, id string) (*workflow.Workflow, error) {
	if !workflow.ValidID(id) {
		return nil, workflow.ErrNotFound
	}
	events, err := store.LoadFrom(ctx, tx, workflow.Stream(id), 0)
	if err != nil {
		return nil, err
	}
	wf, err := workflow.Load(events)
	if err != nil {
		return nil, err
	}
	if wf.OrgID() != orgID {
		return nil, workflow.ErrNotFound
	}
	return wf, nil
}

// onWorkflow runs fn on workflow id of orgID inside a transaction, again
// (reloaded) when a version conflict on another stream rolled it back.
func onWorkflow(ctx context.Context, store *eventstore.Store, orgID, id string, fn func(tx pgx.Tx, wf *workflow.Workflow) error) error {
	return eventstore.Retry(ctx, attempts, func() error {
		return store.Transact(ctx, func(tx pgx.Tx) error {
			wf, err := loadOwned(ctx, store, tx, orgID, id)
			if err != nil {
				return err
			}
			return fn(tx, wf)
		})
	})
}

// appendWorkflow appends events to wf's stream with its expected version.
// A conflict on that stream is returned as conflict (resume_conflict,
// concurrent_step) instead of being retried; with a nil conflict it stays
// a version conflict, which the command's retry reloads and decides again.
func appendWorkflow(ctx context.Context, store *eventstore.Store, tx pgx.Tx, wf *workflow.Workflow, conflict error, events ...eventstore.NewEvent) (eventstore.Position, error) {
	m := meta(ctx, wf.OrgID())
	for i := range events {
		events[i].Metadata = m
	}
	stream := workflow.Stream(wf.ID())
	pos, err := store.AppendTx(ctx, tx, stream, wf.Version(), events...)
	var c *eventstore.ConflictError
	if conflict != nil && errors.As(err, &c) && c.Stream == stream {
		return pos, conflict
	}
	return pos, err
}

// releaseSlot frees wf's place under the concurrent limit, if it holds one.
func releaseSlot(ctx context.Context, store *eventstore.Store, tx pgx.Tx, wf *workflow.Workflow) error {
	active, err := slots.load(ctx, store, tx, workflow.SlotsStream(wf.OrgID()))
	if err != nil {
		return err
	}
	if !active.Holds(wf.ID()) {
		return nil
	}
	_, err = store.AppendTx(ctx, tx, workflow.SlotsStream(wf.OrgID()), active.Version(),
		eventstore.NewEvent{Type: workflow.EventSlotReleased, Data: workflow.Slot{WorkflowID: wf.ID()}, Metadata: meta(ctx, wf.OrgID())})
	return err
}

// takeSlot gives wf a place under the concurrent limit of tier again (a
// resumed workflow), unless it holds one.
func takeSlot(ctx context.Context, store *eventstore.Store, tx pgx.Tx, wf *workflow.Workflow, tier string) error {
	active, err := slots.load(ctx, store, tx, workflow.SlotsStream(wf.OrgID()))
	if err != nil {
		return err
	}
	if active.Holds(wf.ID()) {
		return nil
	}
	limit := workflow.ConcurrentLimit(tier)
	slot, err := active.Take(wf.ID(), limit)
	if err != nil {
		return &ConcurrentLimitError{Limit: limit, Active: active.Active()}
	}
	_, err = store.AppendTx(ctx, tx, workflow.SlotsStream(wf.OrgID()), active.Version(),
		eventstore.NewEvent{Type: workflow.EventSlotTaken, Data: slot, Metadata: meta(ctx, wf.OrgID())})
	return err
}

// covers checks that the org's balance covers amount credits (a free
// workflow needs nothing).
func covers(ctx context.Context, store *eventstore.Store, tx pgx.Tx, wf *workflow.Workflow, amount int) error {
	if wf.Free() || amount <= 0 {
		return nil
	}
	ledger, err := ledgers.load(ctx, store, tx, credit.Stream(wf.OrgID()))
	if err != nil {
		return err
	}
	if ledger.Balance() < int64(amount) {
		return &InsufficientCreditsError{Required: int64(amount), Balance: ledger.Balance()}
	}
	return nil
}
