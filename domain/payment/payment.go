// Package payment is the payment processor's side of billing (spec B,
// Billing): what may be bought (credit packs, custom amounts, subscription
// plans), the processor's events as the service reads them, and the
// record that makes each processor event and each checkout session count
// once. The subscription state itself is the organization's (domain/org).
package payment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore/event"
)

// Domain errors.
var (
	// ErrUnavailable: no payment processor is configured (or not for what
	// was asked, such as a plan without a price).
	ErrUnavailable = errors.New("billing unavailable")
	// ErrInvalidSignature: a webhook delivery whose signature does not
	// verify, is too old, or whose body is not a processor event.
	ErrInvalidSignature = errors.New("invalid processor signature")
	// ErrInvalidPack, ErrInvalidCustomAmount: a checkout of an amount
	// that is not for sale.
	ErrInvalidPack         = errors.New("invalid pack")
	ErrInvalidCustomAmount = errors.New("invalid custom amount")
	// ErrInvalidTier, ErrInvalidInterval: a subscription plan that does
	// not exist.
	ErrInvalidTier     = errors.New("invalid tier")
	ErrInvalidInterval = errors.New("invalid interval")
	// ErrAlreadySubscribed: the organization has a live subscription.
	ErrAlreadySubscribed = errors.New("already subscribed")
	// ErrUnknownPayment: the processor has no payment of that id (it was
	// never created there, or under another account's key).
	ErrUnknownPayment = errors.New("unknown payment")
	// ErrNoBillingAccount: the organization has no processor customer yet.
	ErrNoBillingAccount = errors.New("no billing account")
)

// Packs are the credit packs for sale, in USD (spec B, Limits).
var Packs = []int64{10, 25, 100, 250}

// Custom amounts are whole USD in [MinCustomUSD, MaxCustomUSD].
const (
	MinCustomUSD = 5
	MaxCustomUSD = 10_000
)

// Purchase is a credit purchase: what is paid and what is granted.
type Purchase struct {
	USD     int64
	Credits int64
}

// ErrPackOrCustom refuses a checkout that names both a pack and a custom
// amount, or neither.
var ErrPackOrCustom = errors.New("a checkout names exactly one of pack and custom_amount")

// Pack is the purchase of pack usd: ErrInvalidPack unless it is one of
// Packs.
func Pack(usd float64) (Purchase, error) {
	if usd != math.Trunc(usd) || !slices.Contains(Packs, int64(usd)) {
		return Purchase{}, fmt.Errorf("%w: %v USD (available: 10, 25, 100, 250)", ErrInvalidPack, usd)
	}
	return Purchase{USD: int64(usd), Credits: int64(usd) * credit.PerUSD}, nil
}

// Custom is the purchase of a custom amount: ErrInvalidCustomAmount unless
// it is a whole number of USD in [MinCustomUSD, MaxCustomUSD].
func Custom(usd float64) (Purchase, error) {
	if usd != math.Trunc(usd) || usd < MinCustomUSD || usd > MaxCustomUSD {
		return Purchase{}, fmt.Errorf("%w: %v USD (a whole number from %d to %d)", ErrInvalidCustomAmount, usd, MinCustomUSD, MaxCustomUSD)
	}
	return Purchase{USD: int64(usd), Credits: int64(usd) * credit.PerUSD}, nil
}

// Checkout is the purchase a checkout asks for: exactly one of pack and
// custom (nil when absent), else ErrPackOrCustom.
func Checkout(pack, custom *float64) (Purchase, error) {
	switch {
	case (pack == nil) == (custom == nil):
		return Purchase{}, ErrPackOrCustom
	case pack != nil:
		return Pack(*pack)
	}
	return Custom(*custom)
}

// Interval is a subscription's billing interval.
type Interval string

// Intervals.
const (
	Monthly Interval = "monthly"
	Annual  Interval = "annual"
)

// Plan is a subscription plan: a paid tier billed at an interval.
type Plan struct {
	Tier     org.Tier
	Interval Interval
}

// Key names the plan as "tier/interval" (its price's key in the
// configuration).
func (p Plan) Key() string { return string(p.Tier) + "/" + string(p.Interval) }

// SubscribableTiers are the tiers a subscription may buy.
var SubscribableTiers = []org.Tier{org.Pro, org.Team, org.Enterprise}

// Intervals are the billing intervals.
var Intervals = []Interval{Monthly, Annual}

// ParsePlan checks tier (pro, team or enterprise) and interval (monthly,
// the default when "", or annual).
func ParsePlan(tier, interval string) (Plan, error) {
	if !slices.Contains(SubscribableTiers, org.Tier(tier)) {
		return Plan{}, fmt.Errorf("%w %q (want pro, team or enterprise)", ErrInvalidTier, tier)
	}
	if interval == "" {
		interval = string(Monthly)
	}
	if !slices.Contains(Intervals, Interval(interval)) {
		return Plan{}, fmt.Errorf("%w %q (want monthly or annual)", ErrInvalidInterval, interval)
	}
	return Plan{Tier: org.Tier(tier), Interval: Interval(interval)}, nil
}

