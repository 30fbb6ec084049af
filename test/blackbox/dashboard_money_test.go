package blackbox

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The money pages against a real server: usage and costs with their
// charts and tables, billing with its forms (checkout, plans, portal,
// auto-reload) leading to stripe-mock's pages, the API's refusals as
// sentences, and a member who sees the balance and no control.

// spend charges key's organization 270 credits (the llm tier of
// enhance, a gateway charge).
func spend(t *testing.T, s *server, key string) {
	t.Helper()
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Key: key,
		Body: map[string]any{"task_description": "Write a launch plan for our app in Germany", "tier": "llm"}})
	wantStatus(t, res, http.StatusOK)
}

// waitPage fetches path as cookie until its body holds want.
func waitPage(t *testing.T, s *server, path, cookie, want string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, _, body := page(t, s, http.MethodGet, path, cookie, nil, nil)
		if code == http.StatusOK && strings.Contains(body, want) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not show %q within 60 s: %d %.3000s", path, want, code, body)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// wantSentence requires a page of status code holding every want.
func wantSentence(t *testing.T, what string, code int, body string, status int, want ...string) {
	t.Helper()
	if code != status {
		t.Errorf("%s: status %d, want %d: %.2000s", what, code, status, body)
		return
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s: the page lacks %q: %.3000s", what, w, body)
		}
	}
}

// TestDashboardUsagePage: the usage page draws the period's spend as SVG
// charts with a title and a description, lists the same numbers in
// tables, follows its period form, shows a refused period with its
// sentence, and is a viewer's too.
func TestDashboardUsagePage(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "money-usage")
	viewer := s.signUpPerson(t, "money-usage-viewer")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/members", Header: owner.cookie(),
		Body: map[string]any{"email": viewer.Email, "role": "viewer"}}), http.StatusCreated)
	cookie := "svc_session=" + owner.Access

	// nothing spent yet: empty states, no chart
	body := waitPage(t, s, "/dashboard/usage", cookie, "Usage and costs")
	if strings.Contains(body, "<svg") || !strings.Contains(body, "No credits were spent in this period.") {
		t.Errorf("an organization that spent nothing: %.3000s", body)
	}

	spend(t, s, s.keyWithRole(t, owner, owner.WorkspaceID, "owner"))
	body = waitPage(t, s, "/dashboard/usage?period=7d", cookie, `<td data-label="Credits" class="num">270</td>`)
	for _, want := range []string{`<svg id="trend-chart"`, `role="img" aria-labelledby="trend-chart-title trend-chart-desc"`,
		`<title id="trend-chart-title">Credits spent per day</title>`, `<svg id="task-chart"`, "Suite and gateway calls",
		"270 credits ($0.27)", `<option value="7d" selected>`, `<caption class="visually-hidden">Credits per day, by product</caption>`,
		"Costs by task type"} {
		if !strings.Contains(body, want) {
			t.Errorf("the usage page lacks %q", want)
		}
	}
	if rows := strings.Count(body, `<td data-label="day">`); rows != 7 {
		t.Errorf("7 days list %d rows", rows)
	}
	body = waitPage(t, s, "/dashboard/usage?period=12m&group_by=api_key", cookie, "Costs by API key")
	if !strings.Contains(body, "Credits spent per month") || !strings.Contains(body, `<svg id="cost-chart"`) {
		t.Errorf("12 months by key: %.3000s", body)
	}

	// a period the API refuses: its sentence and the field
	code, _, body := page(t, s, http.MethodGet, "/dashboard/usage?from=2026-02-01&to=2026-01-01", cookie, nil, nil)
	wantSentence(t, "from after to", code, body, http.StatusBadRequest, "Some of what you entered is not valid.", "Check the field “from”.")

	// a viewer reads it too, in the owner's workspace
	waitPage(t, s, "/dashboard/usage?ws="+owner.WorkspaceID, "svc_session="+viewer.Access, `<svg id="trend-chart"`)
}

