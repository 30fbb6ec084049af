package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// guardrailWalks walk the guardrail write routes: each call, then what must read
// it back at once.
func guardrailWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	key, _ := keyWithRole(t, apikey.Owner)
	return map[string]func(t *testing.T){
		"POST guardrail.create_policy": func(t *testing.T) {
			waitKey(t, f, key)
			code, body := rawCall(t, f, "POST", "/api/guardrail/policies", key,
				`{"name":"walk","rules":[{"operator":"eq","field":"type","value":"walked"}]}`)
			if code != 201 {
				t.Fatalf("create: %d %v", code, body)
			}
			id := body["policy"].(map[string]any)["id"]
			_, body = rawCall(t, f, "GET", "/api/guardrail/policies", key, "")
			ps, _ := body["policies"].([]any)
			if len(ps) == 0 || ps[0].(map[string]any)["id"] != id {
				t.Fatalf("the new policy is not listed: %v", body)
			}
		},
		"DELETE guardrail.delete_policy": func(t *testing.T) {
			waitKey(t, f, key)
			const deny = `{"name":"Walk to delete","rules":[{"operator":"eq","field":"type","value":"deleted-walk"}]}`
			code, body := rawCall(t, f, "POST", "/api/guardrail/policies", key, deny)
			if code != 201 {
				t.Fatalf("create: %d %v", code, body)
			}
			id := body["policy"].(map[string]any)["id"].(string)
			if code, body = rawCall(t, f, "DELETE", "/api/guardrail/policies/"+id, key, ""); code != 200 ||
				body["policy"].(map[string]any)["active"] != false {
				t.Fatalf("delete: %d %v", code, body)
			}
			_, body = rawCall(t, f, "GET", "/api/guardrail/policies", key, "")
			for _, p := range body["policies"].([]any) {
				if p.(map[string]any)["id"] == id {
					t.Fatalf("the deleted policy is listed: %v", body)
				}
			}
			if _, body = rawCall(t, f, "POST", "/api/guardrail/check", key,
				`{"agent_id":"walker","proposed_action":{"type":"deleted-walk"}}`); body["decision"] != "allow" {
				t.Fatalf("the deleted policy still decides: %v", body)
			}
			if code, body = rawCall(t, f, "POST", "/api/guardrail/policies", key, deny); code != 201 {
				t.Fatalf("the deleted policy's name is not free: %d %v", code, body)
			}
		},
		"POST guardrail.check": func(t *testing.T) {
			waitKey(t, f, key)
			code, body := rawCall(t, f, "POST", "/api/guardrail/check", key, `{"agent_id":"walker","proposed_action":{"type":"walk"}}`)
			if code != 200 {
				t.Fatalf("check: %d %v", code, body)
			}
			audit := body["audit_id"]
			_, body = rawCall(t, f, "GET", "/api/guardrail/decisions?agent_id=walker", key, "")
			ds, _ := body["decisions"].([]any)
			if len(ds) == 0 || ds[0].(map[string]any)["audit_id"] != audit {
				t.Fatalf("the decision is not listed: %v", body)
			}
		},
		"POST guardrail.dry_run": func(t *testing.T) {
			waitKey(t, f, key)
			if code, body := rawCall(t, f, "POST", "/api/guardrail/check", key, `{"agent_id":"dry","proposed_action":{"type":"dry"}}`); code != 200 {
				t.Fatalf("check: %d %v", code, body)
			}
			code, body := rawCall(t, f, "POST", "/api/guardrail/policies/dry-run", key,
				`{"policy":{"rules":[{"operator":"eq","field":"type","value":"dry"}]}}`)
			if code != 200 || body["would_deny"].(float64) < 1 {
				t.Fatalf("the dry run misses the check just made: %d %v", code, body)
			}
		},
	}
}

// guardrailReads are the guardrail GET routes' paths, for null lists.
func guardrailReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return map[string]string{
		"GET guardrail.list_policies":  "/api/guardrail/policies",
		"GET guardrail.list_decisions": "/api/guardrail/decisions",
	}
}
