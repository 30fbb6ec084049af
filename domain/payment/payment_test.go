package payment_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/org"
	"svc/domain/payment"
	"svc/eventstore/event"
)

func f(v float64) *float64 { return &v }

func TestCheckoutAmounts(t *testing.T) {
	for _, usd := range []float64{10, 25, 100, 250} {
		p, err := payment.Checkout(f(usd), nil)
		if err != nil || p.USD != int64(usd) || p.Credits != int64(usd)*1000 {
			t.Fatalf("pack %v: %+v %v", usd, p, err)
		}
	}
	for _, usd := range []float64{0, 5, 11, 10.5, -10, 1000} {
		if _, err := payment.Checkout(f(usd), nil); !errors.Is(err, payment.ErrInvalidPack) {
			t.Fatalf("pack %v: %v", usd, err)
		}
	}
	for _, usd := range []float64{5, 6, 9999, 10000} {
		p, err := payment.Checkout(nil, f(usd))
		if err != nil || p.Credits != int64(usd)*1000 {
			t.Fatalf("custom %v: %+v %v", usd, p, err)
		}
	}
	for _, usd := range []float64{4, 0, -5, 10001, 5.5, 1e12} {
		if _, err := payment.Checkout(nil, f(usd)); !errors.Is(err, payment.ErrInvalidCustomAmount) {
			t.Fatalf("custom %v: %v", usd, err)
		}
	}
	if _, err := payment.Checkout(nil, nil); !errors.Is(err, payment.ErrPackOrCustom) {
		t.Fatalf("neither: %v", err)
	}
	if _, err := payment.Checkout(f(10), f(10)); !errors.Is(err, payment.ErrPackOrCustom) {
		t.Fatalf("both: %v", err)
	}
}

func TestParsePlan(t *testing.T) {
	p, err := payment.ParsePlan("team", "")
	if err != nil || p != (payment.Plan{Tier: org.Team, Interval: payment.Monthly}) || p.Key() != "team/monthly" {
		t.Fatalf("default interval: %+v %v", p, err)
	}
	if p, err := payment.ParsePlan("enterprise", "annual"); err != nil || p.Interval != payment.Annual {
		t.Fatalf("annual: %+v %v", p, err)
	}
	for _, tier := range []string{"", "free", "gold", "Pro"} {
		if _, err := payment.ParsePlan(tier, "monthly"); !errors.Is(err, payment.ErrInvalidTier) {
			t.Fatalf("tier %q: %v", tier, err)
		}
	}
	for _, iv := range []string{"weekly", "Monthly", "yearly"} {
		if _, err := payment.ParsePlan("pro", iv); !errors.Is(err, payment.ErrInvalidInterval) {
			t.Fatalf("interval %q: %v", iv, err)
		}
	}
}

func TestKindOf(t *testing.T) {
	for typ, want := range map[string]payment.Kind{
		payment.SubscriptionCreated: payment.SubscriptionEvent, payment.SubscriptionUpdated: payment.SubscriptionEvent,
		payment.SubscriptionDeleted: payment.SubscriptionEvent, payment.InvoicePaid: payment.SubscriptionEvent,
		payment.InvoicePaymentFailed: payment.SubscriptionEvent, payment.CheckoutSessionComplete: payment.PurchaseEvent,
		"customer.created": payment.Unhandled, "charge.refunded": payment.Unhandled, "": payment.Unhandled,
	} {
		if got := payment.KindOf(payment.Event{Type: typ}); got != want {
			t.Errorf("%q: kind %d, want %d", typ, got, want)
		}
	}
}

