package commands

import (
	"context"

	"svc/domain/payment"
)

// PaymentProcessor is the payment processor (adapters/payments, Stripe):
// the pages it hosts for a purchase, a subscription and the customer's
// billing portal, and the verification of the events it sends. Its
// errors: payment.ErrUnavailable (not configured for what was asked),
// payment.ErrInvalidSignature (Event).
type PaymentProcessor interface {
	// CreditCheckout opens a checkout page for a credit purchase whose
	// metadata carries the organization and the credits.
	CreditCheckout(ctx context.Context, c CreditCheckout) (url string, err error)
	// SubscriptionCheckout opens a checkout page for a subscription whose
	// metadata carries the organization and the tier.
	SubscriptionCheckout(ctx context.Context, c SubscriptionCheckout) (url string, err error)
	// Portal opens the billing portal of a customer.
	Portal(ctx context.Context, customerID string) (url string, err error)
	// Event verifies a webhook delivery's signature header against its
	// body and reads the event.
	Event(payload []byte, signature string) (payment.Event, error)
}

// CreditCheckout is what a credit purchase's checkout page sells.
type CreditCheckout struct {
	OrgID      string
	Purchase   payment.Purchase
	CustomerID string // the organization's customer, "" when it has none yet
	Email      string // prefilled when there is no customer
}

// SubscriptionCheckout is what a subscription's checkout page sells.
type SubscriptionCheckout struct {
	OrgID      string
	Plan       payment.Plan
	CustomerID string
	Email      string
}

// ReloadPayer pays an auto-reload (commands/reload): an off-session
// payment of the organization's saved payment method, confirmed at once,
// with the reload id as idempotency key, so asking twice for one reload
// pays once. Implemented by the processor (adapters/payments).
//
// ReloadStatus and CancelReload serve the reconciliation of a started
// reload whose processor event never came: ReloadStatus reads the
// payment's current state (ReloadPaidPending while it may still move),
// CancelReload cancels it when it is given up and answers its state after
// (ReloadPaidFailed once canceled; ReloadPaidSucceeded when it was paid
// meanwhile; ReloadPaidPending when the processor cannot cancel it any
// more). An error is a call that got no answer (asked again later).
type ReloadPayer interface {
	PayReload(ctx context.Context, p ReloadPayment) (ReloadPaid, error)
	ReloadStatus(ctx context.Context, paymentID string) (ReloadPaid, error)
	CancelReload(ctx context.Context, paymentID string) (ReloadPaid, error)
}

// ReloadPayment is one auto-reload's payment.
type ReloadPayment struct {
	OrgID, ReloadID, CustomerID string
	USD, Credits                int64
}

// Outcomes of a reload's payment (ReloadPaid.Status).
const (
	ReloadPaidSucceeded = "succeeded" // paid
	ReloadPaidPending   = "pending"   // taken; the processor's event tells the outcome
	ReloadPaidFailed    = "failed"    // refused (Reason, Message)
)

// ReloadPaid is what the processor answered. A call that could not reach
// it, or that it failed to answer, is an error instead (the payment is
// asked again later, with the same idempotency key).
type ReloadPaid struct {
	Status    string
	PaymentID string
	// Reason is a short code of a failure: no_payment_method,
	// card_declined, authentication_required, or the processor's code.
	Reason, Message string
}
