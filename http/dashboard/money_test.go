package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"svc/domain/apikey"
)

const usageSummary = `{"ok":true,"balance":{"credits":12345,"usd":12.35},"burn_rate":{"credits_per_day":9.5},
"period_totals":{"credits":1270,"usd":1.27,"workflow_count":2,"by_product":{"rigor":{"credits":1000},"dedupq":{"credits":270}}},
"trend":[{"bucket_start":"2026-11-24T00:00:00Z","credits":0,"usd":0},{"bucket_start":"2026-11-25T00:00:00Z","credits":1270,"usd":1.27,
"workflow_count":2,"by_product":{"rigor":{"credits":1000,"usd":1},"dedupq":{"credits":270,"usd":0.27}}}],
"breakdown_by_task_type":[{"task_type":"blog_post","credits":1000,"usd":1,"workflow_count":2,"pct":78.7},{"task_type":null,"credits":270,"usd":0.27,"pct":21.3}]}`

const costs = `{"ok":true,"summary":{"workflow_count":2,"step_count":7,"credits_used":1270,"revenue_usd":1.27},
"breakdown":[{"key":"blog_post","label":"Blog <post>","workflow_count":2,"step_count":7,"credits_used":1000,"revenue_usd":1}]}`

func moneyFake(role apikey.Role) *fakeAPI {
	f := newFake(role, "completed")
	f.replies["GET /api/rigor/usage-summary"] = ok(usageSummary)
	f.replies["GET /api/rigor/costs"] = ok(costs)
	f.replies["GET /api/billing/balance"] = ok(`{"balance":12345,"org_id":"org-1"}`)
	f.replies["GET /api/billing/auto-reload"] = ok(`{"enabled":true,"threshold":500,"amount":25000,"monthly_limit":100,"monthly_spent":25}`)
	return f
}

func contains(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(body, s) {
			t.Errorf("%s lacks %q", what, s)
		}
	}
}

// TestUsagePage: the period's charts and tables, the period form, and
// the API's query for each period.
func TestUsagePage(t *testing.T) {
	f := moneyFake(apikey.Viewer)
	w := serve(t, f, "GET", "/dashboard/usage?period=7d&group_by=workspace", nil)
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, body)
	}
	contains(t, "the usage page", body, `id="trend-chart"`, `<title id="trend-chart-title">Credits spent per day</title>`, "<td data-label=\"day\">Wed 25 Nov</td>",
		"1,270 credits ($1.27)", "Suite and gateway calls", "Blog &lt;post&gt;", `<option value="7d" selected>`, `<option value="workspace" selected>`,
		`id="task-chart"`, `id="cost-chart"`, "78.7 %", "12,345 credits ($12.35)")
	var summary, cost string
	for _, c := range f.calls {
		switch {
		case strings.HasPrefix(c, "GET /api/rigor/usage-summary"):
			summary = c
		case strings.HasPrefix(c, "GET /api/rigor/costs"):
			cost = c
		}
	}
	if !strings.Contains(summary, "granularity=day") || !strings.Contains(summary, "from=") || !strings.Contains(cost, "group_by=workspace") {
		t.Errorf("the calls: %v", f.calls)
	}

	f = moneyFake(apikey.Viewer)
	serve(t, f, "GET", "/dashboard/usage?from=2026-01-01&to=2026-06-30", nil)
	if c := strings.Join(f.calls, " "); !strings.Contains(c, "from=2026-01-01&granularity=week&to=2026-06-30") {
		t.Errorf("a custom period calls %v", f.calls)
	}

	f = moneyFake(apikey.Viewer)
	f.replies["GET /api/rigor/usage-summary"] = Reply{Status: 400, Body: []byte(`{"error":{"code":"invalid_field","message":"from must be before to.","details":{"field":"from"}}}`)}
	w = serve(t, f, "GET", "/dashboard/usage?from=2026-02-01&to=2026-01-01", nil)
	if w.Code != 400 || !strings.Contains(w.Body.String(), sentences["invalid_field"]) || !strings.Contains(w.Body.String(), "from must be before to.") {
		t.Errorf("a refused period: %d %s", w.Code, w.Body)
	}
}

