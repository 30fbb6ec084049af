package commands

import (
	"context"
	"fmt"

	"svc/domain/payment"
)

// CheckoutCredits opens the processor's checkout page for a credit
// purchase: a pack or a custom amount in USD (exactly one; nil when
// absent), at 1,000 credits per USD. Nothing is appended: the credits are
// granted when the processor reports the completed checkout
// (ReceivePaymentEvent).
type CheckoutCredits struct {
	OrgID        string
	Pack         *float64
	CustomAmount *float64
}

// BillingPage is the outcome of the commands that open a page of the
// payment processor: where to send the customer's browser.
type BillingPage struct {
	URL string
}

// CheckoutCreditsHandler handles CheckoutCredits.
type CheckoutCreditsHandler struct {
	repos     *Repositories
	processor PaymentProcessor // nil: billing unavailable
}

// NewCheckoutCreditsHandler returns a handler over repos and processor
// (nil when none is configured).
func NewCheckoutCreditsHandler(repos *Repositories, processor PaymentProcessor) CheckoutCreditsHandler {
	return CheckoutCreditsHandler{repos: must(repos), processor: processor}
}

// Handle checks the amount and asks the processor for the page:
// payment.ErrUnavailable without a processor, payment.ErrPackOrCustom,
// payment.ErrInvalidPack, payment.ErrInvalidCustomAmount.
func (h CheckoutCreditsHandler) Handle(ctx context.Context, cmd CheckoutCredits) (BillingPage, error) {
	if h.processor == nil {
		return BillingPage{}, payment.ErrUnavailable
	}
	purchase, err := payment.Checkout(cmd.Pack, cmd.CustomAmount)
	if err != nil {
		return BillingPage{}, err
	}
	o, err := h.repos.Orgs.Get(ctx, cmd.OrgID)
	if err != nil {
		return BillingPage{}, err
	}
	url, err := h.processor.CreditCheckout(ctx, CreditCheckout{OrgID: o.ID(), Purchase: purchase, CustomerID: o.CustomerID(), Email: o.Email()})
	if err != nil {
		return BillingPage{}, fmt.Errorf("credit checkout: %w", err)
	}
	return BillingPage{URL: url}, nil
}
