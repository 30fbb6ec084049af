package blackbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// auditEvents reads the events of an audit log answer, checking each
// one's shape.
func auditEvents(t *testing.T, res *response) []map[string]any {
	t.Helper()
	wantStatus(t, res, http.StatusOK)
	list, ok := res.Body["events"].([]any)
	if !ok {
		t.Fatalf("audit log without events: %s", res.Raw)
	}
	out := make([]map[string]any, 0, len(list))
	for _, raw := range list {
		e := raw.(map[string]any)
		uuidField(t, e, "id")
		actor, _ := e["actor"].(map[string]any)
		_, isMeta := e["metadata"].(map[string]any)
		if actor == nil || actor["type"] == nil || actor["id"] == nil || e["action"] == nil || e["resource_type"] == nil ||
			e["resource_id"] == nil || !isMeta || e["created_at"] == nil {
			t.Fatalf("audit event %v", e)
		}
		if _, err := time.Parse(time.RFC3339, e["created_at"].(string)); err != nil {
			t.Fatalf("created_at %v", e["created_at"])
		}
		out = append(out, e)
	}
	return out
}

func actions(events []map[string]any) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e["action"].(string)
	}
	return out
}

// TestAuditLog: admin actions on a workspace (with a session and with a
// key) are in its audit log, newest first, with their actors, resources
// and metadata and no secret; paging with a cursor, filters and bad
// parameters; the organization's events in its default workspace only;
// 401, 403 below admin, 404 across organizations.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "audit")
	bob := s.signUpPerson(t, "audit-bob")
	ws := "/api/workspaces/" + owner.WorkspaceID
	as := func(p person, method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: p.cookie(), Body: body})
	}
	log := ws + "/audit-log"

	created := as(owner, http.MethodPost, ws+"/api-keys", map[string]any{"label": "audit bot", "role": "admin"})
	wantStatus(t, created, http.StatusCreated)
	key, keyID := str(t, created.Body, "key"), uuidField(t, created.Body, "key_id")
	link := s.do(t, req{Method: http.MethodPost, Path: ws + "/invites", Key: key, Body: map[string]any{"role": "viewer", "max_uses": 2}})
	wantStatus(t, link, http.StatusCreated)
	inviteID, token := uuidField(t, link.Body, "invite_id"), str(t, link.Body, "token")
	wantStatus(t, as(owner, http.MethodDelete, ws+"/invites/"+inviteID, nil), http.StatusOK)
	wantStatus(t, as(owner, http.MethodDelete, ws+"/api-keys/"+keyID, nil), http.StatusOK)
	wantStatus(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": bob.Email, "role": "member"}), http.StatusCreated)
	wantStatus(t, as(owner, http.MethodPatch, ws+"/members/"+bob.UserID, map[string]any{"role": "admin"}), http.StatusOK)
	wantStatus(t, as(owner, http.MethodPut, ws, map[string]any{"name": "Audited"}), http.StatusOK)

	// read at once (the writes waited for the read models), newest first
	all := as(owner, http.MethodGet, log, nil)
	events := auditEvents(t, all)
	want := []string{"workspace.renamed", "member.role_changed", "member.added", "api_key.revoked", "invite.revoked", "invite.created",
		"api_key.created", "credits.granted", "member.added", "workspace.created", "organization.created"}
	if got := actions(events); !slices.Equal(got, want) || all.Body["next_cursor"] != nil {
		t.Fatalf("audit log %v, want %v: %s", got, want, all.Raw)
	}
	for _, secret := range []string{key, token, owner.Password, `"hash"`, "token_hash", "token_sealed"} {
		if strings.Contains(string(all.Raw), secret) {
			t.Fatalf("the audit log holds %q: %s", secret, all.Raw)
		}
	}
	type expect struct {
		actorType, actorID, resourceType, resourceID string
		metadata                                     map[string]any
	}
	byUser := func(resourceType, resourceID string, metadata map[string]any) expect {
		return expect{"user", owner.UserID, resourceType, resourceID, metadata}
	}
	for i, w := range []expect{
		byUser("workspace", owner.WorkspaceID, map[string]any{"from": "Default", "to": "Audited"}),
		byUser("member", bob.UserID, map[string]any{"from": "member", "to": "admin"}),
		byUser("member", bob.UserID, map[string]any{"email": bob.Email, "role": "member", "via": "direct"}),
		byUser("api_key", keyID, map[string]any{}),
		byUser("invite", inviteID, map[string]any{}),
		{"api_key", keyID, "invite", inviteID, map[string]any{"kind": "link", "role": "viewer", "max_uses": 2}},
		byUser("api_key", keyID, map[string]any{"label": "audit bot", "role": "admin"}),
	} {
		e := events[i]
		actor, meta := e["actor"].(map[string]any), e["metadata"].(map[string]any)
		if actor["type"] != w.actorType || actor["id"] != w.actorID || e["resource_type"] != w.resourceType || e["resource_id"] != w.resourceID {
			t.Errorf("event %d: %v, want %+v", i, e, w)
		}
		for k, v := range w.metadata {
			if fmt.Sprint(meta[k]) != fmt.Sprint(v) {
				t.Errorf("event %d (%s): metadata.%s %v, want %v", i, e["action"], k, meta[k], v)
			}
		}
		if len(w.metadata) == 0 && len(meta) != 0 {
			t.Errorf("event %d (%s): metadata %v, want {}", i, e["action"], meta)
		}
	}

	// pages of 4 cover the log once, in order; the last has no cursor
	var paged []string
	path := log + "?limit=4"
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more than 3 pages of 4 for %d events", len(events))
		}
		res := as(owner, http.MethodGet, path, nil)
		page := auditEvents(t, res)
		for _, e := range page {
			paged = append(paged, e["id"].(string))
		}
		next, _ := res.Body["next_cursor"].(string)
		if next == "" {
			if len(page) != 3 || res.Body["next_cursor"] != nil {
				t.Fatalf("last page %s", res.Raw)
			}
			break
		}
		if len(page) != 4 {
			t.Fatalf("a page of %d with a cursor: %s", len(page), res.Raw)
		}
		path = log + "?limit=4&cursor=" + urlQueryEscape(next)
	}
	var ids []string
	for _, e := range events {
		ids = append(ids, e["id"].(string))
	}
	if !slices.Equal(paged, ids) {
		t.Fatalf("pages %v, want %v", paged, ids)
	}

	// filters
	if got := actions(auditEvents(t, as(owner, http.MethodGet, log+"?action=member.added", nil))); !slices.Equal(got, []string{"member.added", "member.added"}) {
		t.Errorf("action filter: %v", got)
	}
	if got := actions(auditEvents(t, as(owner, http.MethodGet, log+"?actor="+keyID, nil))); !slices.Equal(got, []string{"invite.created"}) {
		t.Errorf("actor filter: %v", got)
	}
	if got := actions(auditEvents(t, as(owner, http.MethodGet, log+"?resource_type=api_key&limit=1", nil))); !slices.Equal(got, []string{"api_key.revoked"}) {
		t.Errorf("resource_type filter: %v", got)
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "cursor=!!", "cursor=bm9wZQ", "action=nope", "resource_type=nope"} {
		res := as(owner, http.MethodGet, log+"?"+q, nil)
		wantError(t, res, http.StatusBadRequest, "invalid_body")
		if d, _ := object(t, res.Body, "error")["details"].(map[string]any); d["field"] != strings.Split(q, "=")[0] {
			t.Errorf("%s: %s does not name the field", q, res.Raw)
		}
	}

	// who may read it: admins and up
	wantStatus(t, as(bob, http.MethodGet, log, nil), http.StatusOK)
	wantError(t, s.do(t, req{Path: log}), http.StatusUnauthorized, "unauthorized")
	carol := s.signUpPerson(t, "audit-carol")
	wantStatus(t, as(owner, http.MethodPost, ws+"/members", map[string]any{"email": carol.Email, "role": "member"}), http.StatusCreated)
	wantError(t, as(carol, http.MethodGet, log, nil), http.StatusForbidden, "forbidden")
	member := s.keyWithRole(t, owner, owner.WorkspaceID, "member")
	wantError(t, s.do(t, req{Path: log, Key: member}), http.StatusForbidden, "forbidden")
	other := s.signUpPerson(t, "audit-other")
	wantError(t, as(other, http.MethodGet, log, nil), http.StatusNotFound, "not_found")
	wantError(t, as(owner, http.MethodGet, "/api/workspaces/"+other.WorkspaceID+"/audit-log", nil), http.StatusNotFound, "not_found")

	// the organization's own events (a tier change by the operator) are
	// in its default workspace's log, not in another workspace's
	setTier(t, s, owner, "team")
	s.poll(t, req{Path: log + "?action=organization.tier_changed", Header: owner.cookie()}, 30*time.Second, func(res *response) bool {
		list, _ := res.Body["events"].([]any)
		return len(list) == 1
	}, func(last *response) string { return "no tier change in the log: " + string(last.Raw) })
	tier := auditEvents(t, as(owner, http.MethodGet, log+"?action=organization.tier_changed", nil))[0]
	if a := tier["actor"].(map[string]any); a["type"] != "system" || a["id"] != "operator" || tier["resource_type"] != "organization" ||
		tier["resource_id"] != owner.OrgID || tier["metadata"].(map[string]any)["to"] != "team" {
		t.Fatalf("tier change %v", tier)
	}
	second := as(owner, http.MethodPost, "/api/workspaces", map[string]any{"name": "Second"})
	wantStatus(t, second, http.StatusCreated)
	secondID := uuidField(t, second.Body, "id")
	if got := actions(auditEvents(t, as(owner, http.MethodGet, "/api/workspaces/"+secondID+"/audit-log", nil))); !slices.Equal(got, []string{"member.added", "workspace.created"}) {
		t.Fatalf("second workspace's log %v", got)
	}
}
