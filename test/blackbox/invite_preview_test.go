package blackbox

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestInvitePreviewRoute: POST /api/invites/preview answers, to anyone
// holding an invite link's token and without credentials, the workspace,
// role, inviter and expiry it offers, and uses nothing; a used-up,
// revoked, unknown or malformed token is 404 invite_not_found, as accept
// says; a body without the token is 400 missing_field; refusals from one
// address are limited (429 rate_limited with retry_after_seconds).
func TestInvitePreviewRoute(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "preview-owner")
	wantStatus(t, s.do(t, req{Method: http.MethodPut, Path: "/api/workspaces/" + owner.WorkspaceID, Header: owner.cookie(),
		Body: map[string]any{"name": "Preview lab"}}), http.StatusOK)
	link := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/invites", Header: owner.cookie(),
		Body: map[string]any{"role": "admin", "max_uses": 1, "expires_in_days": 2}})
	wantStatus(t, link, http.StatusCreated)
	token := str(t, link.Body, "token")
	preview := func(body map[string]any, xff string) *response {
		t.Helper()
		return s.do(t, req{Method: http.MethodPost, Path: "/api/invites/preview", XFF: xff, Body: body})
	}

	ip := nextIP()
	for range 2 { // twice: a preview uses nothing
		res := preview(map[string]any{"token": token}, ip)
		wantStatus(t, res, http.StatusOK)
		exp, err := time.Parse(time.RFC3339, str(t, res.Body, "expires_at"))
		if res.Body["workspace_id"] != owner.WorkspaceID || res.Body["workspace_name"] != "Preview lab" || res.Body["role"] != "admin" ||
			res.Body["kind"] != "link" || res.Body["invited_by"] != "User preview-owner" || err != nil || time.Until(exp) < 47*time.Hour {
			t.Fatalf("preview: %s", res.Raw)
		}
	}
	// with a key or a session it answers the same: the token is the credential
	key := s.keyWithRole(t, owner, owner.WorkspaceID, "viewer")
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/invites/preview", Key: key, XFF: ip, Body: map[string]any{"token": token}}), http.StatusOK)

	joiner := s.signUpPerson(t, "preview-joiner")
	acc := s.do(t, req{Method: http.MethodPost, Path: "/api/invites/accept", Header: joiner.cookie(), Body: map[string]any{"token": token}})
	wantStatus(t, acc, http.StatusOK)
	wantError(t, preview(map[string]any{"token": token}, ip), http.StatusNotFound, "invite_not_found")

	revoked := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/invites", Header: owner.cookie(),
		Body: map[string]any{"role": "viewer"}})
	wantStatus(t, revoked, http.StatusCreated)
	wantStatus(t, s.do(t, req{Method: http.MethodDelete, Path: "/api/workspaces/" + owner.WorkspaceID + "/invites/" + str(t, revoked.Body, "invite_id"),
		Header: owner.cookie()}), http.StatusOK)
	wantError(t, preview(map[string]any{"token": str(t, revoked.Body, "token")}, ip), http.StatusNotFound, "invite_not_found")
	for _, bad := range []string{"nope", "00000000-0000-4000-8000-000000000000.x", token + "x"} {
		wantError(t, preview(map[string]any{"token": bad}, ip), http.StatusNotFound, "invite_not_found")
	}
	wantError(t, preview(map[string]any{}, ip), http.StatusBadRequest, "missing_field")
	wantError(t, preview(map[string]any{"token": ""}, ip), http.StatusBadRequest, "missing_field")

	// the token never appears in a URL: a GET is not a route
	wantError(t, s.do(t, req{Path: "/api/invites/preview?token=" + url.QueryEscape(token)}), http.StatusMethodNotAllowed, "method_not_allowed")

	// 20 refusals from one address, then 429
	other := nextIP()
	for range 20 {
		wantError(t, preview(map[string]any{"token": "nope"}, other), http.StatusNotFound, "invite_not_found")
	}
	res := preview(map[string]any{"token": "nope"}, other)
	wantError(t, res, http.StatusTooManyRequests, "rate_limited")
	details, _ := res.Body["error"].(map[string]any)["details"].(map[string]any)
	if n, ok := details["retry_after_seconds"].(json.Number); !ok || n.String() == "0" {
		t.Fatalf("rate limited without retry_after_seconds: %s", res.Raw)
	}
	// another address is not limited
	wantError(t, preview(map[string]any{"token": "nope"}, nextIP()), http.StatusNotFound, "invite_not_found")
}
