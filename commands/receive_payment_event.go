package commands

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/eventstore"
	"svc/eventstore/event"
)

// ReceivePaymentEvent takes one webhook delivery of the payment
// processor: its body and its signature header.
type ReceivePaymentEvent struct {
	Payload   []byte
	Signature string
	// Check, when set, vets a verified payload before it is applied (the
	// API refuses text PostgreSQL cannot store); its error is returned.
	Check func(payload []byte) error
}

// PaymentEventReceived is the outcome of ReceivePaymentEvent.
type PaymentEventReceived struct {
	EventID, Type string
	OrgID         string // the organization the event names ("" when none)
	// Outcome is what the event did (payment.Outcome*), or "unhandled"
	// for a type the service does not read (nothing is recorded).
	Outcome string
	// Duplicate: the event had been received before; nothing changed.
	Duplicate bool
	Position  event.Position
}

// OutcomeUnhandled is the outcome of an event type the service does not
// read: it answers 200, records nothing and changes nothing.
const OutcomeUnhandled = "unhandled"

// ReceivePaymentEventHandler handles ReceivePaymentEvent.
type ReceivePaymentEventHandler struct {
	repos     *Repositories
	processor PaymentProcessor // nil: billing unavailable
}

// NewReceivePaymentEventHandler returns a handler over repos and processor
// (nil when none is configured).
func NewReceivePaymentEventHandler(repos *Repositories, processor PaymentProcessor) ReceivePaymentEventHandler {
	return ReceivePaymentEventHandler{repos: must(repos), processor: processor}
}

// Handle verifies the delivery (payment.ErrUnavailable without a
// processor, payment.ErrInvalidSignature) and applies the event once: in
// one transaction, its effects (the organization's subscription and tier,
// a purchase's grant) and its record, a new stream per processor event id
// (payment.Stream). A delivery of an event recorded already changes
// nothing (Duplicate); two concurrent deliveries of one event race for
// the record's first version, and the loser, run again, finds it.
func (h ReceivePaymentEventHandler) Handle(ctx context.Context, cmd ReceivePaymentEvent) (PaymentEventReceived, error) {
	if h.processor == nil {
		return PaymentEventReceived{}, payment.ErrUnavailable
	}
	ev, err := h.processor.Event(cmd.Payload, cmd.Signature)
	if err != nil {
		return PaymentEventReceived{}, err
	}
	if cmd.Check != nil {
		if err := cmd.Check(cmd.Payload); err != nil {
			return PaymentEventReceived{}, err
		}
	}
	out := PaymentEventReceived{EventID: ev.ID, Type: ev.Type, OrgID: ev.OrgID()}
	kind := payment.KindOf(ev)
	if kind == payment.Unhandled {
		out.Outcome = OutcomeUnhandled
		return out, nil
	}
	meta := event.Metadata{Actor: "processor", CausationID: ev.ID}
	if uuid.Validate(out.OrgID) == nil {
		// an organization that does not exist (never did, or was erased)
		// is not named by the record: the log keeps no id of an erased one
		switch _, err := h.repos.Orgs.Get(ctx, out.OrgID); {
		case err == nil:
			meta.OrgID = out.OrgID
		case !errors.Is(err, org.ErrNotFound):
			return PaymentEventReceived{}, fmt.Errorf("payment event %s (%s): %w", ev.ID, ev.Type, err)
		}
	}
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: meta}, func(tx *eventstore.Tx) error {
		out.Duplicate, out.Outcome = false, ""
		rec, err := h.repos.PaymentEvents.Load(tx, ev.ID)
		if err != nil {
			return err
		}
		if rec.Seen() {
			out.Duplicate, out.Outcome = true, rec.Recorded().Outcome
			return nil
		}
		outcome, err := h.apply(tx, ev, kind, meta.OrgID)
		if err != nil {
			return err
		}
		recorded := meta.OrgID
		if outcome == payment.OutcomeUnknownOrg {
			recorded = ""
		}
		data, err := rec.Record(ev, recorded, outcome)
		if err != nil {
			return err
		}
		out.Outcome = outcome
		_, err = h.repos.PaymentEvents.Save(tx, ev.ID, rec, data)
		return err
	})
	if err != nil {
		return PaymentEventReceived{}, fmt.Errorf("payment event %s (%s): %w", ev.ID, ev.Type, err)
	}
	out.Position = pos
	if out.Outcome == payment.OutcomeReloadFailed && !out.Duplicate {
		slog.Warn("auto-reload payment failed", "org_id", out.OrgID, "reload_id", ev.ReloadID(),
			"reason", cmp.Or(ev.Object.FailureCode, "payment_failed"), "payment_id", ev.Object.ID)
	}
	return out, nil
}

