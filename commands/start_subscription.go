package commands

import (
	"context"
	"fmt"

	"svc/domain/payment"
)

// StartSubscription opens the processor's checkout page for a subscription
// to a paid tier, billed monthly (the default) or annually. Nothing is
// appended: the subscription and the tier move when the processor reports
// them (ReceivePaymentEvent).
type StartSubscription struct {
	OrgID    string
	Tier     string
	Interval string // "" is monthly
}

// StartSubscriptionHandler handles StartSubscription.
type StartSubscriptionHandler struct {
	repos     *Repositories
	processor PaymentProcessor // nil: billing unavailable
}

// NewStartSubscriptionHandler returns a handler over repos and processor
// (nil when none is configured).
func NewStartSubscriptionHandler(repos *Repositories, processor PaymentProcessor) StartSubscriptionHandler {
	return StartSubscriptionHandler{repos: must(repos), processor: processor}
}

// Handle checks the plan and that the organization has no live
// subscription, and asks the processor for the page:
// payment.ErrUnavailable (no processor, or no price for the plan),
// payment.ErrInvalidTier, payment.ErrInvalidInterval,
// payment.ErrAlreadySubscribed.
func (h StartSubscriptionHandler) Handle(ctx context.Context, cmd StartSubscription) (BillingPage, error) {
	if h.processor == nil {
		return BillingPage{}, payment.ErrUnavailable
	}
	plan, err := payment.ParsePlan(cmd.Tier, cmd.Interval)
	if err != nil {
		return BillingPage{}, err
	}
	o, err := h.repos.Orgs.Get(ctx, cmd.OrgID)
	if err != nil {
		return BillingPage{}, err
	}
	if o.Subscribed() {
		return BillingPage{}, fmt.Errorf("%w: subscription %s is %s", payment.ErrAlreadySubscribed, o.Subscription().ID, o.Subscription().Status)
	}
	url, err := h.processor.SubscriptionCheckout(ctx, SubscriptionCheckout{OrgID: o.ID(), Plan: plan, CustomerID: o.CustomerID(), Email: o.Email()})
	if err != nil {
		return BillingPage{}, fmt.Errorf("subscription checkout: %w", err)
	}
	return BillingPage{URL: url}, nil
}
