package blackbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v86/webhook"
)

// Billing through the payment processor (spec B, Billing; OPERATIONS.md's
// STRIPE_* and payment processor events): the servers talk to stripe-mock,
// and the processor's events are built here and signed with stripe-go's
// webhook test helper.

// stripeEvent is a Stripe event of type typ about object, created at
// created (Unix seconds).
func stripeEvent(id, typ string, created int64, object map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "object": "event", "api_version": "2026-06-24.dahlia", "created": created,
		"livemode": false, "pending_webhooks": 1, "type": typ, "data": map[string]any{"object": object}})
	return b
}

// sendEvent posts payload to the webhook signed with secret at time at.
func (s *server) sendEvent(t testing.TB, payload []byte, secret string, at time.Time) *response {
	t.Helper()
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at})
	return s.do(t, req{Method: http.MethodPost, Path: "/api/billing/webhook", Body: payload,
		Header: map[string]string{"Stripe-Signature": signed.Header}})
}

// deliver sends a correctly signed event and requires 200 {received:true}.
func (s *server) deliver(t testing.TB, payload []byte) {
	t.Helper()
	res := s.sendEvent(t, payload, stripeWebhookSecret, time.Now())
	wantStatus(t, res, http.StatusOK)
	if !boolean(t, res.Body, "received") {
		t.Fatalf("webhook: %s", res.Raw)
	}
}

// purchase is a completed credit checkout of orgID.
func purchase(eventID, session, orgID string, credits int64) []byte {
	return stripeEvent(eventID, "checkout.session.completed", time.Now().Unix(), map[string]any{
		"id": session, "object": "checkout.session", "mode": "payment", "payment_status": "paid", "status": "complete",
		"customer": "cus_" + session, "amount_total": credits / 10, "currency": "usd",
		"metadata": map[string]any{"org_id": orgID, "credits": strconv.FormatInt(credits, 10)}})
}

// subscription is a Stripe subscription object of orgID.
func subscription(id, orgID, status, tier string) map[string]any {
	return map[string]any{"id": id, "object": "subscription", "customer": "cus_" + id, "status": status,
		"metadata": map[string]any{"org_id": orgID, "tier": tier}}
}

// invoice is a Stripe invoice of subscription sub (the current API's
// shape: the subscription and its metadata under parent).
func invoice(id, sub, orgID string) map[string]any {
	return map[string]any{"id": id, "object": "invoice", "customer": "cus_" + sub, "metadata": map[string]any{},
		"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{
			"subscription": sub, "metadata": map[string]any{"org_id": orgID}}}}
}

// isPaid reads GET /api/keys/verify's is_paid.
func (s *server) isPaid(t testing.TB, key string) bool {
	t.Helper()
	res := s.do(t, req{Path: "/api/keys/verify", Key: key})
	wantStatus(t, res, http.StatusOK)
	return boolean(t, res.Body, "is_paid")
}

// createWorkspace answers POST /api/workspaces as key's.
func (s *server) createWorkspace(t testing.TB, key string) *response {
	t.Helper()
	return s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces", Key: key, Body: map[string]any{"name": "Paid " + randomHex(4)}})
}

// wantURL requires 200 {url} with an https URL.
func wantURL(t testing.TB, res *response) string {
	t.Helper()
	wantStatus(t, res, http.StatusOK)
	u := str(t, res.Body, "url")
	if !strings.HasPrefix(u, "https://") {
		t.Fatalf("url %q is not a processor page", u)
	}
	return u
}