// apply appends the effects of ev to the organization orgID names ("":
// none) and returns the outcome to record.
func (h ReceivePaymentEventHandler) apply(tx *eventstore.Tx, ev payment.Event, kind payment.Kind, orgID string) (string, error) {
	if orgID == "" {
		return payment.OutcomeUnknownOrg, nil
	}
	o, err := h.repos.Orgs.Load(tx, orgID)
	if errors.Is(err, org.ErrNotFound) {
		return payment.OutcomeUnknownOrg, nil
	}
	if err != nil {
		return "", err
	}
	switch kind {
	case payment.SubscriptionEvent:
		return h.subscription(tx, o, ev)
	case payment.PurchaseEvent:
		return h.purchase(tx, o, ev)
	case payment.ReloadEvent:
		return h.reload(tx, o, ev)
	default:
		return "", fmt.Errorf("payment event kind %d has no handler", kind)
	}
}

// reload settles the auto-reload a payment's event names (SettleReload):
// a payment of no reload (a checkout's) is recorded and changes nothing.
func (h ReceivePaymentEventHandler) reload(tx *eventstore.Tx, o *org.Organization, ev payment.Event) (string, error) {
	id := ev.ReloadID()
	if id == "" {
		return payment.OutcomeNotReload, nil
	}
	paid := ReloadPaid{Status: ReloadPaidSucceeded, PaymentID: ev.Object.ID}
	if ev.Type == payment.PaymentIntentFailed {
		paid = ReloadPaid{Status: ReloadPaidFailed, PaymentID: ev.Object.ID, Reason: cmp.Or(ev.Object.FailureCode, "payment_failed"),
			Message: ev.Object.FailureMessage}
	}
	return SettleReload(tx, h.repos, o.ID(), id, paid)
}

// subscription moves the organization's subscription and tier (org.
// UpdateSubscription says whether the event is stale).
func (h ReceivePaymentEventHandler) subscription(tx *eventstore.Tx, o *org.Organization, ev payment.Event) (string, error) {
	u, outcome, ok := payment.SubscriptionUpdate(ev)
	if !ok {
		return outcome, nil
	}
	data, err := o.UpdateSubscription(u)
	if err != nil {
		return "", err
	}
	if len(data) == 0 {
		return payment.OutcomeStale, nil
	}
	if _, err := h.repos.Orgs.Save(tx, o.ID(), o, data...); err != nil {
		return "", err
	}
	return payment.OutcomeApplied, nil
}

// purchase links the checkout's customer to the organization (the first
// one it has) and grants a credit purchase's credits, once per checkout
// session (payment.CheckoutStream), through the ledger.
func (h ReceivePaymentEventHandler) purchase(tx *eventstore.Tx, o *org.Organization, ev payment.Event) (string, error) {
	if linked, ok := o.LinkCustomer(ev.Object.CustomerID, ev.ID); ok {
		if _, err := h.repos.Orgs.Save(tx, o.ID(), o, linked); err != nil {
			return "", err
		}
	}
	credits, outcome := payment.PurchasedCredits(ev)
	if outcome != "" {
		return outcome, nil
	}
	session, err := h.repos.Checkouts.Load(tx, ev.Object.ID)
	if err != nil {
		return "", err
	}
	if session.Seen() {
		return payment.OutcomeFulfilled, nil
	}
	fulfilled, err := session.Fulfil(ev, o.ID(), credits)
	if err != nil {
		return "", err
	}
	if _, err := h.repos.Checkouts.Save(tx, ev.Object.ID, session, fulfilled); err != nil {
		return "", err
	}
	ledger, err := LoadLedger(tx, h.repos, o.ID())
	if err != nil {
		return "", err
	}
	grant, err := ledger.Grant(credits, credit.ReasonPurchase, "checkout "+ev.Object.ID)
	if err != nil {
		return "", err
	}
	if _, err := h.repos.Ledgers.Save(tx, o.ID(), ledger, grant); err != nil {
		return "", err
	}
	return payment.OutcomeGranted, nil
}
