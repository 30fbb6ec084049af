package blackbox

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// guardrailPolicyFields are the fuzzed fields of a GuardRail policy (a
// rule's value takes any JSON, so it has no one kind).
var guardrailPolicyFields = map[string]string{"name": "string", "description": "string", "priority": "number",
	"effect": "string", "action_types": "array", "action_types[0]": "string", "rules": "array", "rules[0]": "object",
	"rules[0].operator": "string", "rules[0].field": "string", "rules[1].rules": "array", "rules[1].rules[0]": "object",
	"tests": "array", "tests[0]": "object", "tests[0].name": "string", "tests[0].proposed_action": "object",
	"tests[0].expect": "string"}

// TestSuiteGuardRail walks GuardRail against the real server: a policy
// (201, its name's 409 whatever the case, 400 naming a rule's path, a
// failing test), the list, checks allowed and denied (reason, override,
// audit id, one credit each), the audit log and a dry run, a viewer's 403
// and the 401s.
func TestSuiteGuardRail(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	post := func(path string, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: path, Key: a.Key, Body: body})
	}

	res := post("/api/guardrail/policies", map[string]any{"name": "Block prod deletes", "priority": 10, "action_types": []any{"delete"},
		"rules": []any{map[string]any{"operator": "starts_with", "field": "target.path", "value": "/prod"}},
		"tests": []any{map[string]any{"name": "staging", "proposed_action": map[string]any{"type": "delete", "target": map[string]any{"path": "/staging"}}, "expect": "allow"}}})
	wantStatus(t, res, http.StatusCreated)
	policy := object(t, res.Body, "policy")
	policyID := uuidField(t, policy, "id")
	if integer(t, res.Body, "credits_used") != 0 || str(t, res.Body, "fallback_behavior") != "none" || str(t, policy, "effect") != "deny" {
		t.Fatalf("created %s", res.Raw)
	}
	wantStatus(t, post("/api/guardrail/policies", map[string]any{"name": "Spend cap",
		"rules": []any{map[string]any{"operator": "gt", "field": "cost_estimate", "value": 50}}}), http.StatusCreated)
	wantError(t, post("/api/guardrail/policies", map[string]any{"name": "block PROD deletes",
		"rules": []any{map[string]any{"operator": "eq", "field": "type", "value": "x"}}}), http.StatusConflict, "policy_name_conflict")
	res = post("/api/guardrail/policies", map[string]any{"name": "bad", "rules": []any{
		map[string]any{"operator": "eq", "field": "a", "value": 1},
		map[string]any{"operator": "not", "rules": []any{map[string]any{"operator": "like", "field": "a", "value": 1}}}}})
	wantError(t, res, http.StatusBadRequest, "invalid_request")
	if !strings.Contains(string(res.Raw), "rules[1].rules[0].operator") {
		t.Fatalf("the refusal does not name the rule: %s", res.Raw)
	}
	res = post("/api/guardrail/policies", map[string]any{"name": "failing", "rules": []any{map[string]any{"operator": "eq", "field": "type", "value": "x"}},
		"tests": []any{map[string]any{"name": "must deny", "proposed_action": map[string]any{"type": "y"}, "expect": "deny"}}})
	wantError(t, res, http.StatusBadRequest, "invalid_request")
	if !strings.Contains(string(res.Raw), "must deny") {
		t.Fatalf("the refusal does not name the test: %s", res.Raw)
	}

	res = s.do(t, req{Path: "/api/guardrail/policies", Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	list, _ := res.Body["policies"].([]any)
	if integer(t, res.Body, "total") != 2 || len(list) != 2 || list[0].(map[string]any)["id"] != policyID {
		t.Fatalf("list %s", res.Raw)
	}

	balance := s.balance(t, a.Key)
	res = post("/api/guardrail/check", map[string]any{"agent_id": "cleaner", "proposed_action": map[string]any{"type": "delete",
		"description": "drop old tables", "cost_estimate": 1, "target": map[string]any{"path": "/prod/db"}}})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "decision") != "deny" || res.Body["policy_id"] != policyID ||
		str(t, res.Body, "reason") != `Policy Block prod deletes: rule target.path starts_with "/prod" matched` ||
		integer(t, res.Body, "credits_used") != 1 || integer(t, res.Body, "credits_remaining") != balance-1 {
		t.Fatalf("deny %s", res.Raw)
	}
	if o := object(t, res.Body, "override"); o["available"] != true || o["requires"] != "admin approval" {
		t.Fatalf("override %s", res.Raw)
	}
	denied := uuidField(t, res.Body, "audit_id")
	res = post("/api/guardrail/check", map[string]any{"agent_id": "cleaner", "proposed_action": map[string]any{"type": "read", "cost_estimate": 2}})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "decision") != "allow" || res.Body["policy_id"] != nil {
		t.Fatalf("allow %s", res.Raw)
	}
	uuidField(t, res.Body, "audit_id")
	if s.balance(t, a.Key) != balance-2 {
		t.Fatal("two checks did not cost two credits")
	}
	wantError(t, post("/api/guardrail/check", map[string]any{"agent_id": "x", "proposed_action": map[string]any{"cost_estimate": 2}}),
		http.StatusBadRequest, "invalid_request")

	res = s.do(t, req{Path: "/api/guardrail/decisions?decision=deny", Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	ds, _ := res.Body["decisions"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["audit_id"] != denied {
		t.Fatalf("decisions %s", res.Raw)
	}
	res = post("/api/guardrail/policies/dry-run", map[string]any{"policy": map[string]any{"rules": []any{
		map[string]any{"operator": "eq", "field": "type", "value": "read"}}}})
	wantStatus(t, res, http.StatusOK)
	if integer(t, res.Body, "recorded_checks") != 2 || integer(t, res.Body, "would_deny") != 1 || integer(t, res.Body, "newly_denied") != 1 {
		t.Fatalf("dry run %s", res.Raw)
	}

	// a viewer reads and checks, but does not write policies
	res = s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + a.WorkspaceID + "/api-keys", Key: a.Key,
		Body: map[string]any{"label": "viewer", "role": "viewer"}})
	wantStatus(t, res, http.StatusCreated)
	viewer := str(t, res.Body, "key")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/guardrail/policies", Key: viewer,
		Body: map[string]any{"name": "v", "rules": []any{map[string]any{"operator": "eq", "field": "type", "value": "x"}}}}),
		http.StatusForbidden, "insufficient_permissions")
	wantStatus(t, s.do(t, req{Path: "/api/guardrail/policies", Key: viewer}), http.StatusOK)
	wantError(t, s.do(t, req{Method: http.MethodDelete, Path: "/api/guardrail/policies/" + policyID, Key: viewer}),
		http.StatusForbidden, "insufficient_permissions")

	// deleting a policy: it stops deciding at once, its name is free, a
	// retry answers the same, an unknown or foreign id is 404
	del := func(id, key string) *response {
		return s.do(t, req{Method: http.MethodDelete, Path: "/api/guardrail/policies/" + id, Key: key})
	}
	for range 2 {
		res = del(policyID, a.Key)
		wantStatus(t, res, http.StatusOK)
		if p := object(t, res.Body, "policy"); p["id"] != policyID || p["active"] != false || integer(t, res.Body, "credits_used") != 0 {
			t.Fatalf("delete %s", res.Raw)
		}
	}
	res = post("/api/guardrail/check", map[string]any{"agent_id": "cleaner", "proposed_action": map[string]any{"type": "delete",
		"target": map[string]any{"path": "/prod/db"}}})
	if str(t, res.Body, "decision") != "allow" {
		t.Fatalf("a deleted policy still denies: %s", res.Raw)
	}
	res = s.do(t, req{Path: "/api/guardrail/policies", Key: a.Key})
	if integer(t, res.Body, "total") != 1 {
		t.Fatalf("list after delete %s", res.Raw)
	}
	wantStatus(t, post("/api/guardrail/policies", map[string]any{"name": "Block prod deletes",
		"rules": []any{map[string]any{"operator": "eq", "field": "type", "value": "x"}}}), http.StatusCreated)
	wantError(t, del("7d1f6a52-1b8e-4d33-9a57-2f0c8f1e9b10", a.Key), http.StatusNotFound, "not_found")
	wantError(t, del("not-an-id", a.Key), http.StatusNotFound, "not_found")
	other := s.signup(t, nil)
	wantError(t, del(list[1].(map[string]any)["id"].(string), other.Key), http.StatusNotFound, "not_found")
	wantError(t, del(policyID, ""), http.StatusUnauthorized, "missing_api_key")

	wantError(t, s.do(t, req{Path: "/api/guardrail/policies"}), http.StatusUnauthorized, "missing_api_key")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/guardrail/check", Key: "svc_live_nope",
		Body: map[string]any{"agent_id": "x", "proposed_action": map[string]any{"type": "y"}}}), http.StatusUnauthorized, "invalid_api_key")
}

// TestSuiteGuardRailNameRace creates one name from many clients at once:
// exactly one wins, the others are 409.
func TestSuiteGuardRailNameRace(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		codes = map[int]int{}
	)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"Race", "RACE", " race "}[i%3]
			res := s.do(t, req{Method: http.MethodPost, Path: "/api/guardrail/policies", Key: a.Key,
				Body: map[string]any{"name": name, "rules": []any{map[string]any{"operator": "eq", "field": "type", "value": "x"}}}})
			mu.Lock()
			codes[res.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[http.StatusCreated] != 1 || codes[http.StatusConflict] != 5 {
		t.Fatalf("statuses %v", codes)
	}
}
