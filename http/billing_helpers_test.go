package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v86/webhook"

	"svc/adapters/payments"
	"svc/commands"
)

// testWebhookSecret signs the processor events the tests send.
const testWebhookSecret = "whsec_http_test"

// testPayments is the payment processor of the test servers: the Stripe
// adapter over a fake Stripe API that answers checkout and portal
// sessions, with prices for the monthly plans.
func testPayments(t *testing.T) commands.PaymentProcessor {
	t.Helper()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/checkout/sessions":
			_, _ = w.Write([]byte(`{"id":"cs_test_1","object":"checkout.session","url":"https://checkout.stripe.test/c/cs_test_1"}`))
		case "/v1/billing_portal/sessions":
			_, _ = w.Write([]byte(`{"id":"bps_test_1","object":"billing_portal.session","url":"https://billing.stripe.test/p/bps_test_1"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"no such endpoint"}}`))
		}
	}))
	t.Cleanup(api.Close)
	p, err := payments.New(payments.Config{SecretKey: "sk_test_http", WebhookSecret: testWebhookSecret, APIBase: api.URL, BaseURL: "http://test",
		Prices: map[string]string{"pro/monthly": "price_pro_m", "team/monthly": "price_team_m", "enterprise/monthly": "price_ent_m"}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// processorEvent is a Stripe event of type typ about object, created at.
func processorEvent(id, typ string, created time.Time, object map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "object": "event", "api_version": "2026-06-24.dahlia", "created": created.Unix(),
		"type": typ, "livemode": false, "data": map[string]any{"object": object}})
	return b
}

// sendWebhook posts payload to POST /api/billing/webhook signed with
// secret.
func (f *fixture) sendWebhook(t *testing.T, payload []byte, secret string) (int, map[string]any) {
	t.Helper()
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret})
	req, _ := http.NewRequest("POST", f.ts.URL+"/api/billing/webhook", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", signed.Header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}
