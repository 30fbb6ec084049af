package blackbox

import (
	"context"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// checkoutHost is where stripe-mock's checkout sessions send the browser.
const checkoutHost = "https://checkout.stripe.com/"

// interceptCheckout answers the browser's requests to the processor's
// checkout pages (unreachable here: the browser resolves no host but
// 127.0.0.1) with a page of its own, and returns the URLs it was asked
// for.
func interceptCheckout(t *testing.T, b *browser) func() []string {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	ctx, cancel := context.WithCancel(b.ctx)
	t.Cleanup(cancel)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(b.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: checkoutHost + "*"}}}); err != nil {
		t.Fatalf("intercept the checkout pages: %v", err)
	}
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			mu.Lock()
			asked = append(asked, ev.Request.URL)
			mu.Unlock()
			_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: http.StatusOK,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html; charset=utf-8"}},
				Body:            []byte(`<!doctype html><html lang="en"><head><title>Checkout</title><link rel="icon" href="data:,"></head><body><h1>Checkout (stripe-mock)</h1></body></html>`)})
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// TestDashboardBuyCreditsInBrowser: sign up in the browser, open the
// billing page, choose a pack and continue: the browser goes to
// stripe-mock's checkout page; the processor's event of the completed
// session (signed as Stripe signs it) grants the credits, and the
// billing page the browser returns to shows the notice and the new
// balance. The usage page then charts the spend. Both pages are checked
// (labels, width at 1440 and 360 px) and written to docs/screenshots/.
func TestDashboardBuyCreditsInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	s := startServer(t, nil)
	email, password := uniqueEmail("buyer"), "correct horse battery"

	b.signUp(s, "Bea Buyer", email, password)
	b.waitText(".balance", "2,500 credits", 30*time.Second)

	// some spend for the usage page: the llm tier of enhance, with a key of
	// the same account
	login := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Body: map[string]any{"email": email, "password": password}})
	wantStatus(t, login, http.StatusOK)
	p := person{Email: email, Access: sessionCookie(login)}
	me := s.do(t, req{Path: "/api/user/me", Header: p.cookie()})
	wantStatus(t, me, http.StatusOK)
	ms, _ := me.Body["memberships"].([]any)
	if len(ms) != 1 {
		t.Fatalf("memberships %s", me.Raw)
	}
	p.WorkspaceID = str(t, ms[0].(map[string]any), "workspace_id")
	spend(t, s, s.keyWithRole(t, p, p.WorkspaceID, "owner"))

	// the billing page: the balance and the packs
	b.do("open billing", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/billing"]`)))
	b.waitText("h1", "Billing", 30*time.Second)
	b.reloadUntil("the balance shows the spend", `document.getElementById("balance").textContent.indexOf("2,230") >= 0`, 30*time.Second)
	b.checkPage("billing")
	orgID := eval[string](b, `document.getElementById("org-id").textContent`)

	// choose a pack and continue: the browser goes to the processor's checkout page
	asked := interceptCheckout(t, b)
	b.do("choose 25 USD and continue",
		chromedp.Click(chromedp.ID("pack-25")),
		chromedp.Click(chromedp.CSS(`form[action="/dashboard/billing/checkout"] button[type=submit]`)))
	b.waitFor("the browser is on the checkout page", `location.href.indexOf(`+jsString(checkoutHost)+`) === 0`, 30*time.Second)
	b.waitText("h1", "Checkout (stripe-mock)", 10*time.Second)
	checkout := eval[string](b, `location.href`)
	if got := asked(); len(got) == 0 || got[0] != checkout {
		t.Errorf("the browser asked for %v, is on %s", got, checkout)
	}
	session := path.Base(checkout)
	if !strings.HasPrefix(session, "cs_") {
		t.Errorf("the checkout page %s names no session", checkout)
	}

	// the processor completes the session: its signed event grants 25,000 credits
	s.deliver(t, purchase("evt_"+randomHex(10), session, orgID, 25_000))
	b.do("come back from the checkout", chromedp.Navigate(s.base+"/dashboard/billing?checkout=success&session_id="+session))
	b.waitText(".notice", "your payment went through", 30*time.Second)
	b.reloadUntil("the balance rises by the pack", `document.getElementById("balance").textContent.indexOf("27,230") >= 0`, 30*time.Second)
	b.screenshot("billing")

	// the usage page charts the spend
	b.do("open usage", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/usage"]`)))
	b.waitText("h1", "Usage and costs", 30*time.Second)
	b.reloadUntil("the usage page charts the spend", `!!document.querySelector("#trend-chart rect")`, 30*time.Second)
	if title := eval[string](b, `document.querySelector("#trend-chart title").textContent`); title != "Credits spent per day" {
		t.Errorf("the chart's title: %q", title)
	}
	b.checkPage("usage")
	b.screenshot("usage")

	// at 360 px both pages fit
	b.do("narrow", chromedp.EmulateViewport(360, 780))
	b.do("reload", chromedp.Reload())
	b.waitText("h1", "Usage and costs", 30*time.Second)
	b.checkPage("usage at 360 px")
	b.do("billing at 360 px", chromedp.Navigate(s.base+"/dashboard/billing"))
	b.waitText("h1", "Billing", 30*time.Second)
	b.checkPage("billing at 360 px")
	b.noConsoleErrors()
}
