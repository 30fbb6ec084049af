package commands

import (
	"context"
	"fmt"

	"svc/domain/payment"
)

// OpenBillingPortal opens the processor's billing portal of the
// organization's customer (subscription, payment methods, invoices).
type OpenBillingPortal struct {
	OrgID string
}

// OpenBillingPortalHandler handles OpenBillingPortal.
type OpenBillingPortalHandler struct {
	repos     *Repositories
	processor PaymentProcessor // nil: billing unavailable
}

// NewOpenBillingPortalHandler returns a handler over repos and processor
// (nil when none is configured).
func NewOpenBillingPortalHandler(repos *Repositories, processor PaymentProcessor) OpenBillingPortalHandler {
	return OpenBillingPortalHandler{repos: must(repos), processor: processor}
}

// Handle asks the processor for the portal of the organization's
// customer: payment.ErrUnavailable without a processor,
// payment.ErrNoBillingAccount until a checkout or a subscription gave the
// organization a customer.
func (h OpenBillingPortalHandler) Handle(ctx context.Context, cmd OpenBillingPortal) (BillingPage, error) {
	if h.processor == nil {
		return BillingPage{}, payment.ErrUnavailable
	}
	o, err := h.repos.Orgs.Get(ctx, cmd.OrgID)
	if err != nil {
		return BillingPage{}, err
	}
	if o.CustomerID() == "" {
		return BillingPage{}, payment.ErrNoBillingAccount
	}
	url, err := h.processor.Portal(ctx, o.CustomerID())
	if err != nil {
		return BillingPage{}, fmt.Errorf("billing portal: %w", err)
	}
	return BillingPage{URL: url}, nil
}
