package dashboard

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
)

// CSRF protection (docs/decisions.md): every form carries a token the
// server derives from the session cookie (a synchronizer token bound to
// the session, nothing stored: a page of another site can neither read the
// HttpOnly cookie nor the token); before sign-in, from a random cookie of
// the dashboard's own (svc_csrf, SameSite=Strict). Beside the token, a
// request a browser marks as sent from another site is refused.

const (
	sessionCookie = "svc_session" // the accounts' session cookie (http/sessions.go)
	refreshCookie = "svc_refresh" // its refresh token, also sent to /dashboard
	nonceCookie   = "svc_csrf"
	csrfField     = "csrf_token"
	csrfSentence  = "This form has expired or did not come from this dashboard. Reload the page and try again."
)

// csrfToken is the token forms of r carry: "" when r has neither a
// session nor the nonce cookie (ensureNonce sets one).
func csrfToken(r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		return derive("session", c.Value)
	}
	if c, err := r.Cookie(nonceCookie); err == nil && c.Value != "" {
		return derive("nonce", c.Value)
	}
	return ""
}

func derive(kind, secret string) string {
	sum := sha256.Sum256([]byte("svc dashboard csrf v1\x00" + kind + "\x00" + secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// ensureNonce gives a signed-out browser the nonce cookie its forms are
// bound to, and returns r as if it had sent it.
func ensureNonce(w http.ResponseWriter, r *http.Request) *http.Request {
	if csrfToken(r) != "" {
		return r
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	c := &http.Cookie{Name: nonceCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/dashboard",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode}
	http.SetCookie(w, c)
	r = r.Clone(r.Context())
	r.AddCookie(c)
	return r
}

// checkCSRF refuses a state-changing request that comes from another
// site (Sec-Fetch-Site; from older browsers, an Origin of another host)
// or lacks the token of its cookies.
func checkCSRF(r *http.Request) error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
	case "":
		// an older browser: its Origin, when it sends one
		if o := r.Header.Get("Origin"); o != "" && o != "null" {
			if u, err := url.Parse(o); err != nil || u.Host != r.Host {
				return errors.New("sent from another origin")
			}
		}
	default:
		return errors.New("sent from another site (Sec-Fetch-Site)")
	}
	want := csrfToken(r)
	if want == "" {
		return errors.New("no session or nonce cookie")
	}
	got := r.PostFormValue(csrfField)
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errors.New("missing or wrong token")
	}
	return nil
}
