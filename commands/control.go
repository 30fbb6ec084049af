package commands

import (
	"errors"

	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Helpers that coordinate the workflow aggregate with the org-level ones
// inside a command's transaction.
//
// Append order. An append waits for another transaction's uncommitted
// append at the same version of the same stream (the unique index), so two
// transactions appending to two shared streams in opposite orders can wait
// on each other: a deadlock. Every transaction that appends to more than
// one of a workflow's stream, its org's ledger and its org's slots appends
// in that order: the workflow's events first, then the ledger's, then the
// slot's (execute, resume, every path that ends a run, the worker's steps).
//
// Org lock. A transaction that loads the org's ledger or its slots to
// append to them (a reservation, a step's charge, a settlement, a slot
// taken or released) first takes the org's lock until it ends (LockOrg),
// at the ledger's place in the append order (after the workflow's
// appends), and loads them after it. Under a burst of runs on one org both
// streams move with every step, start and end: with the optimistic check
// alone, a transaction that lost the race would start over again and again
// (an execute could run out of tries); with the lock they queue, and each
// appends at the version it read. Appends to the ledger outside a
// transaction (a grant, enhance's charge) keep the plain optimistic check,
// which a locked transaction may still meet (it then runs again).

// orgLockClass is the first key of the org locks (two-key advisory locks,
// apart from the one-key ones such as the interactive step lock).
const orgLockClass = 7_240_002

// lockOrgSQL takes the org's lock until the transaction ends.
const lockOrgSQL = `SELECT pg_advisory_xact_lock($1, hashtext($2))`

// LockOrg takes the org's lock until tx ends (see "Org lock" above).
func LockOrg(tx *eventstore.Tx, orgID string) error {
	_, err := tx.DB().Exec(tx.Context(), lockOrgSQL, orgLockClass, orgID)
	return err
}

// LoadLedger takes the org's lock and loads its ledger in tx, for a
// transaction that appends to it: in one round trip when this process has
// folded the ledger before (its fold cache), the lock and the read of the
// ledger's events since sent together, so the lock is held one round
// trip less.
func LoadLedger(tx *eventstore.Tx, repos *Repositories, orgID string) (*credit.Ledger, error) {
	return repos.Ledgers.LoadAfter(tx, orgID, lockOrgSQL, orgLockClass, orgID)
}

// EndRun is the org-level side of the event that ends wf's run, appended
// in that event's transaction: the org's ledger settles the run (s.Charges,
// the orchestration fee, drawn on the run's reservation first; or s.Refund,
// the refund of what a failed run was charged) and releases what is left
// of its reservation (credit.Ledger.Settle), and the run's place under the
// concurrent limit is freed. Every path that ends a run goes through it:
// the worker's finish, fail and halt, bulk cancel, rejection at an
// approval gate, and an interactive run's abort and timeout. s.WorkflowID
// is wf's; s.Reason names the terminal event (its type).
//
// The terminal event is appended before EndRun's own appends (see the
// append order): by the caller before the call, or by terminal, which
// EndRun calls once the settlement is decided, for a terminal event that
// carries it (a failure's refund). A settlement the ledger refuses (a fee
// the balance no longer covers: credit.ErrInsufficient) appends nothing.
func EndRun(tx *eventstore.Tx, repos *Repositories, wf *workflow.Workflow, s credit.Settlement, terminal func(credit.SettleResult) error) (credit.SettleResult, error) {
	var (
		res    credit.SettleResult
		ledger *credit.Ledger
		err    error
	)
	s.WorkflowID = wf.ID()
	if terminal == nil { // the terminal event is appended: lock, then decide
		if err := LockOrg(tx, wf.OrgID()); err != nil {
			return res, err
		}
	}
	// a free run neither reserves nor is charged: its ledger has nothing of it
	if !wf.Free() || len(s.Charges) > 0 || s.Refund != "" {
		if ledger, err = repos.Ledgers.Load(tx, wf.OrgID()); err != nil {
			return res, err
		}
		if res, err = ledger.Settle(s); err != nil {
			return res, err
		}
	}
	if terminal != nil {
		// the terminal event carries the settlement: decided on the ledger
		// as it stands, the event appended, then the lock (a ledger moved
		// in between is a conflict: the transaction runs again)
		if err := terminal(res); err != nil {
			return res, err
		}
		if err := LockOrg(tx, wf.OrgID()); err != nil {
			return res, err
		}
	}
	if ledger != nil {
		if _, err := repos.Ledgers.Save(tx, wf.OrgID(), ledger, res.Events...); err != nil {
			return res, err
		}
	}
	return res, releaseSlot(tx, repos, wf)
}

// endRun is EndRun of a control command's terminal event, already
// appended, which charges and refunds nothing.
func endRun(tx *eventstore.Tx, repos *Repositories, wf *workflow.Workflow, terminal string) error {
	_, err := EndRun(tx, repos, wf, credit.Settlement{Reason: terminal}, nil)
	return err
}

// releaseSlot frees wf's place under the concurrent limit, if it holds one
// (under the org's lock).
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

// ReleaseSlots frees the places under the concurrent limit of runs of
// orgID that ended (those that hold one), in one append, under the org's
// lock (taken by the caller): several runs ended in one transaction.
func ReleaseSlots(tx *eventstore.Tx, repos *Repositories, orgID string, ids []string) error {
	active, err := repos.Slots.Load(tx, orgID)
	if err != nil {
		return err
	}
	var released []event.Data
	for _, id := range ids {
		if r, ok := active.Release(id); ok {
			released = append(released, r)
		}
	}
	if len(released) == 0 {
		return nil
	}
	_, err = repos.Slots.Save(tx, orgID, active, released...)
	return err
}

// takeSlot gives workflow id a place under the concurrent limit of tier
// (under the org's lock), unless it holds one: execute, resume. A limit
// reached is a *ConcurrentLimitError.
func takeSlot(tx *eventstore.Tx, repos *Repositories, orgID, id, tier string) error {
	active, err := repos.Slots.Load(tx, orgID)
	if err != nil {
		return err
	}
	slot, take, err := claim(active, id, tier)
	if err != nil || !take {
		return err
	}
	_, err = repos.Slots.Save(tx, orgID, active, slot)
	return err
}

// claim decides whether workflow id takes a place under the concurrent
// limit of tier in active: take is false when it holds one; a limit
// reached is a *ConcurrentLimitError.
func claim(active *workflow.Slots, id, tier string) (slot workflow.SlotTaken, take bool, err error) {
	if active.Holds(id) {
		return slot, false, nil
	}
	limit := workflow.ConcurrentLimit(tier)
	if slot, err = active.Take(id, limit); err != nil {
		return slot, false, &ConcurrentLimitError{Limit: limit, Active: active.Active()}
	}
	return slot, true, nil
}

// reserve takes the org's lock (with the ledger's read, in one round
// trip) and has the org's ledger hold amount credits for the run of
// workflow id (execute: the plan's estimate; resume: what remains), in
// tx: a run that holds some already reserves only the difference; with
// amount 0 it only takes the lock. When the spendable balance does not cover it,
// *InsufficientCreditsError, whose Balance is what the run could draw on
// (the spendable balance and what it holds). b is the run's workspace
// budget (budget.go): a reservation it does not cover is a
// *credit.BudgetExceededError.
func reserve(tx *eventstore.Tx, repos *Repositories, orgID, id string, amount int, b credit.Budget) error {
	if amount <= 0 {
		return LockOrg(tx, orgID)
	}
	ledger, err := LoadLedger(tx, repos, orgID)
	if err != nil {
		return err
	}
	r, ok, err := ledger.ReserveIn(id, int64(amount), b)
	if errors.Is(err, credit.ErrInsufficient) {
		return &InsufficientCreditsError{Required: int64(amount), Balance: ledger.AvailableTo(id)}
	}
	if err != nil || !ok {
		return err
	}
	_, err = repos.Ledgers.Save(tx, orgID, ledger, r)
	return err
}

// covers checks that what wf's run may draw on (the spendable balance and
// its own reservation) covers amount credits (a free workflow needs
// nothing): an interactive step, and a resume before it appends.
func covers(tx *eventstore.Tx, repos *Repositories, wf *workflow.Workflow, amount int) error {
	if wf.Free() || amount <= 0 {
		return nil
	}
	ledger, err := repos.Ledgers.Load(tx, wf.OrgID())
	if err != nil {
		return err
	}
	if available := ledger.AvailableTo(wf.ID()); available < int64(amount) {
		return &InsufficientCreditsError{Required: int64(amount), Balance: available}
	}
	return nil
}

// insufficient is the error of a spendable balance that does not cover
// required.
func insufficient(l *credit.Ledger, required int64) error {
	return &InsufficientCreditsError{Required: required, Balance: l.Balance()}
}