func TestBillingCheckout(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	post := func(key string, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/billing/checkout", Key: key, Body: body})
	}
	for _, pack := range []int{10, 25, 100, 250} {
		wantURL(t, post(a.Key, map[string]any{"pack": pack}))
	}
	for _, usd := range []int{5, 1234, 10000} {
		wantURL(t, post(a.Key, map[string]any{"custom_amount": usd}))
	}
	// exactly one of pack and custom_amount
	wantError(t, post(a.Key, map[string]any{"pack": 10, "custom_amount": 50}), http.StatusBadRequest, "invalid_body")
	wantError(t, post(a.Key, map[string]any{}), http.StatusBadRequest, "invalid_body")
	wantError(t, post(a.Key, nil), http.StatusBadRequest, "invalid_body")
	wantError(t, post(a.Key, `{"pack":`), http.StatusBadRequest, "invalid_body")
	wantError(t, post(a.Key, map[string]any{"pack": "10"}), http.StatusBadRequest, "invalid_body")
	for _, pack := range []any{7, 0, -10, 10.5, 1000} {
		res := post(a.Key, map[string]any{"pack": pack})
		wantError(t, res, http.StatusBadRequest, "invalid_pack")
		if got, _ := json.Marshal(res.Body["available"]); string(got) != "[10,25,100,250]" {
			t.Errorf("invalid_pack lists available %s, want [10,25,100,250]", got)
		}
	}
	for _, usd := range []any{4, 0, 10001, 5.5, -1} {
		res := post(a.Key, map[string]any{"custom_amount": usd})
		wantError(t, res, http.StatusBadRequest, "invalid_custom_amount")
		if integer(t, res.Body, "min") != 5 || integer(t, res.Body, "max") != 10000 {
			t.Errorf("invalid_custom_amount: %s, want min 5 and max 10000", res.Raw)
		}
	}
	// a key, admin or above
	wantError(t, post("", map[string]any{"pack": 10}), http.StatusUnauthorized, "missing_api_key")
	p := s.signUpPerson(t, "checkout")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/checkout", Header: p.cookie(), Body: map[string]any{"pack": 10}}),
		http.StatusUnauthorized, "missing_api_key")
	member := s.keyWithRole(t, p, p.WorkspaceID, "member")
	wantError(t, post(member, map[string]any{"pack": 10}), http.StatusForbidden, "forbidden")
	admin := s.keyWithRole(t, p, p.WorkspaceID, "admin")
	wantURL(t, post(admin, map[string]any{"pack": 10}))
	// a checkout page grants nothing by itself
	if b := s.balance(t, a.Key); b != 2500 {
		t.Fatalf("balance %d after checkouts, want 2500", b)
	}
}

func TestBillingSubscribeAndPortal(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	subscribe := func(body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/billing/subscribe", Key: a.Key, Body: body})
	}
	portal := func(key string) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/billing/portal", Key: key})
	}
	for _, body := range []map[string]any{{"tier": "pro"}, {"tier": "team", "interval": "annual"}, {"tier": "enterprise", "interval": "monthly"}} {
		wantURL(t, subscribe(body))
	}
	wantError(t, subscribe(map[string]any{"tier": "gold"}), http.StatusBadRequest, "invalid_tier")
	wantError(t, subscribe(map[string]any{"tier": "free"}), http.StatusBadRequest, "invalid_tier")
	wantError(t, subscribe(map[string]any{}), http.StatusBadRequest, "invalid_tier")
	wantError(t, subscribe(map[string]any{"tier": "pro", "interval": "weekly"}), http.StatusBadRequest, "invalid_interval")
	wantError(t, subscribe(map[string]any{"tier": 3}), http.StatusBadRequest, "invalid_body")
	// a plan without a configured price
	wantError(t, subscribe(map[string]any{"tier": "enterprise", "interval": "annual"}), http.StatusServiceUnavailable, "billing_unavailable")

	// the portal needs a processor customer
	wantError(t, portal(a.Key), http.StatusBadRequest, "no_billing_account")
	wantError(t, portal(""), http.StatusUnauthorized, "unauthorized")

	// subscribed: 409, and the portal opens
	sub := "sub_bb_" + randomHex(6)
	s.deliver(t, stripeEvent("evt_"+randomHex(8), "customer.subscription.created", time.Now().Unix(), subscription(sub, a.OrgID, "active", "pro")))
	wantError(t, subscribe(map[string]any{"tier": "team"}), http.StatusConflict, "already_subscribed")
	wantURL(t, portal(a.Key))
	// past due is still subscribed
	s.deliver(t, stripeEvent("evt_"+randomHex(8), "invoice.payment_failed", time.Now().Unix()+1, invoice("in_"+randomHex(6), sub, a.OrgID)))
	wantError(t, subscribe(map[string]any{"tier": "team"}), http.StatusConflict, "already_subscribed")
	// cancelled: a new subscription may start
	s.deliver(t, stripeEvent("evt_"+randomHex(8), "customer.subscription.deleted", time.Now().Unix()+2, subscription(sub, a.OrgID, "canceled", "pro")))
	wantURL(t, subscribe(map[string]any{"tier": "team"}))
	wantURL(t, portal(a.Key))

	// with a session (spec B: key or session), an owner's
	p := s.signUpPerson(t, "subscribe")
	wantURL(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/subscribe", Header: p.cookie(), Body: map[string]any{"tier": "pro"}}))
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/portal", Header: p.cookie()}), http.StatusBadRequest, "no_billing_account")
	// admin or above
	member := s.keyWithRole(t, p, p.WorkspaceID, "member")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/subscribe", Key: member, Body: map[string]any{"tier": "pro"}}),
		http.StatusForbidden, "forbidden")
	wantError(t, portal(member), http.StatusForbidden, "forbidden")
}

