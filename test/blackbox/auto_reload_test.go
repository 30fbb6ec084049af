package blackbox

import (
	"net/http"
	"testing"
	"time"
)

// TestAutoReload: GET/PUT /api/billing/auto-reload (spec B, Billing) and
// a run that takes the balance below the threshold: exactly one reload is
// requested and paid off-session at stripe-mock (which answers a
// PaymentIntent that waits for its outcome), the processor's signed
// payment_intent.succeeded grants its credits once.
func TestAutoReload(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	const path = "/api/billing/auto-reload"
	put := func(key string, body any) *response {
		return s.do(t, req{Method: http.MethodPut, Path: path, Key: key, Body: body})
	}

	// never configured
	got := s.do(t, req{Path: path, Key: a.Key})
	wantStatus(t, got, http.StatusOK)
	if boolean(t, got.Body, "enabled") || got.Body["threshold"] != nil || got.Body["amount"] != nil || got.Body["monthly_limit"] != nil ||
		integer(t, got.Body, "monthly_spent") != 0 {
		t.Fatalf("unconfigured: %s", got.Raw)
	}
	// a saved payment method is required: none before a purchase
	enable := map[string]any{"enabled": true, "confirm": true, "threshold": 1000, "amount": 5000}
	wantError(t, put(a.Key, enable), http.StatusBadRequest, "invalid_body")

	// every rule of the body is invalid_body naming its field
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "enabled"},
		{map[string]any{"enabled": "yes"}, "enabled"},
		{map[string]any{"enabled": true, "threshold": 1000, "amount": 5000}, "confirm"},
		{map[string]any{"enabled": true, "confirm": false, "threshold": 1000, "amount": 5000}, "confirm"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 99, "amount": 5000}, "threshold"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 100001, "amount": 5000}, "threshold"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 150.5, "amount": 5000}, "threshold"},
		{map[string]any{"enabled": true, "confirm": true, "amount": 5000}, "threshold"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 1000, "amount": 6000}, "amount"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 1000}, "amount"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 1000, "amount": 5000, "monthly_limit": 4}, "monthly_limit"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 1000, "amount": 5000, "monthly_limit": 10001}, "monthly_limit"},
		{map[string]any{"enabled": true, "confirm": true, "threshold": 1000, "amount": 5000, "monthly_limit": "50"}, "monthly_limit"},
	} {
		res := put(a.Key, c.body)
		wantError(t, res, http.StatusBadRequest, "invalid_body")
		if f := object(t, object(t, res.Body, "error"), "details")["field"]; f != c.field {
			t.Errorf("%v: field %v, want %s", c.body, f, c.field)
		}
	}
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Body: enable}), http.StatusUnauthorized, "unauthorized")
	p := s.signUpPerson(t, "reload")
	member := s.keyWithRole(t, p, p.WorkspaceID, "member")
	wantError(t, put(member, enable), http.StatusForbidden, "forbidden")
	wantStatus(t, s.do(t, req{Path: path, Key: member}), http.StatusOK)

	// the first run is free: run it, then buy credits (the checkout's
	// customer is the billing account auto-reload pays with)
	first, _ := wantQueued(t, s, s.execute(t, a.Key, process("reload free run "+randomHex(4), map[string]any{"delivery": polling})), "polling")
	s.waitTerminal(t, a.Key, first, 90*time.Second)
	s.deliver(t, purchase("evt_"+randomHex(10), "cs_test_reload_"+randomHex(6), a.OrgID, 10_000))
	balance := s.balance(t, a.Key)

	// enabled just below the balance: the next run crosses
	threshold := balance - 1
	set := put(a.Key, map[string]any{"enabled": true, "confirm": true, "threshold": threshold, "amount": 5000, "monthly_limit": 50})
	wantStatus(t, set, http.StatusOK)
	if !boolean(t, set.Body, "enabled") || integer(t, set.Body, "threshold") != threshold || integer(t, set.Body, "amount") != 5000 ||
		integer(t, set.Body, "monthly_limit") != 50 || integer(t, set.Body, "monthly_spent") != 0 || set.Body["reset_at"] == nil {
		t.Fatalf("enabled: %s", set.Raw)
	}
	run, _ := wantQueued(t, s, s.execute(t, a.Key, process("reload run "+randomHex(4), map[string]any{"delivery": polling})), "polling")
	wf := s.waitTerminal(t, a.Key, run, 90*time.Second)
	used := integer(t, wf, "credits_used")

	// the job took the payment: the config shows it pending, $5 spent
	s.poll(t, req{Path: path, Key: a.Key}, 30*time.Second, func(res *response) bool {
		return res.Status == http.StatusOK && res.Body["reload_pending"] == true && integer(t, res.Body, "monthly_spent") == 5
	}, func(res *response) string { return "no pending reload: " + string(res.Raw) })
	var reloadID, paymentID string
	deadline := time.Now().Add(30 * time.Second)
	for paymentID == "" {
		for _, e := range s.settledEvents(t, a) {
			if e.Type == "AutoReloadStarted" {
				reloadID, _ = e.Data["reload_id"].(string)
				paymentID, _ = e.Data["payment_id"].(string)
			}
		}
		if paymentID == "" && time.Now().After(deadline) {
			t.Fatal("no AutoReloadStarted within 30 s")
		}
	}
	// Stripe's event of the payment: granted once, however often delivered
	succeeded := stripeEvent("evt_"+randomHex(10), "payment_intent.succeeded", time.Now().Unix(), map[string]any{
		"id": paymentID, "object": "payment_intent", "status": "succeeded", "amount": 500, "currency": "usd",
		"metadata": map[string]any{"org_id": a.OrgID, "reload_id": reloadID, "credits": "5000"}})
	for range 2 {
		s.deliver(t, succeeded)
	}
	s.deliver(t, stripeEvent("evt_"+randomHex(10), "payment_intent.succeeded", time.Now().Unix(), map[string]any{
		"id": paymentID, "object": "payment_intent", "status": "succeeded",
		"metadata": map[string]any{"org_id": a.OrgID, "reload_id": reloadID}}))
	if b := s.balance(t, a.Key); b != balance-used+5000 {
		t.Fatalf("balance %d after the reload, want %d", b, balance-used+5000)
	}
	got = s.do(t, req{Path: path, Key: a.Key})
	if got.Body["reload_pending"] != false || integer(t, got.Body, "monthly_spent") != 5 || got.Body["last_error"] != nil || got.Body["last_reload_at"] == nil {
		t.Fatalf("after the reload: %s", got.Raw)
	}
	events := s.settledEvents(t, a)
	if n := countEvents(events, "AutoReloadRequested"); n != 1 {
		t.Fatalf("%d reloads requested, want 1", n)
	}
	if n := countEvents(events, "AutoReloadSucceeded"); n != 1 {
		t.Fatalf("%d reloads succeeded, want 1", n)
	}
	replayBilling(t, s.dbURL, a.OrgID)

	// disabling keeps the values
	off := put(a.Key, map[string]any{"enabled": false})
	wantStatus(t, off, http.StatusOK)
	if boolean(t, off.Body, "enabled") || integer(t, off.Body, "threshold") != threshold {
		t.Fatalf("disabled: %s", off.Raw)
	}
}
