package commands

import (
	"context"
	"fmt"

	"svc/domain/credit"
	"svc/eventstore"
)

// ChargeCredits spends credits from an organization's ledger.
type ChargeCredits struct {
	Charge credit.Charged // OrgID, Amount, Reason and optionally WorkflowID, Step, KeyID, AgentID
}

// CreditsCharged is the outcome of ChargeCredits.
type CreditsCharged struct {
	Balance  int64
	Position eventstore.Position
}

// ChargeCreditsHandler handles ChargeCredits.
type ChargeCreditsHandler struct {
	store *eventstore.Store
}

// NewChargeCreditsHandler returns a handler appending to store.
func NewChargeCreditsHandler(store *eventstore.Store) ChargeCreditsHandler {
	if store == nil {
		panic("nil event store")
	}
	return ChargeCreditsHandler{store: store}
}

// Handle charges, or refuses with credit.ErrInsufficient; concurrent charges
// serialise on the ledger's version, so the balance never goes below zero.
func (h ChargeCreditsHandler) Handle(ctx context.Context, cmd ChargeCredits) (CreditsCharged, error) {
	orgID := cmd.Charge.OrgID
	var out CreditsCharged
	err := eventstore.Retry(ctx, attempts, func() error {
		ledger, err := loadLedger(ctx, h.store, orgID)
		if err != nil {
			return err
		}
		c, err := ledger.Charge(cmd.Charge)
		if err != nil {
			return err
		}
		pos, err := h.store.Append(ctx, credit.Stream(orgID), ledger.Version(),
			eventstore.NewEvent{Type: credit.EventCharged, Data: c, Metadata: meta(ctx, orgID)})
		out = CreditsCharged{Balance: ledger.Balance() - c.Amount, Position: pos}
		return err
	})
	if err != nil {
		return CreditsCharged{}, fmt.Errorf("charge credits: %w", err)
	}
	return out, nil
}