// Processor event types the service reads (OPERATIONS.md, spec B's
// States table).
const (
	SubscriptionCreated     = "customer.subscription.created"
	SubscriptionUpdated     = "customer.subscription.updated"
	SubscriptionDeleted     = "customer.subscription.deleted"
	InvoicePaid             = "invoice.paid"
	InvoicePaymentFailed    = "invoice.payment_failed"
	CheckoutSessionComplete = "checkout.session.completed"
	// The auto-reload payment's outcome (an off-session PaymentIntent
	// whose metadata names the reload).
	PaymentIntentSucceeded = "payment_intent.succeeded"
	PaymentIntentFailed    = "payment_intent.payment_failed"
)

// Metadata keys the service sets on what it creates at the processor and
// reads back from its events (OPERATIONS.md).
const (
	MetaOrgID   = "org_id"
	MetaCredits = "credits"
	MetaTier    = "tier"
	MetaReload  = "reload_id"
)

// Event is a verified processor event, reduced to what the service reads
// of it; the adapter fills it from the processor's JSON.
type Event struct {
	ID      string
	Type    string
	Created int64 // Unix seconds
	Object  Object
}

// Object is the event's object: a subscription, an invoice or a checkout
// session.
type Object struct {
	ID string
	// Metadata is the object's metadata; for an invoice, its
	// subscription's when the invoice has none of its own.
	Metadata   map[string]string
	CustomerID string
	// SubscriptionID is the subscription's id (a subscription's own, an
	// invoice's or a checkout session's subscription).
	SubscriptionID string
	// Status is a subscription's status at the processor.
	Status string
	// Mode and PaymentStatus are a checkout session's.
	Mode          string
	PaymentStatus string
	// FailureCode and FailureMessage are a failed payment's
	// (last_payment_error: its decline code, else its code).
	FailureCode, FailureMessage string
}

// OrgID is the organization the event names (metadata org_id).
func (e Event) OrgID() string { return strings.TrimSpace(e.Object.Metadata[MetaOrgID]) }

// Kind is what an event is to the service.
type Kind int

// Kinds of events.
const (
	// Unhandled events answer 200 and change nothing.
	Unhandled Kind = iota
	// SubscriptionEvent moves the organization's subscription.
	SubscriptionEvent
	// PurchaseEvent is a completed checkout session.
	PurchaseEvent
	// ReloadEvent is the outcome of a payment: an auto-reload's when its
	// metadata names one (ReloadID), else nothing to the service.
	ReloadEvent
)

// KindOf tells what e is.
func KindOf(e Event) Kind {
	switch e.Type {
	case SubscriptionCreated, SubscriptionUpdated, SubscriptionDeleted, InvoicePaid, InvoicePaymentFailed:
		return SubscriptionEvent
	case CheckoutSessionComplete:
		return PurchaseEvent
	case PaymentIntentSucceeded, PaymentIntentFailed:
		return ReloadEvent
	}
	return Unhandled
}

// ReloadID is the auto-reload a payment event is of ("" for another
// payment: a checkout's, which its session's event grants).
func (e Event) ReloadID() string { return strings.TrimSpace(e.Object.Metadata[MetaReload]) }

// Outcomes recorded with a processor event (Recorded.Outcome).
const (
	OutcomeApplied       = "applied"         // the subscription moved
	OutcomeStale         = "stale"           // older than the subscription's state: nothing moved
	OutcomeGranted       = "granted"         // a purchase's credits were granted
	OutcomeFulfilled     = "fulfilled"       // the session's credits had been granted already
	OutcomeUnpaid        = "unpaid"          // a session completed without payment: nothing granted
	OutcomeLinked        = "linked"          // a subscription checkout: the customer was linked
	OutcomeUnknownOrg    = "unknown_org"     // the event names no organization of this service
	OutcomeInvalid       = "invalid"         // the event lacks what its type needs
	OutcomeNotForSubscr  = "no_subscription" // an invoice of no subscription
	OutcomeNotReload     = "not_a_reload"    // a payment of no auto-reload (a checkout's)
	OutcomeReloaded      = "reloaded"        // an auto-reload was paid: its credits granted
	OutcomeReloadFailed  = "reload_failed"   // an auto-reload's payment failed
	OutcomeReloadSettled = "reload_settled"  // the reload's outcome was recorded already
)

