package commands

import (
	"context"
	"fmt"

	"svc/domain/credit"
	"svc/eventstore"
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
	Balance  int64
	Position eventstore.Position
}

// RefundCreditsHandler handles RefundCredits.
type RefundCreditsHandler struct {
	store *eventstore.Store
}

// NewRefundCreditsHandler returns a handler appending to store.
func NewRefundCreditsHandler(store *eventstore.Store) RefundCreditsHandler {
	if store == nil {
		panic("nil event store")
	}
	return RefundCreditsHandler{store: store}
}

// Handle refunds at most what the workflow was charged.
func (h RefundCreditsHandler) Handle(ctx context.Context, cmd RefundCredits) (CreditsRefunded, error) {
	var out CreditsRefunded
	err := eventstore.Retry(ctx, attempts, func() error {
		ledger, err := loadLedger(ctx, h.store, cmd.OrgID)
		if err != nil {
			return err
		}
		r, err := ledger.Refund(cmd.WorkflowID, cmd.Amount, cmd.Reason)
		if err != nil {
			return err
		}
		pos, err := h.store.Append(ctx, credit.Stream(cmd.OrgID), ledger.Version(),
			eventstore.NewEvent{Type: credit.EventRefunded, Data: r, Metadata: meta(ctx, cmd.OrgID)})
		out = CreditsRefunded{Balance: ledger.Balance() + r.Amount, Position: pos}
		return err
	})
	if err != nil {
		return CreditsRefunded{}, fmt.Errorf("refund credits: %w", err)
	}
	return out, nil
}
