package blackbox

import (
	"net/http"
	"strings"
	"testing"
)

// TestDashboardRenewsLapsedSession: a page opened after the hour-long
// access token lapsed renews the session from the refresh cookie (sent
// to /dashboard as well as /api/auth) and comes back to the same page;
// a refresh token already used signs the browser out instead.
func TestDashboardRenewsLapsedSession(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "renew")

	const path = "/dashboard/workflows?q=report"
	code, h, _ := page(t, s, http.MethodGet, path, "svc_refresh="+p.Refresh, nil, nil)
	if code != http.StatusSeeOther || h.Get("Location") != path {
		t.Fatalf("a lapsed session: %d %v", code, h)
	}
	fresh := map[string][]*http.Cookie{}
	for _, c := range (&http.Response{Header: h}).Cookies() {
		fresh[c.Name] = append(fresh[c.Name], c)
	}
	if len(fresh["svc_session"]) != 1 || fresh["svc_session"][0].Value == "" || fresh["svc_session"][0].Value == p.Access {
		t.Fatalf("the renewal's session cookie: %v", h.Values("Set-Cookie"))
	}
	paths := map[string]bool{}
	for _, c := range fresh["svc_refresh"] {
		if c.Value == "" || c.Value == p.Refresh || !c.HttpOnly {
			t.Errorf("a renewed refresh cookie: %v", c)
		}
		paths[c.Path] = true
	}
	if !paths["/api/auth"] || !paths["/dashboard"] || len(paths) != 2 {
		t.Errorf("the refresh cookie's paths: %v", h.Values("Set-Cookie"))
	}
	code, _, body := page(t, s, http.MethodGet, path, "svc_session="+fresh["svc_session"][0].Value, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, p.Email) {
		t.Errorf("the page with the renewed session: %d %.1000s", code, body)
	}

	// the used refresh token again: signed out, cookies cleared
	code, h, _ = page(t, s, http.MethodGet, path, "svc_refresh="+p.Refresh, nil, nil)
	if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/dashboard/login?next=") {
		t.Fatalf("a used refresh token: %d %v", code, h)
	}
	cleared := 0
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "svc_refresh" && c.MaxAge < 0 {
			cleared++
		}
	}
	if cleared != 2 {
		t.Errorf("a used refresh token's cookies: %v", h.Values("Set-Cookie"))
	}
	// a form is not renewed: its token was bound to the lapsed session
	if code, _, _ := page(t, s, http.MethodPost, "/dashboard/folders", "svc_refresh="+fresh["svc_refresh"][0].Value, nil, nil); code != http.StatusForbidden {
		t.Errorf("a form after the session lapsed: %d", code)
	}
}
