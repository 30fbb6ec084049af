package commands

import (
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
)

// Helpers that coordinate the workflow aggregate with the org-level ones
// inside a command's transaction.

// releaseSlot frees wf's place under the concurrent limit, if it holds one.
func releaseSlot(tx *eventstore.Tx, repos *Repositories, wf *workflow.Workflow) error {
	active, err := repos.Slots.Load(tx, wf.OrgID())
	if err != nil {
		return err
	}
	if released, ok := active.Release(wf.ID()); ok {
		_, err = repos.Slots.Save(tx, wf.OrgID(), active, released)
	}
	return err
}

// takeSlot gives wf a place under the concurrent limit of tier again (a
// resumed workflow), unless it holds one.
func takeSlot(tx *eventstore.Tx, repos *Repositories, wf *workflow.Workflow, tier string) error {
	active, err := repos.Slots.Load(tx, wf.OrgID())
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
	_, err = repos.Slots.Save(tx, wf.OrgID(), active, slot)
	return err
}

// covers checks that the org's balance covers amount credits (a free
// workflow needs nothing).
func covers(tx *eventstore.Tx, repos *Repositories, wf *workflow.Workflow, amount int) error {
	if wf.Free() || amount <= 0 {
		return nil
	}
	ledger, err := repos.Ledgers.Load(tx, wf.OrgID())
	if err != nil {
		return err
	}
	if ledger.Balance() < int64(amount) {
		return &InsufficientCreditsError{Required: int64(amount), Balance: ledger.Balance()}
	}
	return nil
}

// insufficient is the error of a balance that does not cover required.
func insufficient(l *credit.Ledger, required int64) error {
	return &InsufficientCreditsError{Required: required, Balance: l.Balance()}
}
