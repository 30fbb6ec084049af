package httpapi_test

import (
	"testing"
	"time"

	"svc/domain/apikey"
)

// autoReloadWalks are TestEveryWriteIsReadBack's walks of the auto-reload
// route: a configuration saved is read back at once, enabled and then
// disabled (which keeps the values).
func autoReloadWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return map[string]func(t *testing.T){
		"PUT billing.auto_reload_update": func(t *testing.T) {
			key, orgID := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			// a purchase links the billing customer auto-reload pays with
			code, body := f.sendWebhook(t, processorEvent("evt_ar_"+orgID[:8], "checkout.session.completed", time.Now(), map[string]any{
				"id": "cs_ar_" + orgID[:8], "object": "checkout.session", "mode": "payment", "payment_status": "paid", "customer": "cus_ar",
				"metadata": map[string]any{"org_id": orgID, "credits": "10000"}}), testWebhookSecret)
			if code != 200 {
				t.Fatalf("purchase event: %d %v", code, body)
			}
			code, body = f.call(t, "PUT", "/api/billing/auto-reload", key, map[string]any{"enabled": true, "confirm": true,
				"threshold": 1000, "amount": 25000, "monthly_limit": 100})
			if code != 200 || body["enabled"] != true || body["threshold"] != 1000.0 || body["amount"] != 25000.0 || body["monthly_limit"] != 100.0 {
				t.Fatalf("enable: %d %v", code, body)
			}
			if _, got := f.call(t, "GET", "/api/billing/auto-reload", key, nil); got["enabled"] != true || got["threshold"] != 1000.0 ||
				got["monthly_spent"] != 0.0 || got["reset_at"] == nil {
				t.Fatalf("read back: %v", got)
			}
			code, body = f.call(t, "PUT", "/api/billing/auto-reload", key, map[string]any{"enabled": false})
			if code != 200 || body["enabled"] != false || body["threshold"] != 1000.0 {
				t.Fatalf("disable: %d %v", code, body)
			}
			if _, got := f.call(t, "GET", "/api/billing/auto-reload", key, nil); got["enabled"] != false {
				t.Fatalf("read back after disabling: %v", got)
			}
		},
	}
}
