package blackbox

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// person is a signed-up user with a live session.
type person struct {
	UserID      string
	Email       string
	Password    string
	Access      string // the svc_session cookie's value
	Refresh     string
	OrgID       string
	WorkspaceID string // their default workspace
}

// cookie is the Cookie header of p's session.
func (p person) cookie() map[string]string {
	return map[string]string{"Cookie": "svc_session=" + p.Access}
}

// signUpPerson signs a new user up (from a fresh client IP) and checks the
// answer's shape; their organization and default workspace come from
// GET /api/user/me.
func (s *server) signUpPerson(t testing.TB, tag string) person {
	t.Helper()
	p := person{Email: uniqueEmail(tag), Password: "pw-" + randomHex(8)}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/auth/signup", XFF: nextIP(),
		Body: map[string]any{"email": p.Email, "password": p.Password, "name": "User " + tag}})
	wantStatus(t, res, http.StatusCreated)
	p.UserID = uuidField(t, res.Body, "user_id")
	sess := object(t, res.Body, "session")
	p.Access, p.Refresh = str(t, sess, "access_token"), str(t, sess, "refresh_token")
	if c := sessionCookie(res); c != p.Access {
		t.Fatalf("signup cookie %q is not the access token", c)
	}
	me := s.do(t, req{Path: "/api/user/me", Header: p.cookie()})
	wantStatus(t, me, http.StatusOK)
	ms, _ := me.Body["memberships"].([]any)
	if len(ms) != 1 {
		t.Fatalf("a new user has memberships %s, want their default workspace", me.Raw)
	}
	p.WorkspaceID = str(t, ms[0].(map[string]any), "workspace_id")
	p.OrgID = uuidField(t, res.Body, "org_id")
	if got := str(t, res.Body, "workspace_id"); got != p.WorkspaceID {
		t.Fatalf("signup's workspace_id %s, membership %s", got, p.WorkspaceID)
	}
	return p
}

// sessionCookie is the svc_session value an answer sets ("" when none).
func sessionCookie(res *response) string {
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == "svc_session" {
			return c.Value
		}
	}
	return ""
}

// setTier changes an organization's tier with the operator CLI, and waits
// until the API reads it (the read models follow the log; the CLI's
// append is not one of the server's own writes).
func setTier(t testing.TB, s *server, p person, tier string) {
	t.Helper()
	if r := cli(t, s.dbURL, "org", "set-tier", "--org", p.OrgID, "--tier", tier); r.Code != 0 {
		t.Fatalf("svc org set-tier: %s", r)
	}
	s.poll(t, req{Path: "/api/workspaces/" + p.WorkspaceID, Header: p.cookie()}, 30*time.Second, func(res *response) bool {
		return res.Status == http.StatusOK && res.Body["account_tier"] == tier
	}, func(res *response) string {
		return "the API does not read tier " + tier + " within 30 s: " + string(res.Raw)
	})
}

// keyWithRole creates an API key of workspace wsID with role, as p.
func (s *server) keyWithRole(t testing.TB, p person, wsID, role string) string {
	t.Helper()
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + wsID + "/api-keys", Header: p.cookie(),
		Body: map[string]any{"label": role + " key", "role": role}})
	wantStatus(t, res, http.StatusCreated)
	key := str(t, res.Body, "key")
	if !strings.HasPrefix(key, "svc_live_") {
		t.Fatalf("workspace key %q", key)
	}
	return key
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
