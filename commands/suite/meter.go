package suite

import (
	"context"
	"errors"
	"fmt"

	"svc/commands"
	"svc/domain/credit"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/eventstore/event"
	"time"
)

// ErrInsufficientCredits refuses an operation the balance does not cover
// (402), before any of its work is done.
var ErrInsufficientCredits = credit.ErrInsufficient

// Caller is who runs an operation: the API key's organization, workspace
// and key, and the agent the caller names (optional).
type Caller struct {
	OrgID, WorkspaceID, KeyID string
	AgentID                   string
}

// Receipt is what an operation cost: its charge and the spendable balance
// after it (spec C's credits_used and credits_remaining).
type Receipt struct {
	CreditsUsed      int64
	CreditsRemaining int64
}

// Meter charges the suite's operations: the charge is appended in the
// same transaction as the operation's events, so an operation is either
// recorded and paid or neither.
type Meter struct{ repos *commands.Repositories }

// Afford returns ErrInsufficientCredits when the caller's balance does not
// cover op: called before an operation's work, so a refused call does
// none. It reads the ledger from the fold cache (no lock); Run decides
// again under the lock.
func (m *Meter) Afford(ctx context.Context, c Caller, op domain.Op) error {
	if op.Credits == 0 {
		return nil
	}
	ledger, err := m.repos.Ledgers.Get(ctx, c.OrgID)
	if err != nil {
		return fmt.Errorf("%s: read balance: %w", op, err)
	}
	if ledger.Balance() < op.Credits {
		return fmt.Errorf("%s costs %d credits, the balance is %d: %w", op, op.Credits, ledger.Balance(), ErrInsufficientCredits)
	}
	return nil
}

// Balance is the caller's spendable balance: the Receipt of an operation
// that wrote nothing.
func (m *Meter) Balance(ctx context.Context, c Caller) (Receipt, error) {
	ledger, err := m.repos.Ledgers.Get(ctx, c.OrgID)
	if err != nil {
		return Receipt{}, fmt.Errorf("read balance: %w", err)
	}
	return Receipt{CreditsRemaining: ledger.Balance()}, nil
}

// Run runs write, which appends the operation's events in tx, and charges
// op's price to the caller's ledger in the same transaction (under the
// org's lock, so concurrent charges never take the balance below zero). A
// free operation takes no lock. write may run more than once (a lost
// version race runs the transaction again): it must decide from what it
// loads in tx. The charge is refused with ErrInsufficientCredits.
func (m *Meter) Run(ctx context.Context, c Caller, op domain.Op, write func(tx *eventstore.Tx) error) (Receipt, error) {
	var balance int64
	opts := eventstore.TxOptions{Metadata: event.Metadata{OrgID: c.OrgID}}
	_, err := m.repos.Store.Run(ctx, opts, func(tx *eventstore.Tx) error {
		if !op.OrgWide() {
			tx.Fence(event.MetadataFrom(ctx).Actor) // the caller's next requests wait for the read models, not this answer
		}
		if op.Credits > 0 {
			ledger, err := commands.LoadLedger(tx, m.repos, c.OrgID)
			if err != nil {
				return err
			}
			now := time.Now()
			charged, err := ledger.Charge(credit.Charged{OrgID: c.OrgID, Amount: op.Credits, Reason: op.String(),
				KeyID: c.KeyID, AgentID: c.AgentID, WorkspaceID: c.WorkspaceID, Month: credit.MonthOf(now)})
			if err != nil {
				return err
			}
			balance = ledger.Balance() - charged.Amount
			if _, err := m.repos.Ledgers.Save(tx, c.OrgID, ledger, charged); err != nil {
				return err
			}
		}
		return write(tx)
	})
	if errors.Is(err, credit.ErrInsufficient) {
		return Receipt{}, fmt.Errorf("%s: %w", op, ErrInsufficientCredits)
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("%s: %w", op, err)
	}
	if op.Credits == 0 {
		return m.Balance(ctx, c)
	}
	return Receipt{CreditsUsed: op.Credits, CreditsRemaining: balance}, nil
}
