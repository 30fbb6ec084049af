package blackbox

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSessions: signup, login, me, refresh with rotation and reuse
// detection, logout; every error code of the four routes.
func TestSessions(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "sess")

	// the cookie: HttpOnly, SameSite=Lax, not Secure over plain HTTP,
	// Secure when a trusted proxy says the request came over HTTPS
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Body: map[string]any{"email": strings.ToUpper(p.Email), "password": p.Password}})
	wantStatus(t, res, http.StatusOK)
	if uuidField(t, res.Body, "user_id") != p.UserID || str(t, res.Body, "email") != p.Email {
		t.Fatalf("login answer %s", res.Raw)
	}
	sess := object(t, res.Body, "session")
	if integer(t, sess, "expires_at") <= 0 || str(t, sess, "refresh_token") == "" {
		t.Fatalf("login session %v", sess)
	}
	checkCookie(t, res, false)
	secure := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Header: map[string]string{"X-Forwarded-Proto": "https"},
		Body: map[string]any{"email": p.Email, "password": p.Password}})
	wantStatus(t, secure, http.StatusOK)
	checkCookie(t, secure, true)

	// me with the session
	me := s.do(t, req{Path: "/api/user/me", Header: p.cookie()})
	wantStatus(t, me, http.StatusOK)
	if str(t, me.Body, "user_id") != p.UserID || str(t, me.Body, "email") != p.Email || str(t, me.Body, "display_name") != "User sess" {
		t.Fatalf("me: %s", me.Raw)
	}
	m := me.Body["memberships"].([]any)[0].(map[string]any)
	if m["workspace_id"] != p.WorkspaceID || m["workspace_name"] != "Default" || m["role"] != "owner" {
		t.Fatalf("me memberships: %s", me.Raw)
	}
	wantError(t, s.do(t, req{Path: "/api/user/me"}), http.StatusUnauthorized, "unauthorized")
	wantError(t, s.do(t, req{Path: "/api/user/me", Header: map[string]string{"Cookie": "svc_session=forged"}}), http.StatusUnauthorized, "unauthorized")

	// refresh rotates both tokens; the old refresh token, shown again, ends
	// the session
	ref := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: map[string]any{"refresh_token": p.Refresh}})
	wantStatus(t, ref, http.StatusOK)
	rotated := object(t, ref.Body, "session")
	newAccess, newRefresh := str(t, rotated, "access_token"), str(t, rotated, "refresh_token")
	if newAccess == p.Access || newRefresh == p.Refresh {
		t.Fatal("refresh did not rotate the tokens")
	}
	wantError(t, s.do(t, req{Path: "/api/user/me", Header: p.cookie()}), http.StatusUnauthorized, "unauthorized")
	fresh := map[string]string{"Cookie": "svc_session=" + newAccess}
	wantStatus(t, s.do(t, req{Path: "/api/user/me", Header: fresh}), http.StatusOK)
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: map[string]any{"refresh_token": p.Refresh}}),
		http.StatusUnauthorized, "unauthorized")
	wantError(t, s.do(t, req{Path: "/api/user/me", Header: fresh}), http.StatusUnauthorized, "unauthorized") // reuse revoked it
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: map[string]any{}}), http.StatusBadRequest, "missing_field")

	// logout ends the session everywhere and clears the cookie
	login := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Body: map[string]any{"email": p.Email, "password": p.Password}})
	wantStatus(t, login, http.StatusOK)
	cookie := map[string]string{"Cookie": "svc_session=" + sessionCookie(login)}
	out := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/logout", Header: cookie})
	wantStatus(t, out, http.StatusOK)
	if out.Body["success"] != true || !strings.Contains(strings.Join(out.Header.Values("Set-Cookie"), "\n"), "svc_session=; Path=/; Max-Age=0") {
		t.Fatalf("logout: %s %v", out.Raw, out.Header.Values("Set-Cookie"))
	}
	wantError(t, s.do(t, req{Path: "/api/user/me", Header: cookie}), http.StatusUnauthorized, "unauthorized")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/logout", Header: cookie}), http.StatusUnauthorized, "unauthorized")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/logout"}), http.StatusUnauthorized, "unauthorized")

	// signup errors
	signup := func(body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/auth/signup", XFF: nextIP(), Body: body})
	}
	wantError(t, signup(map[string]any{"email": strings.ToUpper(p.Email), "password": "another password"}), http.StatusConflict, "email_already_registered")
	wantError(t, signup(map[string]any{"email": uniqueEmail("short"), "password": "1234567"}), http.StatusBadRequest, "invalid_body")
	wantError(t, signup(map[string]any{"email": "not an email", "password": "long enough"}), http.StatusBadRequest, "invalid_body")
	wantError(t, signup(map[string]any{"password": "long enough"}), http.StatusBadRequest, "missing_field")
	wantError(t, signup(map[string]any{"email": uniqueEmail("nopw")}), http.StatusBadRequest, "missing_field")
	wantError(t, signup(map[string]any{"email": 7, "password": "long enough"}), http.StatusBadRequest, "invalid_body")
	wantError(t, signup(`{"email":`), http.StatusBadRequest, "invalid_body")
	wantError(t, signup(map[string]any{"email": uniqueEmail("long"), "password": "long enough", "name": strings.Repeat("n", 201)}),
		http.StatusBadRequest, "invalid_body")

	// login errors: a wrong password and an unknown email read the same
	login1 := func(body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Body: body})
	}
	wrong := login1(map[string]any{"email": p.Email, "password": "wrong password"})
	unknown := login1(map[string]any{"email": uniqueEmail("nobody"), "password": p.Password})
	wantError(t, wrong, http.StatusUnauthorized, "invalid_credentials")
	wantError(t, unknown, http.StatusUnauthorized, "invalid_credentials")
	if object(t, wrong.Body, "error")["message"] != object(t, unknown.Body, "error")["message"] {
		t.Fatal("invalid_credentials says which half was wrong")
	}
	wantError(t, login1(map[string]any{"email": p.Email}), http.StatusBadRequest, "missing_field")
	wantError(t, login1("[]"), http.StatusBadRequest, "invalid_body")
}

