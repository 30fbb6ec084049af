package blackbox

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestDashboardSessionInBrowser: log in through the form, read the
// notifications and connections pages (labels, 360 px, screenshots);
// when the hour-long session cookie is gone, the next page renews the
// session from the refresh cookie without asking to log in; after
// logging out nothing renews it.
func TestDashboardSessionInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	s := sharedServer(t)
	p := s.signUpPerson(t, "browser-session")

	b.do("open the login page", chromedp.Navigate(s.base+"/dashboard/login"))
	b.waitText("h1", "Log in", 30*time.Second)
	b.do("log in",
		chromedp.SendKeys(chromedp.ID("email"), p.Email),
		chromedp.SendKeys(chromedp.ID("password"), p.Password),
		chromedp.Submit(chromedp.ID("password")))
	b.waitText("h1", "Workflows", 30*time.Second)

	b.do("open the connections", chromedp.Click(chromedp.CSS(`nav a[href^="/dashboard/connections"]`)))
	b.waitText("h1", "Connections", 30*time.Second)
	b.checkPage("connections")
	b.screenshot("dashboard-connections")
	b.do("open the notifications", chromedp.Click(chromedp.CSS(`nav a[href^="/dashboard/notifications"]`)))
	b.waitText("h1", "Notifications", 30*time.Second)
	b.checkPage("notifications")

	// the access token lapsed (its cookie expired): the next page renews it
	if _, err := chromedp.Call(b.ctx, network.DeleteCookies, network.DeleteCookiesParams{Name: "svc_session", URL: s.base}); err != nil {
		t.Fatalf("delete the session cookie: %v", err)
	}
	if hasCookie(b, s.base+"/dashboard/workflows", "svc_session") || !hasCookie(b, s.base+"/dashboard/workflows", "svc_refresh") {
		t.Fatal("the session cookie is still there, or the refresh cookie is not sent to the dashboard")
	}
	b.do("open the workflows", chromedp.Navigate(s.base+"/dashboard/workflows?q=renewed"))
	b.waitText("h1", "Workflows", 30*time.Second)
	b.waitText(".email", p.Email, 5*time.Second)
	if !hasCookie(b, s.base+"/dashboard/workflows", "svc_session") {
		t.Error("the renewal set no session cookie")
	}
	if got := eval[string](b, `location.pathname + location.search`); got != "/dashboard/workflows?q=renewed" {
		t.Errorf("after the renewal the browser is at %s", got)
	}

	b.do("narrow", chromedp.EmulateViewport(360, 780))
	b.do("open the connections", chromedp.Navigate(s.base+"/dashboard/connections"))
	b.waitText("h1", "Connections", 30*time.Second)
	b.checkPage("connections at 360 px")
	b.do("wide", chromedp.EmulateViewport(1440, 900))

	b.do("log out", chromedp.Click(chromedp.CSS(`form[action="/dashboard/logout"] button`)))
	b.waitText(".notice", "You are signed out.", 30*time.Second)
	b.do("open the workflows signed out", chromedp.Navigate(s.base+"/dashboard/workflows"))
	b.waitText("h1", "Log in", 30*time.Second)
	b.noConsoleErrors()
}

// hasCookie reports whether the browser sends a cookie name to url.
func hasCookie(b *browser, url, name string) bool {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		b.t.Fatalf("read the cookies: %v", err)
	}
	for _, c := range res.Cookies {
		if c.Name == name && c.Value != "" {
			return true
		}
	}
	return false
}