// SubscriptionUpdate maps a subscription event to the organization's
// update: ok is false (with the outcome to record) when the event carries
// no subscription. Statuses: created and invoice.paid are active,
// invoice.payment_failed past_due, deleted cancelled; updated maps the
// processor's status (active and trialing: active; past_due, unpaid,
// incomplete and paused: past_due; canceled and incomplete_expired:
// cancelled). The tier is metadata tier when it names a paid tier.
func SubscriptionUpdate(e Event) (u org.SubscriptionUpdate, outcome string, ok bool) {
	o := e.Object
	if o.SubscriptionID == "" {
		if e.Type == InvoicePaid || e.Type == InvoicePaymentFailed {
			return u, OutcomeNotForSubscr, false
		}
		return u, OutcomeInvalid, false
	}
	u = org.SubscriptionUpdate{EventID: e.ID, Cause: e.Type, At: e.Created, SubscriptionID: o.SubscriptionID, CustomerID: o.CustomerID}
	if t := org.Tier(strings.TrimSpace(o.Metadata[MetaTier])); t.IsPaid() {
		if _, err := org.ParseTier(string(t)); err == nil {
			u.Tier = t
		}
	}
	switch e.Type {
	case SubscriptionCreated:
		u.Status, u.Rank = org.SubscriptionActive, 0
	case SubscriptionUpdated:
		u.Status, u.Rank = ProcessorStatus(o.Status), 1
	case InvoicePaid:
		u.Status, u.Rank = org.SubscriptionActive, 1
	case InvoicePaymentFailed:
		u.Status, u.Rank = org.SubscriptionPastDue, 1
	case SubscriptionDeleted:
		u.Status, u.Rank = org.SubscriptionCancelled, 2
	default:
		return org.SubscriptionUpdate{}, OutcomeInvalid, false
	}
	return u, "", true
}

// ProcessorStatus maps a processor subscription status to the service's
// ("" for one it does not know: the status stays).
func ProcessorStatus(s string) org.SubscriptionStatus {
	switch s {
	case "active", "trialing":
		return org.SubscriptionActive
	case "past_due", "unpaid", "incomplete", "paused":
		return org.SubscriptionPastDue
	case "canceled", "cancelled", "incomplete_expired":
		return org.SubscriptionCancelled
	}
	return ""
}

// MaxPurchaseCredits bounds the credits one checkout may grant (the
// largest custom amount).
const MaxPurchaseCredits = MaxCustomUSD * credit.PerUSD

// PurchasedCredits reads a completed credit checkout: the credits to
// grant (metadata credits, 1 to MaxPurchaseCredits), or the outcome to
// record instead: a subscription checkout only links its customer, an
// unpaid session grants nothing.
func PurchasedCredits(e Event) (credits int64, outcome string) {
	o := e.Object
	if o.Mode == "subscription" || o.SubscriptionID != "" {
		return 0, OutcomeLinked
	}
	if o.PaymentStatus != "paid" && o.PaymentStatus != "no_payment_required" {
		return 0, OutcomeUnpaid
	}
	n, err := strconv.ParseInt(strings.TrimSpace(o.Metadata[MetaCredits]), 10, 64)
	if err != nil || n <= 0 || n > MaxPurchaseCredits || o.ID == "" {
		return 0, OutcomeInvalid
	}
	return n, ""
}

// Stream is the record stream of processor event id.
func Stream(eventID string) string { return "payment-event-" + eventID }

// CheckoutStream is the fulfilment stream of checkout session id.
func CheckoutStream(sessionID string) string { return "checkout-" + sessionID }

// Record is a processor event's record stream: whether the event was
// handled already.
type Record struct {
	recorded *Recorded
	version  int64
}

// NewRecord is a record with no events.
func NewRecord() *Record { return &Record{version: event.NewStream} }

// Apply folds one event.
func (r *Record) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("payment event record: %w", err)
	}
	switch d := d.(type) {
	case Recorded:
		r.recorded = &d
	case CheckoutFulfilled:
		// a fulfilment stream folds as a record that exists
		r.recorded = &Recorded{EventID: d.EventID, OrgID: d.OrgID, Outcome: OutcomeGranted}
	}
	r.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (r *Record) Version() int64 { return r.version }

// Seen reports whether the event (or session) was handled already.
func (r *Record) Seen() bool { return r.recorded != nil }

// Recorded is what was recorded (nil when nothing was).
func (r *Record) Recorded() *Recorded { return r.recorded }

// Record decides the record of e with outcome, for organization orgID
// ("" when none).
func (r *Record) Record(e Event, orgID, outcome string) (Recorded, error) {
	if r.Seen() {
		return Recorded{}, fmt.Errorf("processor event %s recorded already", e.ID)
	}
	return Recorded{EventID: e.ID, Type: e.Type, Created: e.Created, OrgID: orgID, Outcome: outcome}, nil
}

// Fulfil decides a checkout session's fulfilment: credits for orgID.
func (r *Record) Fulfil(e Event, orgID string, credits int64) (CheckoutFulfilled, error) {
	if r.Seen() {
		return CheckoutFulfilled{}, fmt.Errorf("checkout session %s fulfilled already", e.Object.ID)
	}
	return CheckoutFulfilled{SessionID: e.Object.ID, OrgID: orgID, Credits: credits, EventID: e.ID}, nil
}
