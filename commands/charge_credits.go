package commands

import (
	"context"
	"fmt"

	"svc/domain/credit"
	"svc/eventstore/event"
)

// ChargeCredits spends credits from an organization's ledger.
type ChargeCredits struct {
	Charge credit.Charged // OrgID, Amount, Reason and optionally WorkflowID, Step, KeyID, AgentID
}

// CreditsCharged is the outcome of ChargeCredits.
type CreditsCharged struct {
	Balance  int64 // the spendable balance after it
	Position event.Position
}

// ChargeCreditsHandler handles ChargeCredits.
type ChargeCreditsHandler struct{ repos *Repositories }

// NewChargeCreditsHandler returns a handler over repos.
func NewChargeCreditsHandler(repos *Repositories) ChargeCreditsHandler {
	return ChargeCreditsHandler{repos: must(repos)}
}

// Handle charges, or refuses with credit.ErrInsufficient; concurrent charges
// serialise on the ledger's version, so the balance never goes below zero.
func (h ChargeCreditsHandler) Handle(ctx context.Context, cmd ChargeCredits) (CreditsCharged, error) {
	orgID := cmd.Charge.OrgID
	ledger, pos, err := h.repos.Ledgers.Update(ctx, orgID, orgID, func(l *credit.Ledger) ([]event.Data, error) {
		c, err := l.Charge(cmd.Charge)
		return []event.Data{c}, err
	})
	if err != nil {
		return CreditsCharged{}, fmt.Errorf("charge credits: %w", err)
	}
	return CreditsCharged{Balance: ledger.Balance(), Position: pos}, nil
}