// TestDashboardBillingPage: an owner buys a pack and subscribes through
// stripe-mock's checkout pages (the dashboard's in-process call of the
// key-only checkout route works, a plain session still does not), every
// refusal reads as its sentence, the processor's return is a notice; a
// member sees the balance and no control, and a form posted anyway is
// refused by the route.
func TestDashboardBillingPage(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "money-billing")
	member := s.signUpPerson(t, "money-billing-member")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/members", Header: owner.cookie(),
		Body: map[string]any{"email": member.Email, "role": "member"}}), http.StatusCreated)
	asOwner, asMember := "svc_session="+owner.Access, "svc_session="+member.Access

	code, h, body := page(t, s, http.MethodGet, "/dashboard/billing", asOwner, nil, nil)
	wantSentence(t, "the owner's billing page", code, body, http.StatusOK, "2,500</strong> credits", `id="org-id">`+owner.OrgID+`<`,
		`action="/dashboard/billing/checkout"`, `action="/dashboard/billing/subscribe"`, `action="/dashboard/billing/portal"`,
		`action="/dashboard/billing/auto-reload"`, "Auto-reload", "Off.")
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://checkout.stripe.com https://billing.stripe.com;") {
		t.Errorf("the billing page's policy: %s", csp)
	}
	token := csrfOf(t, body)
	post := func(cookie, path string, form url.Values) (int, http.Header, string) {
		t.Helper()
		form.Set("csrf_token", token)
		return page(t, s, http.MethodPost, path, cookie, form, nil)
	}
	toStripe := func(what string, code int, h http.Header, body string) {
		t.Helper()
		if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "https://checkout.stripe.com/") {
			t.Errorf("%s: %d %q %.2000s", what, code, h.Get("Location"), body)
		}
	}

	code, h, body = post(asOwner, "/dashboard/billing/checkout", url.Values{"pack": {"25"}})
	toStripe("a pack", code, h, body)
	code, h, body = post(asOwner, "/dashboard/billing/checkout", url.Values{"pack": {"custom"}, "custom_amount": {"40"}})
	toStripe("a custom amount", code, h, body)
	// the route itself still refuses a plain session (key only)
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/checkout", Header: owner.cookie(), Body: map[string]any{"pack": 10}}),
		http.StatusUnauthorized, "missing_api_key")
	code, _, body = post(asOwner, "/dashboard/billing/checkout", url.Values{"pack": {"custom"}, "custom_amount": {"3"}})
	wantSentence(t, "a custom amount under 5", code, body, http.StatusBadRequest, "A custom amount is a whole number of US dollars from 5 to 10,000.", `value="3"`)

	code, h, body = post(asOwner, "/dashboard/billing/subscribe", url.Values{"tier": {"pro"}, "interval": {"monthly"}})
	toStripe("a plan", code, h, body)
	code, _, body = post(asOwner, "/dashboard/billing/subscribe", url.Values{"tier": {"enterprise"}, "interval": {"annual"}})
	wantSentence(t, "a plan without a price", code, body, http.StatusServiceUnavailable, "Payments are not available on this service right now.")
	code, _, body = post(asOwner, "/dashboard/billing/portal", url.Values{})
	wantSentence(t, "the portal before any purchase", code, body, http.StatusBadRequest, "This organization has bought nothing yet")

	reload := url.Values{"enabled": {"true"}, "threshold": {"500"}, "amount": {"25000"}}
	code, _, body = post(asOwner, "/dashboard/billing/auto-reload", reload)
	wantSentence(t, "auto-reload without the consent", code, body, http.StatusBadRequest, "Some of what you entered is not valid.", "Check the field “confirm”.")
	reload.Set("confirm", "1")
	code, _, body = post(asOwner, "/dashboard/billing/auto-reload", reload)
	wantSentence(t, "auto-reload without a payment method", code, body, http.StatusBadRequest, "a saved payment method is required", `value="500"`)
	code, h, _ = post(asOwner, "/dashboard/billing/auto-reload", url.Values{"enabled": {"false"}})
	if code != http.StatusSeeOther || h.Get("Location") != "/dashboard/billing?saved=auto-reload" {
		t.Errorf("auto-reload off: %d %v", code, h)
	}

	// back from the processor
	waitPage(t, s, "/dashboard/billing?checkout=success&session_id=cs_test_x", asOwner, "Thank you: your payment went through.")
	waitPage(t, s, "/dashboard/billing?checkout=cancelled", asOwner, "The purchase was cancelled: nothing was charged.")
	waitPage(t, s, "/dashboard/billing?subscription=success&session_id=cs_test_x", asOwner, "your subscription has started")

	// a member: the balance, read only
	ws := "?ws=" + owner.WorkspaceID
	code, _, body = page(t, s, http.MethodGet, "/dashboard/billing"+ws, asMember, nil, nil)
	wantSentence(t, "the member's billing page", code, body, http.StatusOK, "2,500</strong> credits", "an admin or the owner of this workspace buys credits")
	for _, form := range []string{"/dashboard/billing/checkout", "/dashboard/billing/subscribe", "/dashboard/billing/portal", "/dashboard/billing/auto-reload"} {
		if strings.Contains(body, form) {
			t.Errorf("a member is offered %s", form)
		}
	}
	mtoken := csrfOf(t, body)
	code, _, body = page(t, s, http.MethodPost, "/dashboard/billing/checkout"+ws, asMember, url.Values{"csrf_token": {mtoken}, "pack": {"10"}}, nil)
	wantSentence(t, "a member's forged checkout", code, body, http.StatusForbidden, "Your role in this workspace does not allow this.")
	code, _, body = page(t, s, http.MethodPost, "/dashboard/billing/auto-reload"+ws, asMember, url.Values{"csrf_token": {mtoken}, "enabled": {"false"}}, nil)
	wantSentence(t, "a member's forged auto-reload", code, body, http.StatusForbidden, "Your role in this workspace does not allow this.")
}