func TestBillingWebhookPurchase(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	session := "cs_test_bb_" + randomHex(8)
	payload := purchase("evt_"+randomHex(10), session, a.OrgID, 25_000)
	res := s.sendEvent(t, payload, stripeWebhookSecret, time.Now())
	wantStatus(t, res, http.StatusOK)
	// the answer waits for the read models: the balance shows it at once
	s.readYourWrites(t, res.RequestID, a.Key, 27_500)
	// Stripe retries: the same event again, signed anew, grants nothing
	for range 3 {
		s.deliver(t, payload)
	}
	// another event of the same session grants nothing either
	s.deliver(t, purchase("evt_"+randomHex(10), session, a.OrgID, 25_000))
	if b := s.balance(t, a.Key); b != 27_500 {
		t.Fatalf("balance %d after redeliveries, want 27500", b)
	}
	// an unpaid session grants nothing
	unpaid := stripeEvent("evt_"+randomHex(10), "checkout.session.completed", time.Now().Unix(), map[string]any{
		"id": "cs_test_unpaid_" + randomHex(4), "object": "checkout.session", "mode": "payment", "payment_status": "unpaid",
		"metadata": map[string]any{"org_id": a.OrgID, "credits": "10000"}})
	s.deliver(t, unpaid)
	if b := s.balance(t, a.Key); b != 27_500 {
		t.Fatalf("balance %d after an unpaid session, want 27500", b)
	}
	events := s.settledEvents(t, a)
	if n := countEvents(events, "CreditsGranted"); n != 2 {
		t.Fatalf("%d grants, want the signup's and the purchase's", n)
	}
	if n := countEvents(events, "CheckoutFulfilled"); n != 1 {
		t.Fatalf("%d fulfilments, want 1", n)
	}
	if n := countEvents(events, "PaymentEventRecorded"); n != 3 {
		t.Fatalf("%d processor events recorded, want 3 (purchase, its session's second event, unpaid)", n)
	}
	for _, e := range events {
		if e.Type == "CreditsGranted" && e.Data["reason"] == "purchase" && e.Data["amount"] != 25_000.0 {
			t.Fatalf("purchase grant %v", e.Data)
		}
	}
	replayBilling(t, s.dbURL, a.OrgID)
	// the checkout's customer is the org's: the portal opens
	wantURL(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/portal", Key: a.Key}))
}

func TestBillingWebhookRefusals(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	payload := purchase("evt_"+randomHex(10), "cs_test_refused_"+randomHex(6), a.OrgID, 10_000)
	// another secret, a stale signature (over 5 minutes), no or a malformed header, an altered body
	wantError(t, s.sendEvent(t, payload, "whsec_wrong", time.Now()), http.StatusBadRequest, "invalid_signature")
	wantError(t, s.sendEvent(t, payload, stripeWebhookSecret, time.Now().Add(-6*time.Minute)), http.StatusBadRequest, "invalid_signature")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/webhook", Body: payload}), http.StatusBadRequest, "invalid_signature")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/webhook", Body: payload,
		Header: map[string]string{"Stripe-Signature": "t=1,v1=zz"}}), http.StatusBadRequest, "invalid_signature")
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: stripeWebhookSecret})
	altered := strings.Replace(string(payload), "10000", "99000", 1)
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/webhook", Body: altered,
		Header: map[string]string{"Stripe-Signature": signed.Header}}), http.StatusBadRequest, "invalid_signature")
	// within the tolerance, a signature a little old passes
	wantStatus(t, s.sendEvent(t, stripeEvent("evt_"+randomHex(10), "customer.created", time.Now().Unix(), map[string]any{"id": "cus_x"}),
		stripeWebhookSecret, time.Now().Add(-4*time.Minute)), http.StatusOK)
	if b := s.balance(t, a.Key); b != 2500 {
		t.Fatalf("balance %d after refused deliveries, want 2500", b)
	}
	// a type the service does not read: 200, nothing changes, nothing is recorded
	for _, typ := range []string{"customer.created", "payment_intent.created", "charge.refunded", "invoice.created"} {
		s.deliver(t, stripeEvent("evt_"+randomHex(10), typ, time.Now().Unix(), map[string]any{"id": "x_" + randomHex(4),
			"metadata": map[string]any{"org_id": a.OrgID, "credits": "50000", "tier": "team"}}))
	}
	if s.isPaid(t, a.Key) || s.balance(t, a.Key) != 2500 {
		t.Fatal("an unread event type changed something")
	}
	// an event naming no organization of this service: 200, recorded, nothing changes
	s.deliver(t, purchase("evt_"+randomHex(10), "cs_test_nobody_"+randomHex(6), "00000000-0000-4000-8000-000000000000", 10_000))
	s.deliver(t, purchase("evt_"+randomHex(10), "cs_test_garbage_"+randomHex(6), "not-an-org", 10_000))
	events := s.settledEvents(t, a)
	if n := countEvents(events, "PaymentEventRecorded") + countEvents(events, "CreditsGranted"); n != 1 {
		t.Fatalf("refused or unread events left %d events on the org, want only its signup grant", n)
	}
}

