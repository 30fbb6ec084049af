package blackbox

import (
	"net/http"
	"strings"
	"testing"
)

// TestWorkspaces: list, create (tier and limit), get, rename, archive,
// restore, and their error codes.
func TestWorkspaces(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "ws")
	do := func(method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: p.cookie(), Body: body})
	}

	list := do(http.MethodGet, "/api/workspaces", nil)
	wantStatus(t, list, http.StatusOK)
	wss := list.Body["workspaces"].([]any)
	if len(wss) != 1 {
		t.Fatalf("a new user's workspaces: %s", list.Raw)
	}
	def := wss[0].(map[string]any)
	if def["id"] != p.WorkspaceID || def["slug"] != "default" || def["is_default"] != true || def["archived_at"] != nil || def["name"] != "Default" {
		t.Fatalf("default workspace %v", def)
	}

	// free tier: no second workspace; the default one cannot be archived
	wantError(t, do(http.MethodPost, "/api/workspaces", map[string]any{"name": "Research"}), http.StatusForbidden, "tier_required")
	wantError(t, do(http.MethodDelete, "/api/workspaces/"+p.WorkspaceID, nil), http.StatusForbidden, "forbidden")
	wantError(t, do(http.MethodPost, "/api/workspaces/"+p.WorkspaceID+"/restore", nil), http.StatusForbidden, "tier_required")

	setTier(t, s, p, "team")
	created := do(http.MethodPost, "/api/workspaces", map[string]any{"name": "  Research & Dev "})
	wantStatus(t, created, http.StatusCreated)
	id := uuidField(t, created.Body, "id")
	if created.Body["name"] != "Research & Dev" || created.Body["slug"] != "research-dev" || created.Body["is_default"] != false ||
		created.Body["archived_at"] != nil || created.Body["account_tier"] != "team" {
		t.Fatalf("created workspace %s", created.Raw)
	}
	twin := do(http.MethodPost, "/api/workspaces", map[string]any{"name": "Research-Dev"})
	wantStatus(t, twin, http.StatusCreated)
	if twin.Body["slug"] != "research-dev-2" {
		t.Fatalf("second slug %v, want research-dev-2", twin.Body["slug"])
	}
	wantError(t, do(http.MethodPost, "/api/workspaces", map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, do(http.MethodPost, "/api/workspaces", map[string]any{"name": "  "}), http.StatusBadRequest, "missing_field")
	wantError(t, do(http.MethodPost, "/api/workspaces", map[string]any{"name": strings.Repeat("x", 101)}), http.StatusBadRequest, "invalid_body")
	wantError(t, do(http.MethodPost, "/api/workspaces", `{"name":`), http.StatusBadRequest, "invalid_body")

	got := do(http.MethodGet, "/api/workspaces/"+id, nil)
	wantStatus(t, got, http.StatusOK)
	if got.Body["id"] != id || got.Body["name"] != "Research & Dev" {
		t.Fatalf("get: %s", got.Raw)
	}
	renamed := do(http.MethodPut, "/api/workspaces/"+id, map[string]any{"name": "R&D"})
	wantStatus(t, renamed, http.StatusOK)
	if renamed.Body["name"] != "R&D" || renamed.Body["slug"] != "research-dev" {
		t.Fatalf("renamed: %s (the slug stays)", renamed.Raw)
	}
	wantError(t, do(http.MethodPut, "/api/workspaces/"+id, map[string]any{}), http.StatusBadRequest, "missing_field")

	// archive, list with and without include_archived, restore
	wantError(t, do(http.MethodPost, "/api/workspaces/"+id+"/restore", nil), http.StatusBadRequest, "not_archived")
	arch := do(http.MethodDelete, "/api/workspaces/"+id, nil)
	wantStatus(t, arch, http.StatusOK)
	if arch.Body["success"] != true {
		t.Fatalf("archive: %s", arch.Raw)
	}
	if ids := workspaceIDs(t, do(http.MethodGet, "/api/workspaces", nil)); ids[id] || len(ids) != 2 {
		t.Fatalf("archived workspace listed by default: %v", ids)
	}
	all := do(http.MethodGet, "/api/workspaces?include_archived=true", nil)
	if ids := workspaceIDs(t, all); !ids[id] || len(ids) != 3 {
		t.Fatalf("include_archived=true: %v", ids)
	}
	wantError(t, do(http.MethodGet, "/api/workspaces?include_archived=maybe", nil), http.StatusBadRequest, "invalid_body")
	archived := do(http.MethodGet, "/api/workspaces/"+id, nil)
	if archived.Body["archived_at"] == nil {
		t.Fatalf("archived workspace without archived_at: %s", archived.Raw)
	}
	restored := do(http.MethodPost, "/api/workspaces/"+id+"/restore", nil)
	wantStatus(t, restored, http.StatusOK)
	if restored.Body["ok"] != true || restored.Body["workspace_id"] != id || restored.Body["status"] != "active" {
		t.Fatalf("restore: %s", restored.Raw)
	}

	// 404 for what does not exist or is not the caller's to see
	other := s.signUpPerson(t, "ws-other")
	for _, path := range []string{"/api/workspaces/" + id, "/api/workspaces/00000000-0000-4000-8000-000000000000", "/api/workspaces/nope"} {
		wantError(t, s.do(t, req{Path: path, Header: other.cookie()}), http.StatusNotFound, "not_found")
	}
	wantError(t, s.do(t, req{Path: "/api/workspaces"}), http.StatusUnauthorized, "unauthorized")

	// the team tier's limit of 10 (the default and the archived count)
	for i := 3; i < 10; i++ {
		wantStatus(t, do(http.MethodPost, "/api/workspaces", map[string]any{"name": "Team " + randomHex(2)}), http.StatusCreated)
	}
	wantError(t, do(http.MethodPost, "/api/workspaces", map[string]any{"name": "One too many"}), http.StatusForbidden, "workspace_limit_reached")
}

func workspaceIDs(t *testing.T, res *response) map[string]bool {
	t.Helper()
	wantStatus(t, res, http.StatusOK)
	out := map[string]bool{}
	for _, w := range res.Body["workspaces"].([]any) {
		out[w.(map[string]any)["id"].(string)] = true
	}
	return out
}

// TestDefaultSlugReservedForKeySignups: an organization signed up with
// POST /api/keys holds its default workspace's slug too, so a workspace
// named "Default" gets default-2.
func TestDefaultSlugReservedForKeySignups(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	if r := cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "team"); r.Code != 0 {
		t.Fatalf("svc org set-tier: %s", r)
	}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces", Key: a.Key, Body: map[string]any{"name": "Default"}})
	wantStatus(t, res, http.StatusCreated)
	if res.Body["slug"] != "default-2" {
		t.Fatalf("slug %v, want default-2 (the default workspace holds default)", res.Body["slug"])
	}
}