// TestBillingPage: an admin is offered packs, plans, the portal and the
// auto-reload form; a member sees the balance only; the processor's
// return reads as a notice; the page may lead to the processor's pages.
func TestBillingPage(t *testing.T) {
	w := serve(t, moneyFake(apikey.Admin), "GET", "/dashboard/billing?checkout=success&session_id=cs_1", nil)
	body := w.Body.String()
	contains(t, "the admin's billing page", body, "12,345</strong> credits", `action="/dashboard/billing/checkout"`, `action="/dashboard/billing/subscribe"`,
		`action="/dashboard/billing/portal"`, `action="/dashboard/billing/auto-reload"`, "Thank you: your payment went through", `id="org-id">org-1<`,
		`value="500"`, `<option value="25000" selected>`)
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://checkout.stripe.com https://billing.stripe.com;") {
		t.Errorf("the billing page's policy: %s", csp)
	}
	body = serve(t, moneyFake(apikey.Member), "GET", "/dashboard/billing?checkout=cancelled", nil).Body.String()
	contains(t, "the member's billing page", body, "12,345</strong> credits", "nothing was charged", "On: when the balance drops below 500 credits")
	for _, s := range []string{"/dashboard/billing/checkout", "/dashboard/billing/subscribe", "/dashboard/billing/portal", "/dashboard/billing/auto-reload"} {
		if strings.Contains(body, s) {
			t.Errorf("a member is offered %s", s)
		}
	}
}

// TestBillingForms: a checkout sends the browser to the processor's page;
// a page elsewhere is offered as a link; a refusal reads as its sentence
// with the values posted; auto-reload saves and comes back with a notice.
func TestBillingForms(t *testing.T) {
	token := derive("session", "sess")
	f := moneyFake(apikey.Owner)
	f.replies["POST /api/billing/checkout"] = ok(`{"url":"https://checkout.stripe.com/pay/c/cs_1"}`)
	w := serve(t, f, "POST", "/dashboard/billing/checkout", url.Values{csrfField: {token}, "pack": {"25"}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "https://checkout.stripe.com/pay/c/cs_1" {
		t.Errorf("a checkout: %d %v", w.Code, w.Header())
	}

	f.replies["POST /api/billing/portal"] = ok(`{"url":"https://pay.example.com/portal"}`)
	w = serve(t, f, "POST", "/dashboard/billing/portal", url.Values{csrfField: {token}})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `<a href="https://pay.example.com/portal" rel="noreferrer">continue to the payment page</a>`) {
		t.Errorf("a portal elsewhere: %d %s", w.Code, w.Body)
	}

	f.replies["POST /api/billing/checkout"] = Reply{Status: 400, Body: []byte(`{"error":{"code":"invalid_custom_amount","message":"5 to 10,000."}}`)}
	w = serve(t, f, "POST", "/dashboard/billing/checkout", url.Values{csrfField: {token}, "pack": {"custom"}, "custom_amount": {"3"}})
	if w.Code != 400 || !strings.Contains(w.Body.String(), sentences["invalid_custom_amount"]) ||
		!strings.Contains(w.Body.String(), `id="pack-custom" name="pack" value="custom" checked`) || !strings.Contains(w.Body.String(), `value="3"`) {
		t.Errorf("a refused checkout: %d %s", w.Code, w.Body)
	}

	f.replies["PUT /api/billing/auto-reload"] = ok(`{"enabled":false}`)
	w = serve(t, f, "POST", "/dashboard/billing/auto-reload?ws=x", url.Values{csrfField: {token}, "enabled": {"false"}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/dashboard/billing?ws=x&saved=auto-reload" {
		t.Errorf("auto-reload saved: %d %v", w.Code, w.Header())
	}

	for k, v := range map[string]any{"": nil, "25": int64(25), "1,000": int64(1000), "10.5": 10.5, "ten": "ten"} {
		if got := number(k); got != v {
			t.Errorf("number(%q) = %#v, want %#v", k, got, v)
		}
	}
}
