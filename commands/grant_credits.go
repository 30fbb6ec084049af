package commands

import (
	"context"
	"fmt"

	"svc/domain/credit"
	"svc/eventstore/event"
)

// GrantCredits adds credits to an organization's ledger (operator top-up,
// purchases).
type GrantCredits struct {
	OrgID  string
	Amount int64
	Reason string
	Note   string
}

// CreditsGranted is the outcome of GrantCredits.
type CreditsGranted struct {
	Balance  int64 // the spendable balance after it
	Position event.Position
}

// GrantCreditsHandler handles GrantCredits.
type GrantCreditsHandler struct{ repos *Repositories }

// NewGrantCreditsHandler returns a handler over repos.
func NewGrantCreditsHandler(repos *Repositories) GrantCreditsHandler {
	return GrantCreditsHandler{repos: must(repos)}
}

// Handle grants to an existing organization.
func (h GrantCreditsHandler) Handle(ctx context.Context, cmd GrantCredits) (CreditsGranted, error) {
	if _, err := h.repos.Orgs.Get(ctx, cmd.OrgID); err != nil {
		return CreditsGranted{}, err
	}
	ledger, pos, err := h.repos.Ledgers.Update(ctx, cmd.OrgID, cmd.OrgID, func(l *credit.Ledger) ([]event.Data, error) {
		g, err := l.Grant(cmd.Amount, cmd.Reason, cmd.Note)
		return []event.Data{g}, err
	})
	if err != nil {
		return CreditsGranted{}, fmt.Errorf("grant credits: %w", err)
	}
	return CreditsGranted{Balance: ledger.Balance(), Position: pos}, nil
}
