package commands

import (
	"context"
	"fmt"

	"svc/domain/credit"
	"svc/eventstore/event"
)

// RefundCredits returns credits charged to a workflow.
type RefundCredits struct {
	OrgID      string
	WorkflowID string
	Amount     int64
	Reason     string
}

// CreditsRefunded is the outcome of RefundCredits.
type CreditsRefunded struct {
	Balance  int64 // the spendable balance after it
	Position event.Position
}

// RefundCreditsHandler handles RefundCredits.
type RefundCreditsHandler struct{ repos *Repositories }

// NewRefundCreditsHandler returns a handler over repos.
func NewRefundCreditsHandler(repos *Repositories) RefundCreditsHandler {
	return RefundCreditsHandler{repos: must(repos)}
}

// Handle refunds at most what the workflow was charged.
func (h RefundCreditsHandler) Handle(ctx context.Context, cmd RefundCredits) (CreditsRefunded, error) {
	ledger, pos, err := h.repos.Ledgers.Update(ctx, cmd.OrgID, cmd.OrgID, func(l *credit.Ledger) ([]event.Data, error) {
		r, err := l.Refund(cmd.WorkflowID, cmd.Amount, cmd.Reason)
		return []event.Data{r}, err
	})
	if err != nil {
		return CreditsRefunded{}, fmt.Errorf("refund credits: %w", err)
	}
	return CreditsRefunded{Balance: ledger.Balance(), Position: pos}, nil
}