func TestBillingWebhookSubscription(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	wantError(t, s.createWorkspace(t, a.Key), http.StatusForbidden, "tier_required")
	sub := "sub_bb_" + randomHex(8)
	t0 := time.Now().Unix()

	// created (Team): the tier moves at once, and with it the limits
	res := s.sendEvent(t, stripeEvent("evt_c_"+sub, "customer.subscription.created", t0, subscription(sub, a.OrgID, "active", "team")),
		stripeWebhookSecret, time.Now())
	wantStatus(t, res, http.StatusOK)
	if !s.isPaid(t, a.Key) {
		t.Fatal("is_paid false right after the subscription was created")
	}
	wantStatus(t, s.createWorkspace(t, a.Key), http.StatusCreated)

	// a newer update: past due, still Team
	s.deliver(t, stripeEvent("evt_u2_"+sub, "customer.subscription.updated", t0+20, subscription(sub, a.OrgID, "past_due", "team")))
	// an older update arriving late (a downgrade to Pro) moves nothing
	s.deliver(t, stripeEvent("evt_u1_"+sub, "customer.subscription.updated", t0+10, subscription(sub, a.OrgID, "active", "pro")))
	wantStatus(t, s.createWorkspace(t, a.Key), http.StatusCreated) // still Team: Pro has no workspaces
	// the creation delivered again: a duplicate, nothing moves
	s.deliver(t, stripeEvent("evt_c_"+sub, "customer.subscription.created", t0, subscription(sub, a.OrgID, "active", "team")))
	// the invoice paid: active again
	s.deliver(t, stripeEvent("evt_p_"+sub, "invoice.paid", t0+30, invoice("in_"+sub, sub, a.OrgID)))
	// an upgrade to Enterprise
	s.deliver(t, stripeEvent("evt_u3_"+sub, "customer.subscription.updated", t0+40, subscription(sub, a.OrgID, "active", "enterprise")))

	// deleted: cancelled, back to Free at once
	s.deliver(t, stripeEvent("evt_d_"+sub, "customer.subscription.deleted", t0+50, subscription(sub, a.OrgID, "canceled", "enterprise")))
	if s.isPaid(t, a.Key) {
		t.Fatal("is_paid true right after the subscription was deleted")
	}
	wantError(t, s.createWorkspace(t, a.Key), http.StatusForbidden, "tier_required")
	// late events of the ended subscription move nothing
	s.deliver(t, stripeEvent("evt_p2_"+sub, "invoice.paid", t0+60, invoice("in2_"+sub, sub, a.OrgID)))
	s.deliver(t, stripeEvent("evt_u4_"+sub, "customer.subscription.updated", t0+70, subscription(sub, a.OrgID, "active", "team")))
	if s.isPaid(t, a.Key) {
		t.Fatal("a late event revived a deleted subscription")
	}

	var statuses, tiers []string
	for _, e := range s.settledEvents(t, a) {
		switch e.Type {
		case "SubscriptionChanged":
			statuses = append(statuses, e.Data["status"].(string))
		case "TierChanged":
			tiers = append(tiers, e.Data["to"].(string))
		}
	}
	if got := strings.Join(statuses, ","); got != "active,past_due,active,active,cancelled" {
		t.Fatalf("subscription statuses %s", got)
	}
	if got := strings.Join(tiers, ","); got != "team,enterprise,free" {
		t.Fatalf("tiers %s", got)
	}
	// svc replay billing compares the tier and the subscription too
	out := cli(t, s.dbURL, "replay", "billing", "--org", a.OrgID)
	if out.Code != 0 || !strings.Contains(out.Stdout, "tier free, subscription cancelled "+sub) {
		t.Fatalf("svc replay billing after the subscription: %s", out)
	}
}

