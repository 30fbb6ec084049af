package org_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/org"
	"svc/eventstore/event"
)

// apply folds data into o as the repository does after an append.
func apply(t *testing.T, o *org.Organization, data []event.Data) {
	t.Helper()
	for _, d := range data {
		if err := o.Apply(event.Recorded(org.Stream(o.ID()), o.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

// update decides u on o and folds what it decided; it returns the events.
func update(t *testing.T, o *org.Organization, u org.SubscriptionUpdate) []event.Data {
	t.Helper()
	data, err := o.UpdateSubscription(u)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, o, data)
	return data
}

func sub(id, cause string, at int64, rank int, status org.SubscriptionStatus, tier org.Tier) org.SubscriptionUpdate {
	return org.SubscriptionUpdate{EventID: "evt_" + cause, Cause: cause, At: at, Rank: rank, SubscriptionID: id, CustomerID: "cus_1",
		Status: status, Tier: tier}
}

func newOrg(t *testing.T) *org.Organization {
	t.Helper()
	o, err := org.Load([]event.Event{created(t, "", "")})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestSubscriptionLifecycle(t *testing.T) {
	o := newOrg(t)
	if o.Subscribed() || o.CustomerID() != "" || o.Subscription().Status != "" {
		t.Fatalf("a new org has no subscription: %+v", o.Subscription())
	}
	data := update(t, o, sub("sub_1", "created", 100, 0, org.SubscriptionActive, org.Team))
	if len(data) != 2 || data[1].(org.TierChanged).To != org.Team || data[1].(org.TierChanged).Source != "billing" {
		t.Fatalf("created: %+v", data)
	}
	if !o.Subscribed() || o.Tier() != org.Team || o.CustomerID() != "cus_1" {
		t.Fatalf("after created: %+v tier %s", o.Subscription(), o.Tier())
	}
	// a payment failure keeps the tier
	update(t, o, sub("sub_1", "invoice.payment_failed", 200, 1, org.SubscriptionPastDue, ""))
	if o.Subscription().Status != org.SubscriptionPastDue || o.Tier() != org.Team || !o.Subscribed() {
		t.Fatalf("after failure: %+v %s", o.Subscription(), o.Tier())
	}
	update(t, o, sub("sub_1", "invoice.paid", 300, 1, org.SubscriptionActive, ""))
	if o.Subscription().Status != org.SubscriptionActive {
		t.Fatalf("after paid: %+v", o.Subscription())
	}
	// an upgrade moves the tier at once
	data = update(t, o, sub("sub_1", "updated", 400, 1, org.SubscriptionActive, org.Enterprise))
	if len(data) != 2 || o.Tier() != org.Enterprise {
		t.Fatalf("upgrade: %+v %s", data, o.Tier())
	}
	// the same tier again: the subscription moves, the tier does not
	if data = update(t, o, sub("sub_1", "updated", 450, 1, org.SubscriptionActive, org.Enterprise)); len(data) != 1 {
		t.Fatalf("same tier: %+v", data)
	}
	data = update(t, o, sub("sub_1", "deleted", 500, 2, org.SubscriptionCancelled, ""))
	if o.Tier() != org.Free || o.Subscribed() || o.Subscription().Status != org.SubscriptionCancelled || len(data) != 2 {
		t.Fatalf("deleted: %+v %s", o.Subscription(), o.Tier())
	}
	// an ended subscription is final: its late events move nothing
	for _, u := range []org.SubscriptionUpdate{
		sub("sub_1", "invoice.paid", 600, 1, org.SubscriptionActive, ""),
		sub("sub_1", "updated", 700, 1, org.SubscriptionActive, org.Pro),
	} {
		if data, err := o.UpdateSubscription(u); err != nil || len(data) != 0 {
			t.Fatalf("event of an ended subscription: %+v %v", data, err)
		}
	}
	// a new subscription starts afresh
	update(t, o, sub("sub_2", "created", 800, 0, org.SubscriptionActive, org.Pro))
	if o.Tier() != org.Pro || o.Subscription().ID != "sub_2" || !o.Subscribed() {
		t.Fatalf("new subscription: %+v %s", o.Subscription(), o.Tier())
	}
}

func TestSubscriptionOutOfOrder(t *testing.T) {
	o := newOrg(t)
	update(t, o, sub("sub_1", "created", 100, 0, org.SubscriptionActive, org.Pro))
	update(t, o, sub("sub_1", "updated", 300, 1, org.SubscriptionActive, org.Team))
	// an older update arrives late: stale
	if data, _ := o.UpdateSubscription(sub("sub_1", "updated", 200, 1, org.SubscriptionPastDue, org.Pro)); len(data) != 0 {
		t.Fatalf("older update applied: %+v", data)
	}
	// the creation arriving again in the same second as an update: stale
	if data, _ := o.UpdateSubscription(sub("sub_1", "created", 300, 0, org.SubscriptionActive, org.Pro)); len(data) != 0 {
		t.Fatalf("creation after an update of the same second applied: %+v", data)
	}
	// a deletion and a payment of the same second: the deletion wins in
	// either order
	d := newOrg(t)
	update(t, d, sub("sub_1", "created", 100, 0, org.SubscriptionActive, org.Pro))
	update(t, d, sub("sub_1", "deleted", 200, 2, org.SubscriptionCancelled, ""))
	if data, _ := d.UpdateSubscription(sub("sub_1", "invoice.paid", 200, 1, org.SubscriptionActive, "")); len(data) != 0 {
		t.Fatalf("payment after deletion applied: %+v", data)
	}
	e := newOrg(t)
	update(t, e, sub("sub_1", "invoice.paid", 200, 1, org.SubscriptionActive, org.Pro))
	update(t, e, sub("sub_1", "deleted", 200, 2, org.SubscriptionCancelled, ""))
	if e.Tier() != org.Free || e.Subscribed() {
		t.Fatalf("deletion after payment: %+v %s", e.Subscription(), e.Tier())
	}
	// the deletion arriving before the creation: the creation is stale
	f := newOrg(t)
	update(t, f, sub("sub_1", "deleted", 200, 2, org.SubscriptionCancelled, ""))
	if data, _ := f.UpdateSubscription(sub("sub_1", "created", 100, 0, org.SubscriptionActive, org.Team)); len(data) != 0 || f.Tier() != org.Free {
		t.Fatalf("creation after deletion applied: %+v", data)
	}
}

func TestSubscriptionOfAnotherSubscription(t *testing.T) {
	o := newOrg(t)
	update(t, o, sub("sub_2", "created", 200, 0, org.SubscriptionActive, org.Team))
	// an older subscription ends while sub_2 lives: recorded, nothing moves
	data := update(t, o, sub("sub_1", "deleted", 300, 2, org.SubscriptionCancelled, ""))
	if len(data) != 1 || data[0].(org.SubscriptionChanged).Current || o.Tier() != org.Team || o.Subscription().ID != "sub_2" {
		t.Fatalf("end of another subscription: %+v %+v %s", data, o.Subscription(), o.Tier())
	}
	// and is final
	if data, _ := o.UpdateSubscription(sub("sub_1", "updated", 400, 1, org.SubscriptionActive, org.Pro)); len(data) != 0 {
		t.Fatalf("update of the ended subscription: %+v", data)
	}
	// an older event of yet another live subscription: stale
	if data, _ := o.UpdateSubscription(sub("sub_3", "updated", 100, 1, org.SubscriptionActive, org.Pro)); len(data) != 0 {
		t.Fatalf("older event of another subscription: %+v", data)
	}
}

func TestSubscriptionUnknownStatusAndErrors(t *testing.T) {
	o := newOrg(t)
	update(t, o, sub("sub_1", "created", 100, 0, org.SubscriptionActive, org.Pro))
	update(t, o, sub("sub_1", "invoice.payment_failed", 150, 1, org.SubscriptionPastDue, ""))
	// a status the service does not know keeps the current one
	update(t, o, sub("sub_1", "updated", 200, 1, "", ""))
	if o.Subscription().Status != org.SubscriptionPastDue || o.Subscription().At != 200 {
		t.Fatalf("unknown status: %+v", o.Subscription())
	}
	if _, err := o.UpdateSubscription(sub("", "updated", 300, 1, org.SubscriptionActive, "")); !errors.Is(err, org.ErrInvalidSubscriptionUpdate) {
		t.Fatalf("no subscription id: %v", err)
	}
	if _, err := o.UpdateSubscription(sub("sub_1", "updated", 300, 1, org.SubscriptionActive, "gold")); !errors.Is(err, org.ErrInvalidTier) {
		t.Fatalf("bad tier: %v", err)
	}
}

func TestLinkCustomer(t *testing.T) {
	o := newOrg(t)
	if _, ok := o.LinkCustomer(" ", "evt"); ok {
		t.Fatal("an empty customer was linked")
	}
	l, ok := o.LinkCustomer("cus_9", "evt_1")
	if !ok || l.CustomerID != "cus_9" {
		t.Fatalf("link: %+v %v", l, ok)
	}
	apply(t, o, []event.Data{l})
	if o.CustomerID() != "cus_9" {
		t.Fatalf("customer %q", o.CustomerID())
	}
	if _, ok := o.LinkCustomer("cus_10", "evt_2"); ok {
		t.Fatal("a second customer replaced the first")
	}
	// a subscription's customer is the org's from then on
	update(t, o, sub("sub_1", "created", 100, 0, org.SubscriptionActive, org.Pro))
	if o.CustomerID() != "cus_1" {
		t.Fatalf("customer after subscription %q", o.CustomerID())
	}
}
