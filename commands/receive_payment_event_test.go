package commands_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/payment"
)

// scriptedProcessor verifies every delivery: the payload is the key of the
// event to return (or "bad" for a signature that fails).
type scriptedProcessor struct {
	commands.PaymentProcessor
	events map[string]payment.Event
}

func (p scriptedProcessor) Event(payload []byte, _ string) (payment.Event, error) {
	ev, ok := p.events[string(payload)]
	if !ok {
		return payment.Event{}, payment.ErrInvalidSignature
	}
	return ev, nil
}

func purchaseEvent(id, session, orgID string) payment.Event {
	return payment.Event{ID: id, Type: payment.CheckoutSessionComplete, Created: 100, Object: payment.Object{ID: session, Mode: "payment",
		PaymentStatus: "paid", CustomerID: "cus_" + session, Metadata: map[string]string{"org_id": orgID, "credits": "10000"}}}
}

func subscriptionEvent(id, typ string, created int64, orgID, status, tier string) payment.Event {
	return payment.Event{ID: id, Type: typ, Created: created, Object: payment.Object{ID: "sub_" + orgID[:8], SubscriptionID: "sub_" + orgID[:8],
		CustomerID: "cus_sub", Status: status, Metadata: map[string]string{"org_id": orgID, "tier": tier}}}
}

func receive(t *testing.T, h commands.ReceivePaymentEventHandler, key string) commands.PaymentEventReceived {
	t.Helper()
	res, err := h.Handle(context.Background(), commands.ReceivePaymentEvent{Payload: []byte(key)})
	if err != nil {
		t.Fatalf("receive %s: %v", key, err)
	}
	return res
}

func TestPaymentEventGrantsOnceUnderConcurrentDeliveries(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	repos := commands.NewRepositories(store)
	h := commands.NewReceivePaymentEventHandler(repos, scriptedProcessor{events: map[string]payment.Event{
		"first":        purchaseEvent("evt_p1_"+a.OrgID, "cs_1_"+a.OrgID, a.OrgID),
		"same-session": purchaseEvent("evt_p2_"+a.OrgID, "cs_1_"+a.OrgID, a.OrgID), // another event of the same session
	}})
	var wg sync.WaitGroup
	results := make([]commands.PaymentEventReceived, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = h.Handle(ctx, commands.ReceivePaymentEvent{Payload: []byte("first")})
		}()
	}
	wg.Wait()
	applied := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("delivery %d: %v", i, errs[i])
		}
		if !r.Duplicate {
			applied++
			if r.Outcome != payment.OutcomeGranted {
				t.Fatalf("outcome %q", r.Outcome)
			}
		}
	}
	if applied != 1 {
		t.Fatalf("%d of 8 concurrent deliveries applied, want 1", applied)
	}
	if r := receive(t, h, "same-session"); r.Duplicate || r.Outcome != payment.OutcomeFulfilled {
		t.Fatalf("another event of the session: %+v", r)
	}
	ledger, err := repos.Ledgers.Get(ctx, a.OrgID)
	if err != nil || ledger.Balance() != 2500+10_000 {
		t.Fatalf("balance %d, want 12500 (%v)", ledger.Balance(), err)
	}
	o, _ := repos.Orgs.Get(ctx, a.OrgID)
	if o.CustomerID() != "cus_cs_1_"+a.OrgID {
		t.Fatalf("customer %q", o.CustomerID())
	}
}

func TestPaymentEventSubscriptionOrder(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	repos := commands.NewRepositories(store)
	h := commands.NewReceivePaymentEventHandler(repos, scriptedProcessor{events: map[string]payment.Event{
		"created":  subscriptionEvent("evt_c_"+a.OrgID, payment.SubscriptionCreated, 100, a.OrgID, "active", "pro"),
		"upgraded": subscriptionEvent("evt_u_"+a.OrgID, payment.SubscriptionUpdated, 300, a.OrgID, "active", "team"),
		"old":      subscriptionEvent("evt_o_"+a.OrgID, payment.SubscriptionUpdated, 200, a.OrgID, "past_due", "pro"),
		"unknown":  subscriptionEvent("evt_x_"+a.OrgID, payment.SubscriptionCreated, 100, "00000000-0000-4000-8000-000000000000", "active", "pro"),
		"other":    {ID: "evt_other", Type: "customer.created"},
	}})
	if r := receive(t, h, "upgraded"); r.Outcome != payment.OutcomeApplied {
		t.Fatalf("upgrade first: %+v", r)
	}
	if r := receive(t, h, "created"); r.Outcome != payment.OutcomeStale {
		t.Fatalf("creation after the upgrade: %+v", r)
	}
	if r := receive(t, h, "old"); r.Outcome != payment.OutcomeStale {
		t.Fatalf("older update: %+v", r)
	}
	if r := receive(t, h, "old"); !r.Duplicate || r.Outcome != payment.OutcomeStale {
		t.Fatalf("redelivery: %+v", r)
	}
	o, _ := repos.Orgs.Get(ctx, a.OrgID)
	if o.Tier() != org.Team || o.Subscription().Status != org.SubscriptionActive {
		t.Fatalf("org after out-of-order events: %s %+v", o.Tier(), o.Subscription())
	}
	if r := receive(t, h, "unknown"); r.Outcome != payment.OutcomeUnknownOrg {
		t.Fatalf("unknown org: %+v", r)
	}
	if r := receive(t, h, "other"); r.Outcome != commands.OutcomeUnhandled {
		t.Fatalf("another type: %+v", r)
	}
	if rec, _ := repos.PaymentEvents.Get(ctx, "evt_other"); rec.Seen() {
		t.Fatal("an unhandled event was recorded")
	}
	if _, err := h.Handle(ctx, commands.ReceivePaymentEvent{Payload: []byte("bad")}); !errors.Is(err, payment.ErrInvalidSignature) {
		t.Fatalf("bad signature: %v", err)
	}
	none := commands.NewReceivePaymentEventHandler(repos, nil)
	if _, err := none.Handle(ctx, commands.ReceivePaymentEvent{Payload: []byte("created")}); !errors.Is(err, payment.ErrUnavailable) {
		t.Fatalf("no processor: %v", err)
	}
}
