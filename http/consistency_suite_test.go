package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// The suite's operations (spec C) in the route-coverage tests: each
// product's walks (every POST, and what must read it back) and reads (its
// GET routes, for null lists) live in consistency_suite_<product>_test.go.

// suiteWalks are the walks of every suite product's write routes.
func suiteWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	out := map[string]func(t *testing.T){
		// a plan made through the workflow MCP server is read back at once
		"POST mcp.rigor": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			call := map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call",
				"params": map[string]any{"name": "rigor_plan", "arguments": map[string]any{"task_description": "compare our pricing with three competitors"}}}
			code, body := f.call(t, "POST", "/api/mcp/rigor", key, call)
			result, _ := body["result"].(map[string]any)
			plan, _ := result["structuredContent"].(map[string]any)["plan"].(map[string]any)
			id, _ := plan["workflow_id"].(string)
			if code != 200 || id == "" {
				t.Fatalf("rigor_plan: %d %v", code, body)
			}
			if code, body := f.call(t, "GET", "/api/rigor/status/"+id, key, nil); code != 200 {
				t.Errorf("status right after a plan through the workflow MCP server: %d %v", code, body)
			}
		},
		// a tool call through the tool server is read back over REST at once
		"POST mcp.call": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			call := map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
				"params": map[string]any{"name": "svc", "arguments": map[string]any{"action": "dedupq.check", "params": map[string]any{"content": "walk the tool server"}}}}
			if code, body := f.call(t, "POST", "/api/mcp", key, call); code != 200 || body["result"] == nil {
				t.Fatalf("tools/call: %d %v", code, body)
			}
			if code, body := f.call(t, "GET", "/api/dedupq/stats", key, nil); code != 200 || body["total_checks"] != float64(1) {
				t.Errorf("stats right after a check through the tool server: %d %v", code, body)
			}
		},
	}
	for _, ws := range []map[string]func(t *testing.T){dedupqWalks(t, f), burnrateWalks(t, f), qualitygateWalks(t, f),
		guardrailWalks(t, f), pitfalldbWalks(t, f)} {
		for name, w := range ws {
			out[name] = w
		}
	}
	return out
}

// suiteReads are the paths of every suite product's GET routes, read with
// key (a fresh organization's owner) for null lists, by route ("METHOD
// name").
func suiteReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	out := map[string]string{"GET mcp.manifest": "/api/mcp"}
	for _, rs := range []map[string]string{dedupqReads(t, f, key), burnrateReads(t, f, key), qualitygateReads(t, f, key),
		guardrailReads(t, f, key), pitfalldbReads(t, f, key)} {
		for name, path := range rs {
			out[name] = path
		}
	}
	return out
}
