package org

import (
	"errors"
	"fmt"
	"strings"

	"svc/eventstore/event"
)

// SubscriptionStatus is the status of an organization's subscription at
// the payment processor (spec B, Resources).
type SubscriptionStatus string

// Subscription statuses; an organization that never subscribed has none
// ("").
const (
	SubscriptionActive    SubscriptionStatus = "active"
	SubscriptionPastDue   SubscriptionStatus = "past_due"
	SubscriptionCancelled SubscriptionStatus = "cancelled"
)

// ErrInvalidSubscriptionUpdate refuses an update that names no
// subscription.
var ErrInvalidSubscriptionUpdate = errors.New("a subscription update names its subscription")

// SubscriptionChanged is the data of SubscriptionChanged: a processor
// event moved subscription SubscriptionID. Current tells whether it is the
// organization's subscription from now on; a subscription that ends while
// another one is current is only marked as ended. Tier is the
// organization's tier after it (a TierChanged in the same append moves
// the tier itself). At and Rank order the processor's events (see
// SubscriptionUpdate).
type SubscriptionChanged struct {
	SubscriptionID string             `json:"subscription_id"`
	CustomerID     string             `json:"customer_id,omitempty"`
	Status         SubscriptionStatus `json:"status"`
	Tier           Tier               `json:"tier"`
	Current        bool               `json:"current"`
	Cause          string             `json:"cause"`    // the processor event's type
	EventID        string             `json:"event_id"` // the processor event's id
	At             int64              `json:"at"`       // the processor event's created, Unix seconds
	Rank           int                `json:"rank"`
}

// CustomerLinked is the data of BillingCustomerLinked: the organization's
// customer at the payment processor, learnt from a completed checkout.
type CustomerLinked struct {
	CustomerID string `json:"customer_id"`
	EventID    string `json:"event_id"`
}

// EventType implements event.Data.
func (SubscriptionChanged) EventType() string { return EventSubscriptionChanged }

// EventType implements event.Data.
func (CustomerLinked) EventType() string { return EventCustomerLinked }

// billing is the organization's payment processor state.
type billing struct {
	customerID string
	current    Subscription
	// ended are the subscriptions the processor ended: their later (or
	// late) events move nothing.
	ended map[string]bool
}

// Subscription is the organization's current subscription at the
// processor.
type Subscription struct {
	ID     string
	Status SubscriptionStatus // "" when the organization never subscribed
	At     int64              // the created time of the last event applied
	Rank   int
}

// Live reports whether the subscription is active or past due.
func (s Subscription) Live() bool {
	return s.ID != "" && (s.Status == SubscriptionActive || s.Status == SubscriptionPastDue)
}

func (b *billing) applyChange(d SubscriptionChanged) {
	if d.Status == SubscriptionCancelled {
		if b.ended == nil {
			b.ended = map[string]bool{}
		}
		b.ended[d.SubscriptionID] = true
	}
	if !d.Current {
		return
	}
	b.current = Subscription{ID: d.SubscriptionID, Status: d.Status, At: d.At, Rank: d.Rank}
	if d.CustomerID != "" {
		b.customerID = d.CustomerID
	}
}

// Subscription is the organization's current subscription (zero when it
// never subscribed).
func (o *Organization) Subscription() Subscription { return o.billing.current }

// Subscribed reports whether the organization has a live subscription
// (active or past due).
func (o *Organization) Subscribed() bool { return o.billing.current.Live() }

// CustomerID is the organization's customer at the processor ("" until a
// checkout completed or a subscription named one).
func (o *Organization) CustomerID() string { return o.billing.customerID }

// SubscriptionUpdate is what a processor event says of a subscription.
type SubscriptionUpdate struct {
	EventID, Cause string // the processor event's id and type
	// At is the processor event's created time (Unix seconds) and Rank
	// breaks ties within one second: a creation (0) before updates,
	// payments and failures (1), before a deletion (2).
	At             int64
	Rank           int
	SubscriptionID string
	CustomerID     string
	// Status is the status it moves to ("" keeps the current one).
	Status SubscriptionStatus
	// Tier is the paid tier it names ("" keeps the current tier).
	Tier Tier
}

// after reports whether u is not older than s: a later created time, or
// the same second and a rank not below.
func (u SubscriptionUpdate) after(s Subscription) bool {
	return u.At > s.At || (u.At == s.At && u.Rank >= s.Rank)
}

// UpdateSubscription decides what a processor event does to the
// subscription; nothing (nil) when it is stale. The rules, so that events
// arriving late, twice or out of order never move a subscription
// backwards:
//
//   - an event of a subscription the processor ended is stale: an ended
//     subscription is final;
//   - an event of the current subscription applies when it is not older
//     than the last one applied (At, then Rank);
//   - an event of another subscription: when the current one is live,
//     its end is only recorded, and anything else applies when it is not
//     older than the current one's last event (the newest subscription
//     wins); when none is live, it applies.
//
// Applied, the subscription takes the update's status and customer, and
// the tier changes at once (a TierChanged, source "billing"): to Free
// when the subscription is cancelled, to the update's tier when it names
// one.
func (o *Organization) UpdateSubscription(u SubscriptionUpdate) ([]event.Data, error) {
	u.SubscriptionID = strings.TrimSpace(u.SubscriptionID)
	if u.SubscriptionID == "" {
		return nil, ErrInvalidSubscriptionUpdate
	}
	if u.Tier != "" {
		if _, err := ParseTier(string(u.Tier)); err != nil {
			return nil, fmt.Errorf("subscription update: %w", err)
		}
	}
	b := o.billing
	if b.ended[u.SubscriptionID] {
		return nil, nil
	}
	cur := b.current
	current := false
	switch {
	case u.SubscriptionID == cur.ID:
		current = u.after(cur)
	case cur.Live():
		if u.Status == SubscriptionCancelled {
			return []event.Data{o.changed(u, false, o.tier)}, nil
		}
		current = u.after(cur)
	default:
		current = true
	}
	if !current {
		return nil, nil
	}
	if u.Status == "" { // a status the processor has and the service does not know
		u.Status = SubscriptionActive
		if u.SubscriptionID == cur.ID {
			u.Status = cur.Status
		}
	}
	tier := o.tier
	switch {
	case u.Status == SubscriptionCancelled:
		tier = Free
	case u.Tier != "":
		tier = u.Tier
	}
	out := []event.Data{o.changed(u, true, tier)}
	if change, ok, err := o.ChangeTier(tier, "billing"); err != nil {
		return nil, err
	} else if ok {
		out = append(out, change)
	}
	return out, nil
}

func (o *Organization) changed(u SubscriptionUpdate, current bool, tier Tier) SubscriptionChanged {
	return SubscriptionChanged{SubscriptionID: u.SubscriptionID, CustomerID: u.CustomerID, Status: u.Status, Tier: tier,
		Current: current, Cause: u.Cause, EventID: u.EventID, At: u.At, Rank: u.Rank}
}

// LinkCustomer decides that customerID is the organization's customer at
// the processor, from a completed checkout; ok is false when the
// organization has one already (a subscription's customer is set by its
// events) or customerID is empty.
func (o *Organization) LinkCustomer(customerID, eventID string) (CustomerLinked, bool) {
	customerID = strings.TrimSpace(customerID)
	if customerID == "" || o.billing.customerID != "" {
		return CustomerLinked{}, false
	}
	return CustomerLinked{CustomerID: customerID, EventID: eventID}, true
}
