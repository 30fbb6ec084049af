package blackbox

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"svc/test/fakellm"
)

// TestLLMPolicy: a workspace's model policy (Team and Enterprise): its
// GET and PUT shapes and errors, a plan and a run with a key of the
// workspace using only the allowed model (substitution warned), a stored
// plan refused once the policy no longer allows its model, removal with
// null, roles and another organization.
func TestLLMPolicy(t *testing.T) {
	t.Parallel()
	fake := fakellm.New()
	t.Cleanup(fake.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": fake.URL(), "SVC_LLM_MODEL": "alpha-large", "SVC_LLM_MODEL_TIER2": "alpha-small"})
	p := s.signUpPerson(t, "policy")
	ws := "/api/workspaces/" + p.WorkspaceID
	path := ws + "/llm-policy"
	as := func(method, path string, body any) *response {
		return s.do(t, req{Method: method, Path: path, Header: p.cookie(), Body: body})
	}

	// Free: both routes need the Team tier
	wantError(t, as(http.MethodGet, path, nil), http.StatusForbidden, "tier_required")
	wantError(t, as(http.MethodPut, path, map[string]any{"allowed_models": []string{"alpha-large"}}), http.StatusForbidden, "tier_required")
	if w := as(http.MethodGet, ws, nil); w.Body["llm_policy"] != nil || w.Body["enforcement_status"] != nil {
		t.Fatalf("a free workspace: %s", w.Raw)
	}

	setTier(t, s, p, "team")
	none := as(http.MethodGet, path, nil)
	wantStatus(t, none, http.StatusOK)
	if none.Body["workspace_id"] != p.WorkspaceID || len(none.Body["allowed_models"].([]any)) != 0 || none.Body["enforcement_status"] != nil ||
		none.Body["updated_at"] != nil {
		t.Fatalf("no policy yet: %s", none.Raw)
	}
	if got := none.Body["available_models"].([]any); len(got) != 2 || got[0] != "alpha-large" || got[1] != "alpha-small" {
		t.Fatalf("available models %v", got)
	}

	// bodies
	wantError(t, as(http.MethodPut, path, map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, as(http.MethodPut, path, map[string]any{"allowed_models": "alpha-large"}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(http.MethodPut, path, map[string]any{"allowed_models": []any{1}}), http.StatusBadRequest, "invalid_body")
	wantError(t, as(http.MethodPut, path, map[string]any{"allowed_models": []string{}}), http.StatusBadRequest, "invalid_body")
	unknown := as(http.MethodPut, path, map[string]any{"allowed_models": []string{"alpha-large", "gpt-5"}})
	wantError(t, unknown, http.StatusBadRequest, "invalid_body")
	if d := unknown.Body["error"].(map[string]any)["details"].(map[string]any); d["field"] != "allowed_models" ||
		len(d["unknown_models"].([]any)) != 1 || len(d["available_models"].([]any)) != 2 {
		t.Fatalf("unknown model: %s", unknown.Raw)
	}

	// roles: a viewer reads, only an admin writes
	viewer := s.keyWithRole(t, p, p.WorkspaceID, "viewer")
	admin := s.keyWithRole(t, p, p.WorkspaceID, "admin")
	member := s.keyWithRole(t, p, p.WorkspaceID, "member")
	wantStatus(t, s.do(t, req{Path: path, Key: viewer}), http.StatusOK)
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Key: viewer, Body: map[string]any{"allowed_models": []string{"alpha-large"}}}),
		http.StatusForbidden, "forbidden")
	set := s.do(t, req{Method: http.MethodPut, Path: path, Key: admin, Body: map[string]any{"allowed_models": []string{" Alpha-Large", "alpha-large"}}})
	wantStatus(t, set, http.StatusOK)
	if got := set.Body["allowed_models"].([]any); len(got) != 1 || got[0] != "alpha-large" || set.Body["enforcement_status"] != "enforced" ||
		set.Body["workspace_id"] != p.WorkspaceID {
		t.Fatalf("policy set: %s", set.Raw)
	}
	if at, err := time.Parse(time.RFC3339Nano, str(t, set.Body, "updated_at")); err != nil || time.Since(at) > time.Minute {
		t.Fatalf("updated_at %v (%v)", set.Body["updated_at"], err)
	}
	w := as(http.MethodGet, ws, nil)
	if pol, _ := w.Body["llm_policy"].(map[string]any); pol == nil || len(pol["allowed_models"].([]any)) != 1 || w.Body["enforcement_status"] != "enforced" {
		t.Fatalf("workspace with a policy: %s", w.Raw)
	}

	// a plan with a key of the workspace uses only the allowed model and says so
	planned := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: member, Body: competitive("policy plan", nil)})
	wantStatus(t, planned, http.StatusOK)
	plan := object(t, planned.Body, "plan")
	for _, raw := range plan["sequence"].([]any) {
		if m := raw.(map[string]any)["model"]; m != "alpha-large" {
			t.Fatalf("step %v on %v", raw, m)
		}
	}
	warned := false
	for _, raw := range plan["warnings"].([]any) {
		warned = warned || raw.(map[string]any)["code"] == "model_substituted"
	}
	if !warned {
		t.Fatalf("no model_substituted warning: %v", plan["warnings"])
	}
	stored := str(t, plan, "workflow_id")

	// a run calls only the allowed model
	fake.Reset()
	res := s.execute(t, member, competitive("policy run", map[string]any{"delivery": polling}))
	id, _ := wantQueued(t, s, res, "polling")
	wf := s.waitTerminal(t, member, id, 60*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("run under the policy: %v", wf)
	}
	calls := fake.Requests()
	if len(calls) == 0 || slices.ContainsFunc(calls, func(c fakellm.Call) bool { return c.Model != "alpha-large" }) {
		t.Fatalf("calls on models other than alpha-large: %+v", calls)
	}
	for _, raw := range wf["completed_step_summaries"].([]any) {
		if m := raw.(map[string]any)["model"]; m != "alpha-large" {
			t.Errorf("step summary model %v", m)
		}
	}

	// the policy changes: the stored plan's model is no longer allowed
	wantStatus(t, as(http.MethodPut, path, map[string]any{"allowed_models": []string{"alpha-small"}}), http.StatusOK)
	refused := s.execute(t, member, map[string]any{"workflow_id": stored, "delivery": polling})
	wantError(t, refused, http.StatusUnprocessableEntity, "model_not_allowed")
	if d := refused.Body["error"].(map[string]any)["details"].(map[string]any); len(d["disallowed_models"].([]any)) != 1 ||
		d["disallowed_models"].([]any)[0] != "alpha-large" {
		t.Fatalf("refusal: %s", refused.Raw)
	}

	// null removes the policy
	removed := as(http.MethodPut, path, map[string]any{"allowed_models": nil})
	wantStatus(t, removed, http.StatusOK)
	if len(removed.Body["allowed_models"].([]any)) != 0 || removed.Body["enforcement_status"] != nil || removed.Body["updated_at"] == nil {
		t.Fatalf("removed: %s", removed.Raw)
	}
	if w := as(http.MethodGet, ws, nil); w.Body["llm_policy"] != nil || w.Body["enforcement_status"] != nil {
		t.Fatalf("workspace after removal: %s", w.Raw)
	}
	again := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: member, Body: competitive("policy removed", nil)})
	wantStatus(t, again, http.StatusOK)
	for _, raw := range object(t, again.Body, "plan")["sequence"].([]any) {
		if m, ok := raw.(map[string]any)["model"]; ok {
			t.Fatalf("a step names model %v without a policy", m)
		}
	}
	wantStatus(t, s.execute(t, member, map[string]any{"workflow_id": stored, "delivery": polling}), http.StatusOK)

	// another organization sees nothing
	other := s.signUpPerson(t, "policy-other")
	setTier(t, s, other, "team")
	for _, method := range []string{http.MethodGet, http.MethodPut} {
		res := s.do(t, req{Method: method, Path: path, Header: other.cookie(), Body: map[string]any{"allowed_models": []string{"alpha-large"}}})
		wantError(t, res, http.StatusNotFound, "not_found")
	}
}
