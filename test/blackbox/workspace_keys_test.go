package blackbox

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWorkspaceKeys: create (raw key once, role up to the caller's), list
// (never the raw key; last_used_at written in batches), revoke (refused
// on the very next request, on another instance too), the tier's key
// limit, and the floors.
//
// Not parallel: two more instances (16 connections each) beside the
// parallel cluster tests would pass PostgreSQL's 100 connections.
func TestWorkspaceKeys(t *testing.T) {
	c := startCluster(t, 2, true, map[string]string{"SVC_SECRET_KEY": randomHex(32)})
	a, b := c.nodes[0], c.nodes[1]
	p := a.signUpPerson(t, "keys")
	ws := "/api/workspaces/" + p.WorkspaceID
	as := func(s *server, method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: p.cookie(), Body: body})
	}

	created := as(a, http.MethodPost, ws+"/api-keys", map[string]any{"label": "  deploy bot "})
	wantStatus(t, created, http.StatusCreated)
	key, keyID := str(t, created.Body, "key"), uuidField(t, created.Body, "key_id")
	if !strings.HasPrefix(key, str(t, created.Body, "prefix")) || created.Body["label"] != "deploy bot" || created.Body["role"] != "member" ||
		created.Body["created_at"] == nil {
		t.Fatalf("create: %s", created.Raw)
	}
	unlabelled := as(b, http.MethodPost, ws+"/api-keys", nil)
	wantStatus(t, unlabelled, http.StatusCreated)
	if unlabelled.Body["label"] != "Workspace key" {
		t.Fatalf("a key without label: %s", unlabelled.Raw)
	}
	wantError(t, as(a, http.MethodPost, ws+"/api-keys", map[string]any{"label": strings.Repeat("l", 101)}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(a, http.MethodPost, ws+"/api-keys", map[string]any{"role": "root"}), http.StatusBadRequest, "invalid_body")

	// the new key works at once on both instances
	for _, s := range []*server{a, b} {
		wantStatus(t, s.do(t, req{Path: "/api/keys/verify", Key: key}), http.StatusOK)
	}
	list := as(b, http.MethodGet, ws+"/api-keys", nil)
	wantStatus(t, list, http.StatusOK)
	if strings.Contains(string(list.Raw), key) {
		t.Fatal("the listing holds a raw key")
	}
	var listed map[string]any
	for _, raw := range list.Body["api_keys"].([]any) {
		if k := raw.(map[string]any); k["key_id"] == keyID {
			listed = k
		}
	}
	if listed == nil || listed["label"] != "deploy bot" || listed["created_by"] != "user:"+p.UserID || listed["prefix"] == nil {
		t.Fatalf("listed: %s", list.Raw)
	}
	// last_used_at: written by the instance that saw the use, within seconds
	a.poll(t, req{Path: ws + "/api-keys", Header: p.cookie()}, 30*time.Second, func(res *response) bool {
		for _, raw := range res.Body["api_keys"].([]any) {
			if k := raw.(map[string]any); k["key_id"] == keyID && k["last_used_at"] != nil {
				return true
			}
		}
		return false
	}, func(res *response) string { return "last_used_at not set within 30 s: " + string(res.Raw) })

	// a member key may list but not create or revoke; a viewer may not list
	member := key
	viewer := a.keyWithRole(t, p, p.WorkspaceID, "viewer")
	wantStatus(t, a.do(t, req{Path: ws + "/api-keys", Key: member}), http.StatusOK)
	wantError(t, a.do(t, req{Path: ws + "/api-keys", Key: viewer}), http.StatusForbidden, "forbidden")
	wantError(t, a.do(t, req{Method: http.MethodPost, Path: ws + "/api-keys", Key: member}), http.StatusForbidden, "forbidden")
	wantError(t, a.do(t, req{Method: http.MethodDelete, Path: ws + "/api-keys/" + keyID, Key: member}), http.StatusForbidden, "forbidden")
	admin := a.keyWithRole(t, p, p.WorkspaceID, "admin")
	wantError(t, a.do(t, req{Method: http.MethodPost, Path: ws + "/api-keys", Key: admin, Body: map[string]any{"role": "owner"}}), http.StatusForbidden, "forbidden")

	// revoke on one instance: the next request on the other is refused
	gone := as(a, http.MethodDelete, ws+"/api-keys/"+keyID, nil)
	wantStatus(t, gone, http.StatusOK)
	if gone.Body["success"] != true {
		t.Fatalf("revoke: %s", gone.Raw)
	}
	wantError(t, b.do(t, req{Path: "/api/keys/verify", Key: key}), http.StatusUnauthorized, "unauthorized")
	wantError(t, a.do(t, req{Path: "/api/rigor/workflows", Key: key}), http.StatusUnauthorized, "invalid_api_key")
	wantError(t, as(b, http.MethodDelete, ws+"/api-keys/"+keyID, nil), http.StatusNotFound, "not_found")
	wantError(t, as(b, http.MethodDelete, ws+"/api-keys/not-a-key", nil), http.StatusNotFound, "not_found")

	// the free tier's 5 keys per workspace: unlabelled, viewer, admin and 2 more
	for range 2 {
		wantStatus(t, as(a, http.MethodPost, ws+"/api-keys", nil), http.StatusCreated)
	}
	wantError(t, as(a, http.MethodPost, ws+"/api-keys", nil), http.StatusPaymentRequired, "key_limit_reached")

	// another organization sees nothing
	other := a.signUpPerson(t, "keys-other")
	wantError(t, a.do(t, req{Path: ws + "/api-keys", Header: other.cookie()}), http.StatusNotFound, "not_found")
	wantError(t, a.do(t, req{Method: http.MethodDelete, Path: ws + "/api-keys/" + uuidField(t, unlabelled.Body, "key_id"), Header: other.cookie()}),
		http.StatusNotFound, "not_found")
}
