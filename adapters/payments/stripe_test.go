package payments_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v86/webhook"

	"svc/adapters/payments"
	"svc/commands"
	"svc/domain/org"
	"svc/domain/payment"
)

// fakeStripe answers the two endpoints the adapter calls and keeps the
// forms it was sent.
type fakeStripe struct {
	mu    sync.Mutex
	forms map[string]url.Values // by path
	auth  string
}

func (f *fakeStripe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	f.forms[r.URL.Path] = r.PostForm
	f.auth = r.Header.Get("Authorization")
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/checkout/sessions":
		_, _ = w.Write([]byte(`{"id":"cs_test_1","object":"checkout.session","url":"https://checkout.example/cs_test_1"}`))
	case "/v1/billing_portal/sessions":
		_, _ = w.Write([]byte(`{"id":"bps_1","object":"billing_portal.session","url":"https://portal.example/bps_1"}`))
	case "/v1/payment_intents/pi_processing", "/v1/payment_intents/pi_action":
		_, _ = w.Write([]byte(`{"id":"` + path.Base(r.URL.Path) + `","object":"payment_intent","status":"` +
			map[string]string{"pi_processing": "processing", "pi_action": "requires_action"}[path.Base(r.URL.Path)] + `"}`))
	case "/v1/payment_intents/pi_paid":
		_, _ = w.Write([]byte(`{"id":"pi_paid","object":"payment_intent","status":"succeeded"}`))
	case "/v1/payment_intents/pi_declined":
		_, _ = w.Write([]byte(`{"id":"pi_declined","object":"payment_intent","status":"requires_payment_method",
			"last_payment_error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}`))
	case "/v1/payment_intents/pi_action/cancel":
		_, _ = w.Write([]byte(`{"id":"pi_action","object":"payment_intent","status":"canceled","cancellation_reason":"abandoned"}`))
	case "/v1/payment_intents/pi_processing/cancel":
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","code":"payment_intent_unexpected_state","message":"This PaymentIntent's status is processing."}}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"Unrecognized request URL"}}`))
	}
}