func TestSubscriptionUpdate(t *testing.T) {
	ev := func(typ, status, tier string) payment.Event {
		return payment.Event{ID: "evt_1", Type: typ, Created: 42, Object: payment.Object{SubscriptionID: "sub_1", CustomerID: "cus_1",
			Status: status, Metadata: map[string]string{"org_id": "o", "tier": tier}}}
	}
	for _, c := range []struct {
		typ, status, tier string
		want              org.SubscriptionStatus
		wantTier          org.Tier
		rank              int
	}{
		{payment.SubscriptionCreated, "incomplete", "team", org.SubscriptionActive, org.Team, 0},
		{payment.SubscriptionUpdated, "active", "pro", org.SubscriptionActive, org.Pro, 1},
		{payment.SubscriptionUpdated, "trialing", "", org.SubscriptionActive, "", 1},
		{payment.SubscriptionUpdated, "past_due", "enterprise", org.SubscriptionPastDue, org.Enterprise, 1},
		{payment.SubscriptionUpdated, "unpaid", "", org.SubscriptionPastDue, "", 1},
		{payment.SubscriptionUpdated, "canceled", "", org.SubscriptionCancelled, "", 1},
		{payment.SubscriptionUpdated, "something_new", "", "", "", 1},
		{payment.SubscriptionDeleted, "canceled", "team", org.SubscriptionCancelled, org.Team, 2},
		{payment.InvoicePaid, "", "free", org.SubscriptionActive, "", 1},
		{payment.InvoicePaymentFailed, "", "gold", org.SubscriptionPastDue, "", 1},
	} {
		u, outcome, ok := payment.SubscriptionUpdate(ev(c.typ, c.status, c.tier))
		if !ok || outcome != "" || u.Status != c.want || u.Tier != c.wantTier || u.Rank != c.rank || u.At != 42 ||
			u.SubscriptionID != "sub_1" || u.CustomerID != "cus_1" || u.Cause != c.typ || u.EventID != "evt_1" {
			t.Errorf("%s %s %s: %+v %q %v", c.typ, c.status, c.tier, u, outcome, ok)
		}
	}
	noSub := ev(payment.InvoicePaid, "", "")
	noSub.Object.SubscriptionID = ""
	if _, outcome, ok := payment.SubscriptionUpdate(noSub); ok || outcome != payment.OutcomeNotForSubscr {
		t.Fatalf("invoice of no subscription: %q %v", outcome, ok)
	}
	noSub.Type = payment.SubscriptionUpdated
	if _, outcome, ok := payment.SubscriptionUpdate(noSub); ok || outcome != payment.OutcomeInvalid {
		t.Fatalf("subscription event without an id: %q %v", outcome, ok)
	}
}

func TestPurchasedCredits(t *testing.T) {
	ev := func(mode, status, credits string) payment.Event {
		return payment.Event{ID: "evt_1", Type: payment.CheckoutSessionComplete, Object: payment.Object{ID: "cs_1", Mode: mode,
			PaymentStatus: status, Metadata: map[string]string{"org_id": "o", "credits": credits}}}
	}
	if n, outcome := payment.PurchasedCredits(ev("payment", "paid", "25000")); n != 25000 || outcome != "" {
		t.Fatalf("paid: %d %q", n, outcome)
	}
	for _, c := range []struct{ mode, status, credits, want string }{
		{"payment", "unpaid", "25000", payment.OutcomeUnpaid},
		{"subscription", "paid", "", payment.OutcomeLinked},
		{"payment", "paid", "", payment.OutcomeInvalid},
		{"payment", "paid", "-5", payment.OutcomeInvalid},
		{"payment", "paid", "10000001", payment.OutcomeInvalid},
		{"payment", "paid", "1e3", payment.OutcomeInvalid},
	} {
		if n, outcome := payment.PurchasedCredits(ev(c.mode, c.status, c.credits)); n != 0 || outcome != c.want {
			t.Errorf("%+v: %d %q", c, n, outcome)
		}
	}
}

func TestRecord(t *testing.T) {
	r := payment.NewRecord()
	if r.Seen() || r.Version() != event.NewStream {
		t.Fatal("a new record is seen")
	}
	ev := payment.Event{ID: "evt_1", Type: payment.InvoicePaid, Created: 7, Object: payment.Object{ID: "cs_1"}}
	d, err := r.Record(ev, "o", payment.OutcomeApplied)
	if err != nil || d.EventID != "evt_1" || d.Outcome != payment.OutcomeApplied || d.Created != 7 {
		t.Fatalf("record: %+v %v", d, err)
	}
	if err := r.Apply(event.Recorded(payment.Stream("evt_1"), 0, time.Now(), d)); err != nil {
		t.Fatal(err)
	}
	if !r.Seen() || r.Recorded().Outcome != payment.OutcomeApplied {
		t.Fatal("record not folded")
	}
	if _, err := r.Record(ev, "o", payment.OutcomeApplied); err == nil {
		t.Fatal("recorded twice")
	}
	s := payment.NewRecord()
	fulfilled, err := s.Fulfil(ev, "o", 10_000)
	if err != nil || fulfilled.SessionID != "cs_1" || fulfilled.Credits != 10_000 {
		t.Fatalf("fulfil: %+v %v", fulfilled, err)
	}
	_ = s.Apply(event.Recorded(payment.CheckoutStream("cs_1"), 0, time.Now(), fulfilled))
	if _, err := s.Fulfil(ev, "o", 10_000); err == nil || !s.Seen() {
		t.Fatal("fulfilled twice")
	}
}
