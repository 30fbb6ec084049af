package httpapi_test

import (
	"testing"
	"time"

	"svc/domain/apikey"
)

// billingWalks are TestEveryWriteIsReadBack's walks of the payment
// processor's routes: checkout, subscribe and portal append nothing (the
// processor's events do), the webhook's effects are read back at once.
func billingWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	signup := func(t *testing.T) (key, orgID string) {
		t.Helper()
		key, orgID = keyWithRole(t, apikey.Owner)
		waitKey(t, f, key)
		return key, orgID
	}
	purchase := func(t *testing.T, orgID, session string, credits string) {
		t.Helper()
		code, body := f.sendWebhook(t, processorEvent("evt_"+session, "checkout.session.completed", time.Now(), map[string]any{
			"id": session, "object": "checkout.session", "mode": "payment", "payment_status": "paid", "customer": "cus_" + session,
			"metadata": map[string]any{"org_id": orgID, "credits": credits}}), testWebhookSecret)
		if code != 200 || body["received"] != true {
			t.Fatalf("purchase event: %d %v", code, body)
		}
	}
	return map[string]func(t *testing.T){
		"POST billing.checkout": func(t *testing.T) {
			key, _ := signup(t)
			code, body := f.call(t, "POST", "/api/billing/checkout", key, map[string]any{"pack": 25})
			if code != 200 || body["url"] == "" {
				t.Fatalf("checkout: %d %v", code, body)
			}
			if b := f.balance(t, key); b != 2500 {
				t.Fatalf("a checkout page moved the balance to %v", b)
			}
		},
		"POST billing.subscribe": func(t *testing.T) {
			key, _ := signup(t)
			code, body := f.call(t, "POST", "/api/billing/subscribe", key, map[string]any{"tier": "pro"})
			if code != 200 || body["url"] == "" {
				t.Fatalf("subscribe: %d %v", code, body)
			}
			if _, v := f.call(t, "GET", "/api/keys/verify", key, nil); v["is_paid"] != false {
				t.Fatalf("a subscription page moved the tier: %v", v)
			}
		},
		"POST billing.portal": func(t *testing.T) {
			key, orgID := signup(t)
			if code, body := f.call(t, "POST", "/api/billing/portal", key, nil); code != 400 || errCode(body) != "no_billing_account" {
				t.Fatalf("portal before a purchase: %d %v", code, body)
			}
			purchase(t, orgID, "cs_portal_"+orgID[:8], "10000")
			if code, body := f.call(t, "POST", "/api/billing/portal", key, nil); code != 200 || body["url"] == "" {
				t.Fatalf("portal after a purchase: %d %v", code, body)
			}
		},
		"POST billing.webhook": func(t *testing.T) {
			key, orgID := signup(t)
			purchase(t, orgID, "cs_walk_"+orgID[:8], "25000")
			if b := f.balance(t, key); b != 27500 {
				t.Fatalf("balance right after a purchase %v, want 27500", b)
			}
			sub := map[string]any{"id": "sub_walk_" + orgID[:8], "object": "subscription", "customer": "cus_walk", "status": "active",
				"metadata": map[string]any{"org_id": orgID, "tier": "team"}}
			if code, body := f.sendWebhook(t, processorEvent("evt_sub_"+orgID[:8], "customer.subscription.created", time.Now(), sub), testWebhookSecret); code != 200 {
				t.Fatalf("subscription event: %d %v", code, body)
			}
			if _, v := f.call(t, "GET", "/api/keys/verify", key, nil); v["is_paid"] != true {
				t.Fatalf("the tier did not move at once: %v", v)
			}
			if code, body := f.call(t, "POST", "/api/workspaces", key, map[string]any{"name": "Bought with Team"}); code != 201 {
				t.Fatalf("a workspace on the Team tier right after the event: %d %v", code, body)
			}
			if code, body := f.sendWebhook(t, processorEvent("evt_del_"+orgID[:8], "customer.subscription.deleted", time.Now().Add(time.Second), sub),
				testWebhookSecret); code != 200 {
				t.Fatalf("deletion event: %d %v", code, body)
			}
			if _, v := f.call(t, "GET", "/api/keys/verify", key, nil); v["is_paid"] != false {
				t.Fatalf("the tier did not revert at once: %v", v)
			}
		},
	}
}