func newStripe(t *testing.T, prices map[string]string) (*payments.Stripe, *fakeStripe) {
	t.Helper()
	f := &fakeStripe{forms: map[string]url.Values{}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	s, err := payments.New(payments.Config{SecretKey: "sk_test_x", WebhookSecret: "whsec_test", APIBase: ts.URL, BaseURL: "https://svc.example",
		Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	return s, f
}

func TestCreditCheckout(t *testing.T) {
	s, f := newStripe(t, nil)
	u, err := s.CreditCheckout(context.Background(), commands.CreditCheckout{OrgID: "org-1", Purchase: payment.Purchase{USD: 25, Credits: 25_000},
		Email: "a@b.co"})
	if err != nil || u != "https://checkout.example/cs_test_1" {
		t.Fatalf("checkout: %q %v", u, err)
	}
	form := f.forms["/v1/checkout/sessions"]
	for k, want := range map[string]string{
		"mode": "payment", "metadata[org_id]": "org-1", "metadata[credits]": "25000", "client_reference_id": "org-1",
		"payment_intent_data[metadata][org_id]": "org-1", "line_items[0][price_data][unit_amount]": "2500",
		"line_items[0][price_data][currency]": "usd", "line_items[0][quantity]": "1", "customer_email": "a@b.co",
		"customer_creation": "always", "payment_method_types[0]": "card",
	} {
		if got := form.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if f.auth != "Bearer sk_test_x" {
		t.Errorf("authorization %q", f.auth)
	}
	// an org with a customer pays as that customer
	if _, err := s.CreditCheckout(context.Background(), commands.CreditCheckout{OrgID: "org-1", Purchase: payment.Purchase{USD: 10, Credits: 10_000},
		CustomerID: "cus_1", Email: "a@b.co"}); err != nil {
		t.Fatal(err)
	}
	form = f.forms["/v1/checkout/sessions"]
	if form.Get("customer") != "cus_1" || form.Get("customer_email") != "" || form.Get("customer_creation") != "" {
		t.Errorf("with a customer: %v", form)
	}
}

func TestSubscriptionCheckout(t *testing.T) {
	s, f := newStripe(t, map[string]string{"team/annual": "price_team_y"})
	u, err := s.SubscriptionCheckout(context.Background(), commands.SubscriptionCheckout{OrgID: "org-1",
		Plan: payment.Plan{Tier: org.Team, Interval: payment.Annual}})
	if err != nil || u == "" {
		t.Fatalf("subscribe: %q %v", u, err)
	}
	form := f.forms["/v1/checkout/sessions"]
	for k, want := range map[string]string{
		"mode": "subscription", "line_items[0][price]": "price_team_y", "metadata[org_id]": "org-1", "metadata[tier]": "team",
		"subscription_data[metadata][org_id]": "org-1", "subscription_data[metadata][tier]": "team",
	} {
		if got := form.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	_, err = s.SubscriptionCheckout(context.Background(), commands.SubscriptionCheckout{OrgID: "org-1",
		Plan: payment.Plan{Tier: org.Pro, Interval: payment.Monthly}})
	if !errors.Is(err, payment.ErrUnavailable) {
		t.Fatalf("a plan without a price: %v", err)
	}
}

func TestPortal(t *testing.T) {
	s, f := newStripe(t, nil)
	u, err := s.Portal(context.Background(), "cus_1")
	if err != nil || u != "https://portal.example/bps_1" {
		t.Fatalf("portal: %q %v", u, err)
	}
	if form := f.forms["/v1/billing_portal/sessions"]; form.Get("customer") != "cus_1" || form.Get("return_url") != "https://svc.example/dashboard/billing" {
		t.Errorf("portal form %v", form)
	}
}

func TestReloadStatusAndCancel(t *testing.T) {
	ctx := context.Background()
	s, f := newStripe(t, nil)
	for id, want := range map[string]commands.ReloadPaid{
		"pi_processing": {Status: commands.ReloadPaidPending, PaymentID: "pi_processing"},
		"pi_action":     {Status: commands.ReloadPaidPending, PaymentID: "pi_action"},
		"pi_paid":       {Status: commands.ReloadPaidSucceeded, PaymentID: "pi_paid"},
		"pi_declined": {Status: commands.ReloadPaidFailed, PaymentID: "pi_declined", Reason: "insufficient_funds",
			Message: "Your card has insufficient funds."},
	} {
		if got, err := s.ReloadStatus(ctx, id); err != nil || got != want {
			t.Errorf("status of %s: %+v, %v; want %+v", id, got, err, want)
		}
	}
	got, err := s.CancelReload(ctx, "pi_action")
	if want := (commands.ReloadPaid{Status: commands.ReloadPaidFailed, PaymentID: "pi_action", Reason: "canceled"}); err != nil || got != want {
		t.Errorf("cancel: %+v, %v", got, err)
	}
	f.mu.Lock()
	form := f.forms["/v1/payment_intents/pi_action/cancel"]
	f.mu.Unlock()
	if form.Get("cancellation_reason") != "abandoned" {
		t.Errorf("cancel form %v", form)
	}
	// processing cannot be canceled: its state is read instead
	if got, err := s.CancelReload(ctx, "pi_processing"); err != nil || got.Status != commands.ReloadPaidPending {
		t.Errorf("cancel of a processing payment: %+v, %v", got, err)
	}
	if _, err := s.ReloadStatus(ctx, "pi_unknown"); !errors.Is(err, payment.ErrUnavailable) {
		t.Errorf("unknown payment: %v", err)
	}
}

func TestProcessorDown(t *testing.T) {
	s, err := payments.New(payments.Config{SecretKey: "sk_test_x", APIBase: "http://127.0.0.1:1", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Portal(context.Background(), "cus_1"); !errors.Is(err, payment.ErrUnavailable) {
		t.Fatalf("unreachable processor: %v", err)
	}
	if _, err := s.Event([]byte(`{}`), "t=1,v1=00"); !errors.Is(err, payment.ErrUnavailable) {
		t.Fatalf("no webhook secret: %v", err)
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if s, err := payments.FromEnv(get, "", nil); s != nil || err != nil {
		t.Fatalf("no key: %v %v", s, err)
	}
	env["STRIPE_SECRET_KEY"] = "sk_test_x"
	env["STRIPE_API_BASE"] = "ftp://nope"
	if _, err := payments.FromEnv(get, "", nil); err == nil {
		t.Fatal("a bad STRIPE_API_BASE was taken")
	}
	env["STRIPE_API_BASE"] = "http://127.0.0.1:12111"
	env["STRIPE_PRICE_PRO_MONTHLY"] = "price_1"
	env["STRIPE_PRICE_ENTERPRISE_ANNUAL"] = "price_2"
	s, err := payments.FromEnv(get, "", nil)
	if err != nil || s == nil || s.Webhooks() {
		t.Fatalf("from env: %v %v", s, err)
	}
	if got := s.Plans(); len(got) != 2 || got[0] != "pro/monthly" || got[1] != "enterprise/annual" {
		t.Fatalf("plans %v", got)
	}
	if v := payments.PriceVariable(payment.Plan{Tier: org.Team, Interval: payment.Annual}); v != "STRIPE_PRICE_TEAM_ANNUAL" {
		t.Fatalf("variable %s", v)
	}
}

func signed(payload string, secret string, at time.Time) (string, []byte) {
	p := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(payload), Secret: secret, Timestamp: at})
	return p.Header, p.Payload
}

func TestEvent(t *testing.T) {
	s, _ := newStripe(t, nil)
	const sub = `{"id":"evt_1","object":"event","api_version":"2020-08-27","created":1700000000,"type":"customer.subscription.updated",
		"data":{"object":{"id":"sub_1","object":"subscription","customer":"cus_1","status":"past_due","metadata":{"org_id":"o1","tier":"team"}}}}`
	header, body := signed(sub, "whsec_test", time.Now())
	ev, err := s.Event(body, header)
	if err != nil {
		t.Fatal(err)
	}
	want := payment.Event{ID: "evt_1", Type: payment.SubscriptionUpdated, Created: 1700000000, Object: payment.Object{ID: "sub_1",
		SubscriptionID: "sub_1", CustomerID: "cus_1", Status: "past_due", Metadata: map[string]string{"org_id": "o1", "tier": "team"}}}
	if ev.ID != want.ID || ev.Type != want.Type || ev.Created != want.Created || ev.Object.SubscriptionID != "sub_1" ||
		ev.Object.CustomerID != "cus_1" || ev.Object.Status != "past_due" || ev.OrgID() != "o1" || ev.Object.Metadata["tier"] != "team" {
		t.Fatalf("event %+v", ev)
	}

	// refusals: another secret, an altered body, a stale timestamp, no header
	otherHeader, otherBody := signed(sub, "whsec_other", time.Now())
	oldHeader, oldBody := signed(sub, "whsec_test", time.Now().Add(-6*time.Minute))
	for name, c := range map[string][2]string{
		"other secret": {otherHeader, string(otherBody)},
		"altered body": {header, sub[:len(sub)-1] + " }"},
		"too old":      {oldHeader, string(oldBody)},
		"no header":    {"", string(body)},
		"bad header":   {"garbage", string(body)},
	} {
		if _, err := s.Event([]byte(c[1]), c[0]); !errors.Is(err, payment.ErrInvalidSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}

	// an invoice of the current API names its subscription under parent
	const inv = `{"id":"evt_2","object":"event","created":5,"type":"invoice.paid","data":{"object":{"id":"in_1","object":"invoice",
		"customer":{"id":"cus_2","object":"customer"},"metadata":{},
		"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_2","metadata":{"org_id":"o2","tier":"pro"}}}}}}`
	header, body = signed(inv, "whsec_test", time.Now())
	if ev, err := s.Event(body, header); err != nil || ev.Object.SubscriptionID != "sub_2" || ev.OrgID() != "o2" ||
		ev.Object.CustomerID != "cus_2" || ev.Object.Metadata["tier"] != "pro" {
		t.Fatalf("invoice: %+v %v", ev, err)
	}
	// and an older API's at the top
	const old = `{"id":"evt_3","object":"event","created":5,"type":"invoice.payment_failed","data":{"object":{"id":"in_2","object":"invoice",
		"customer":"cus_3","subscription":"sub_3","subscription_details":{"metadata":{"org_id":"o3"}}}}}`
	header, body = signed(old, "whsec_test", time.Now())
	if ev, err := s.Event(body, header); err != nil || ev.Object.SubscriptionID != "sub_3" || ev.OrgID() != "o3" {
		t.Fatalf("old invoice: %+v %v", ev, err)
	}
	// a checkout session
	const cs = `{"id":"evt_4","object":"event","created":5,"type":"checkout.session.completed","data":{"object":{"id":"cs_1",
		"object":"checkout.session","mode":"payment","payment_status":"paid","customer":null,"metadata":{"org_id":"o4","credits":"10000"}}}}`
	header, body = signed(cs, "whsec_test", time.Now())
	if ev, err := s.Event(body, header); err != nil || ev.Object.ID != "cs_1" || ev.Object.Mode != "payment" || ev.Object.PaymentStatus != "paid" ||
		ev.Object.Metadata["credits"] != "10000" || ev.Object.CustomerID != "" {
		t.Fatalf("checkout: %+v %v", ev, err)
	}
	// a type the service does not read: verified, its object not read
	const other = `{"id":"evt_5","object":"event","created":5,"type":"customer.created","data":{"object":{"id":"cus_5","metadata":"odd"}}}`
	header, body = signed(other, "whsec_test", time.Now())
	if ev, err := s.Event(body, header); err != nil || ev.Type != "customer.created" {
		t.Fatalf("other type: %+v %v", ev, err)
	}
	// a signed body that is not an event
	header, body = signed(`{"object":"event"}`, "whsec_test", time.Now())
	if _, err := s.Event(body, header); !errors.Is(err, payment.ErrInvalidSignature) {
		t.Fatalf("not an event: %v", err)
	}
}