func TestBillingUnavailable(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"STRIPE_SECRET_KEY": ""})
	a := s.signup(t, nil)
	for _, r := range []req{
		{Method: http.MethodPost, Path: "/api/billing/checkout", Key: a.Key, Body: map[string]any{"pack": 10}},
		{Method: http.MethodPost, Path: "/api/billing/checkout", Key: a.Key, Body: map[string]any{"pack": 7}},
		{Method: http.MethodPost, Path: "/api/billing/subscribe", Key: a.Key, Body: map[string]any{"tier": "pro"}},
		{Method: http.MethodPost, Path: "/api/billing/portal", Key: a.Key},
	} {
		wantError(t, s.do(t, r), http.StatusServiceUnavailable, "billing_unavailable")
	}
	wantError(t, s.sendEvent(t, purchase("evt_"+randomHex(8), "cs_test_"+randomHex(4), a.OrgID, 10_000), stripeWebhookSecret, time.Now()),
		http.StatusServiceUnavailable, "billing_unavailable")
	// authentication still comes first, and everything else works
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/checkout", Body: map[string]any{"pack": 10}}),
		http.StatusUnauthorized, "missing_api_key")
	if b := s.balance(t, a.Key); b != 2500 {
		t.Fatalf("balance %d", b)
	}
	wantStatus(t, s.do(t, req{Path: "/api/keys/verify", Key: a.Key}), http.StatusOK)
	s.planStored(t, a.Key, map[string]any{"task_description": "compare our pricing with three competitors for the board"})
}
