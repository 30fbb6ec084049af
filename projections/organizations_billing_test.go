package projections_test

import (
	"context"
	"reflect"
	"testing"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/projections"
)

// processorEvents verifies every delivery: the payload names the event.
type processorEvents struct {
	commands.PaymentProcessor
	events map[string]payment.Event
}

func (p processorEvents) Event(payload []byte, _ string) (payment.Event, error) {
	return p.events[string(payload)], nil
}

// The organizations read model shows the processor's subscription and
// customer, and a rebuild equals it.
func TestOrganizationsShowSubscriptions(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Organizations{}, projections.Billing{}}
	r := newRunner(t, ps)
	orgs := populate(t, 2)
	sub := func(id, typ string, at int64, status, tier string) payment.Event {
		return payment.Event{ID: id, Type: typ, Created: at, Object: payment.Object{ID: "sub_1", SubscriptionID: "sub_1", CustomerID: "cus_1",
			Status: status, Metadata: map[string]string{"org_id": orgs[0], "tier": tier}}}
	}
	h := commands.NewReceivePaymentEventHandler(commands.NewRepositories(store), processorEvents{events: map[string]payment.Event{
		"created": sub("evt_1", payment.SubscriptionCreated, 100, "active", "team"),
		"failed":  sub("evt_2", payment.SubscriptionUpdated, 200, "past_due", "team"),
		"purchase": {ID: "evt_3", Type: payment.CheckoutSessionComplete, Created: 300, Object: payment.Object{ID: "cs_1", Mode: "payment",
			PaymentStatus: "paid", CustomerID: "cus_2", Metadata: map[string]string{"org_id": orgs[1], "credits": "5000"}}},
	}})
	for _, key := range []string{"created", "failed", "purchase"} {
		if _, err := h.Handle(context.Background(), commands.ReceivePaymentEvent{Payload: []byte(key)}); err != nil {
			t.Fatal(err)
		}
	}
	catchUp(t, r)
	row, err := projections.Organization(context.Background(), db.Pool, orgs[0])
	if err != nil || row.Tier != org.Team || row.Status != "past_due" || row.SubscriptionID != "sub_1" || row.CustomerID != "cus_1" {
		t.Fatalf("subscribed org %+v %v", row, err)
	}
	row, err = projections.Organization(context.Background(), db.Pool, orgs[1])
	if err != nil || row.Tier != org.Free || row.Status != "active" || row.SubscriptionID != "" || row.CustomerID != "cus_2" {
		t.Fatalf("buying org %+v %v", row, err)
	}
	b, err := projections.Balance(context.Background(), db.Pool, orgs[1])
	if err != nil || b.Balance != 4247+5000 {
		t.Fatalf("balance after a purchase %+v %v", b, err)
	}
	live := dump(t, ps)
	for _, p := range ps {
		if _, err := projections.NewRunner(store, quiet, ps).Rebuild(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
}
