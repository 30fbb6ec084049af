package blackbox

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardRevokeKeyInBrowser drives the keys page in headless
// Chromium: sign up, create a key and read it from the page once, check
// it against the API, revoke it after the confirmation, see it marked
// revoked and refused by the API. On the way: the webhooks (on a paid
// plan), the audit log, at 1440 and 360 px; screenshots keys.png,
// webhooks.png and audit.png.
func TestDashboardRevokeKeyInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	s := sharedServer(t)
	b.signUp(s, "Ada Admin", uniqueEmail("browser-keys"), "correct horse battery")

	// the keys page: empty, with the form to create one
	b.do("open the keys", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/keys"]`)))
	b.waitText("h1", "API keys", 30*time.Second)
	b.waitText(".empty", "no API key yet", 5*time.Second)
	b.checkPage("keys, empty")
	b.do("create a key",
		chromedp.SendKeys(chromedp.ID("key-label"), "deploy bot"),
		chromedp.SetValue(chromedp.ID("key-role"), "admin"),
		chromedp.Click(chromedp.CSS(`form[action="/dashboard/keys"] button[type=submit]`)))
	b.waitFor("the new key is shown", `!!document.getElementById("new-key")`, 30*time.Second)
	b.checkPage("the new key")
	b.waitText(".secret-once", "shown only this once", 5*time.Second)
	key := eval[string](b, `document.getElementById("new-key").textContent`)
	if !strings.HasPrefix(key, "svc_live_") {
		t.Fatalf("the page shows the key %q", key)
	}
	if u := eval[string](b, `location.href`); strings.Contains(u, key) || strings.Contains(u, key[9:]) {
		t.Errorf("the key is in the page's URL %s", u)
	}

	// the key works
	res := s.do(t, req{Path: "/api/keys/verify", Key: key})
	wantStatus(t, res, http.StatusOK)
	orgID := str(t, res.Body, "org_id")

	// listed, never shown again
	b.do("back to the keys", chromedp.Click(chromedp.CSS(`a.button[href="/dashboard/keys"]`)))
	b.waitFor("the key is listed", `document.querySelectorAll("table.admin-keys tbody tr").length === 1`, 30*time.Second)
	b.waitText("table.admin-keys", "deploy bot", 5*time.Second)
	if html := eval[string](b, `document.documentElement.outerHTML`); strings.Contains(html, key) {
		t.Error("the keys page shows the raw key again")
	}
	b.checkPage("keys")
	b.screenshot("keys")

	// revoke it: a confirmation first, then the key is marked revoked
	b.do("revoke", chromedp.Click(chromedp.CSS(`table.admin-keys a.button.danger`)))
	b.waitText("h1", "Revoke the key", 30*time.Second)
	b.checkPage("revoke confirmation")
	if res := s.do(t, req{Path: "/api/keys/verify", Key: key}); res.Status != http.StatusOK {
		t.Errorf("the confirmation page revoked the key already: %d", res.Status)
	}
	b.do("confirm", chromedp.Click(chromedp.ID("confirm-revoke")))
	b.waitText("#revoked", "revoked", 30*time.Second)
	b.waitText("#revoked", key[:15], 5*time.Second)
	if n := eval[int](b, `document.querySelectorAll("table.admin-keys tbody tr").length`); n != 0 {
		t.Errorf("%d keys are still listed after the revoke", n)
	}
	b.checkPage("keys after the revoke")

	// the API refuses it now
	res = s.do(t, req{Path: "/api/keys/verify", Key: key})
	if res.Status != http.StatusUnauthorized {
		t.Errorf("the revoked key answers %d: %s", res.Status, res.Raw)
	}

	// webhooks, on a paid plan: add one, its secret once
	if r := cli(t, s.dbURL, "org", "set-tier", "--org", orgID, "--tier", "pro"); r.Code != 0 {
		t.Fatalf("svc org set-tier: %s", r)
	}
	b.do("open the webhooks", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/webhooks"]`)))
	b.reloadUntil("the webhooks page offers to add one", `!!document.getElementById("new-hook-h")`, 30*time.Second)
	b.checkPage("webhooks, empty")
	b.do("add a webhook",
		chromedp.SendKeys(chromedp.ID("hook-url-new"), "https://hooks.example.com/svc"),
		chromedp.SendKeys(chromedp.ID("hook-desc-new"), "Ops channel"),
		chromedp.Click(chromedp.ID("hook-ev-new-workflow_completed")),
		chromedp.Click(chromedp.ID("hook-ev-new-workflow_failed")),
		chromedp.Click(chromedp.CSS(`form[action="/dashboard/webhooks"] button[type=submit]`)))
	b.waitFor("the secret is shown", `!!document.getElementById("new-secret")`, 30*time.Second)
	b.checkPage("the webhook's secret")
	b.do("back to the webhooks", chromedp.Click(chromedp.CSS(`a.button[href="/dashboard/webhooks"]`)))
	b.waitText(".hooks", "hooks.example.com", 30*time.Second)
	b.checkPage("webhooks")
	b.screenshot("webhooks")

	// the audit log holds the key's creation and revocation
	b.do("open the audit log", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/audit"]`)))
	b.reloadUntil("the audit log shows the revocation", `document.body.textContent.indexOf("api_key.revoked") >= 0`, 30*time.Second)
	b.checkPage("audit log")
	b.screenshot("audit")

	// at 360 px the pages fit
	b.do("narrow", chromedp.EmulateViewport(360, 780))
	for _, p := range []string{"/dashboard/keys", "/dashboard/webhooks", "/dashboard/audit", "/dashboard/account"} {
		b.do("open "+p, chromedp.Navigate(s.base+p))
		b.waitFor(p+" loads", `!!document.querySelector("main h1")`, 30*time.Second)
		b.checkPage(p + " at 360 px")
	}
	b.noConsoleErrors()
}