func checkCookie(t *testing.T, res *response, secure bool) {
	t.Helper()
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name != "svc_session" {
			continue
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != secure || c.Path != "/" || c.MaxAge <= 0 {
			t.Fatalf("session cookie %+v (want HttpOnly, SameSite=Lax, Secure=%v)", c, secure)
		}
		return
	}
	t.Fatalf("no session cookie in %v", res.Header.Values("Set-Cookie"))
}

// TestLoginRateLimits: per email, whatever the address; per address,
// whatever the email.
func TestLoginRateLimits(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "limited")
	for range 10 {
		wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(),
			Body: map[string]any{"email": p.Email, "password": "wrong " + randomHex(2)}}), http.StatusUnauthorized, "invalid_credentials")
	}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: nextIP(), Body: map[string]any{"email": p.Email, "password": p.Password}})
	wantError(t, res, http.StatusTooManyRequests, "rate_limited")
	if integer(t, res.Body, "retry_after_seconds") <= 0 {
		t.Fatalf("429 without retry_after_seconds: %s", res.Raw)
	}

	ip := nextIP()
	for range 20 {
		wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: ip,
			Body: map[string]any{"email": uniqueEmail("spray"), "password": "whatever1"}}), http.StatusUnauthorized, "invalid_credentials")
	}
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/auth/login", XFF: ip,
		Body: map[string]any{"email": uniqueEmail("spray"), "password": "whatever1"}}), http.StatusTooManyRequests, "rate_limited")
}

// TestAuthCallback: the mailed verification link signs in, verifies the
// email (2,500 more credits, once) and redirects to a local next only;
// a used or unknown code is 400.
func TestAuthCallback(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "callback")
	link := mailedLink(t, p.Email, regexp.MustCompile(`^Confirm your email`), regexp.MustCompile(`https?://\S+/api/auth/callback\?code=\S+`))
	path := link[strings.Index(link, "/api/auth/callback"):]
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	get := func(path string) *http.Response {
		t.Helper()
		r, err := noFollow.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	first := get(strings.Replace(path, "next=%2Fdashboard", "next=https%3A%2F%2Fevil.example%2F", 1))
	if first.StatusCode != http.StatusFound || first.Header.Get("Location") != "/dashboard" {
		t.Fatalf("callback: %d to %q, want 302 to /dashboard", first.StatusCode, first.Header.Get("Location"))
	}
	var access string
	for _, c := range first.Cookies() {
		if c.Name == "svc_session" {
			access = c.Value
		}
	}
	if access == "" {
		t.Fatal("callback set no session cookie")
	}
	wantStatus(t, s.do(t, req{Path: "/api/user/me", Header: map[string]string{"Cookie": "svc_session=" + access}}), http.StatusOK)

	// the verification granted 2,500 credits on top of signup's 2,500
	key := s.keyWithRole(t, p, p.WorkspaceID, "viewer")
	s.waitBalance(t, key, 5000, 10*time.Second)

	again := get(path)
	if again.StatusCode != http.StatusBadRequest {
		t.Fatalf("a used code: %d, want 400", again.StatusCode)
	}
	wantError(t, s.do(t, req{Path: "/api/auth/callback?code=nope"}), http.StatusBadRequest, "invalid_code")
	wantError(t, s.do(t, req{Path: "/api/auth/callback"}), http.StatusBadRequest, "missing_field")
	for _, next := range []string{"//evil.example/x", "/\\evil.example", "http://evil.example", "javascript:alert(1)"} {
		if got := localPathOf(t, s, p, next); got != "/dashboard" {
			t.Errorf("next %q redirected to %q", next, got)
		}
	}
	if got := localPathOf(t, s, p, "/workspaces?tab=keys"); got != "/workspaces?tab=keys" {
		t.Errorf("local next redirected to %q", got)
	}
}

// localPathOf logs p in by a fresh code with next, and returns where the
// callback redirected. Codes come from signup's mail only, so this uses a
// new user each time.
func localPathOf(t *testing.T, s *server, _ person, next string) string {
	t.Helper()
	q := s.signUpPerson(t, "next")
	link := mailedLink(t, q.Email, regexp.MustCompile(`^Confirm your email`), regexp.MustCompile(`https?://\S+/api/auth/callback\?code=[^&\s]+`))
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := noFollow.Get(link + "&next=" + urlQueryEscape(next))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusFound {
		t.Fatalf("callback with next %q: %d", next, r.StatusCode)
	}
	return r.Header.Get("Location")
}
