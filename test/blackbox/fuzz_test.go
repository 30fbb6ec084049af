package blackbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v86/webhook"
)

// postRoute is a POST route of http/server.go with the fields its body
// takes: a path in the body ("context.additional_context",
// "available_mcp_connections[0].server_url") and the JSON kind expected
// there: string, number, bool, array, object.
type postRoute struct {
	path string // {id} stands for the caller's default workspace
	// session: the route takes a session cookie, not a key
	session bool
	base    map[string]any // a valid body (execute's is delivered by polling)
	// fields maps each known field to its kind.
	fields map[string]string
	// signed: the route takes neither, but a body signed in
	// Stripe-Signature with the servers' webhook secret (stripemock_test.go)
	signed bool
	// jsonrpc: the body is a JSON-RPC message, refused in JSON-RPC's
	// terms (an error object with HTTP 200), not with invalid_field; the
	// fuzz only requires that it never fails (no 5xx)
	jsonrpc bool
}

// preferenceFields are the fields of plan's and execute's preferences.
var preferenceFields = map[string]string{
	"preferences": "object", "preferences.rigor_level": "string", "preferences.tool_scope": "string",
	"preferences.model_preference": "string", "preferences.max_budget_usd": "number", "preferences.skip_frameworks": "array",
	"preferences.skip_frameworks[0]": "string", "preferences.only_frameworks": "array", "preferences.add_frameworks": "array",
	"preferences.add_frameworks[0].name": "string", "preferences.add_frameworks[0].before_step": "number",
	"preferences.require_approval": "bool", "preferences.approval_before_step": "array", "preferences.approval_before_step[0]": "number",
	"preferences.execution": "string", "preferences.output_contract": "object", "preferences.output_contract.shape": "string",
}

// connectionFields are the fields of available_mcp_connections.
var connectionFields = map[string]string{
	"available_mcp_connections": "array", "available_mcp_connections[0].id": "string", "available_mcp_connections[0].label": "string",
	"available_mcp_connections[0].server_url": "string", "available_mcp_connections[0].capabilities": "array",
	"available_mcp_connections[0].capabilities[0]": "string",
}

func union(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// postRoutes lists every POST route of http/server.go's routes.
// TestPostRouteList fails when the source registers one this list lacks.
var postRoutes = []postRoute{
	{path: "/api/mcp/rigor", jsonrpc: true,
		base:   map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "rigor_plan", "arguments": map[string]any{"task_description": "compare our pricing with three competitors"}}},
		fields: map[string]string{"jsonrpc": "string", "id": "number", "method": "string", "params": "object", "params.name": "string", "params.arguments": "object", "params.arguments.task_description": "string"}},
	{path: "/api/mcp", jsonrpc: true,
		base:   map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "svc", "arguments": map[string]any{"action": "dedupq.stats"}}},
		fields: map[string]string{"jsonrpc": "string", "id": "number", "method": "string", "params": "object", "params.name": "string", "params.arguments": "object", "params.arguments.action": "string"}},
	{path: "/api/keys",
		base:   map[string]any{"email": "fuzz@example.com", "name": "Fuzz"},
		fields: map[string]string{"email": "string", "name": "string"}},
	{path: "/api/rigor/enhance",
		base:   map[string]any{"task_description": "compare our pricing with three competitors", "tier": "deterministic"},
		fields: map[string]string{"task_description": "string", "task_type": "string", "tier": "string"}},
	{path: "/api/rigor/plan",
		base: map[string]any{"task_description": "compare our pricing with three competitors", "task_type": "competitive_analysis",
			"context": map[string]any{"additional_context": "for the board"}},
		fields: union(preferenceFields, connectionFields, map[string]string{"task_description": "string", "task_type": "string",
			"context": "object", "context.additional_context": "string"})},
	{path: "/api/rigor/execute",
		base: map[string]any{"task_description": "compare our pricing with three competitors", "task_type": "competitive_analysis",
			"delivery": map[string]any{"method": "polling"}},
		fields: union(preferenceFields, connectionFields, map[string]string{"workflow_id": "string", "task_description": "string",
			"task_type": "string", "context": "object", "context.additional_context": "string", "delivery": "object",
			"delivery.method": "string", "delivery.webhook_url": "string", "mode": "string", "language": "string",
			"prior_workflow_id": "string", "context_fields": "array", "context_fields[0]": "string", "agent_id": "string",
			"workflow_ids": "array", "workflow_ids[0]": "string", "refresh_connections": "bool"})},
	{path: "/api/rigor/step",
		base:   map[string]any{"workflow_id": "wr_00000000000000000000000000000000", "action": "next"},
		fields: map[string]string{"workflow_id": "string", "action": "string", "feedback": "string"}},
	{path: "/api/rigor/resume",
		base:   map[string]any{"workflow_id": "wr_00000000000000000000000000000000"},
		fields: map[string]string{"workflow_id": "string", "revision_guidance": "string"}},
	{path: "/api/rigor/approve",
		base:   map[string]any{"workflow_id": "wr_00000000000000000000000000000000", "decision": "approved"},
		fields: map[string]string{"workflow_id": "string", "decision": "string", "notes": "string", "agent_id": "string"}},
	{path: "/api/rigor/workflows/actions",
		base:   map[string]any{"action": "cancel", "workflow_ids": []any{"wr_00000000000000000000000000000000"}},
		fields: map[string]string{"action": "string", "workflow_ids": "array", "workflow_ids[0]": "string", "confirm": "bool", "force": "bool"}},
	{path: "/api/auth/signup",
		base:   map[string]any{"email": "fuzz-signup@example.com", "password": "long enough", "name": "Fuzz"},
		fields: map[string]string{"email": "string", "password": "string", "name": "string"}},
	{path: "/api/auth/login",
		base:   map[string]any{"email": "fuzz-login@example.com", "password": "long enough"},
		fields: map[string]string{"email": "string", "password": "string"}},
	{path: "/api/auth/refresh",
		base:   map[string]any{"refresh_token": "not-a-token"},
		fields: map[string]string{"refresh_token": "string"}},
	{path: "/api/auth/logout", session: true, base: map[string]any{}, fields: map[string]string{}},
	{path: "/api/auth/mcp/initiate",
		base:   map[string]any{"provider": "none", "permission_mode": "read"},
		fields: map[string]string{"provider": "string", "permission_mode": "string"}},
	{path: "/api/invites/accept", session: true,
		base:   map[string]any{"token": "00000000-0000-4000-8000-000000000000.x"},
		fields: map[string]string{"token": "string"}},
	{path: "/api/invites/preview",
		base:   map[string]any{"token": "00000000-0000-4000-8000-000000000000.x"},
		fields: map[string]string{"token": "string"}},
	{path: "/api/workspaces",
		base:   map[string]any{"name": "Fuzz"},
		fields: map[string]string{"name": "string"}},
	{path: "/api/workspaces/{id}/restore", base: map[string]any{}, fields: map[string]string{}},
	{path: "/api/workspaces/{id}/members",
		base:   map[string]any{"email": "fuzz-member@example.com", "role": "viewer"},
		fields: map[string]string{"email": "string", "role": "string"}},
	{path: "/api/workspaces/{id}/api-keys",
		base:   map[string]any{"label": "fuzz", "role": "viewer"},
		fields: map[string]string{"label": "string", "role": "string"}},
	{path: "/api/workspaces/{id}/invites",
		base:   map[string]any{"role": "viewer", "max_uses": 1, "expires_in_days": 1},
		fields: map[string]string{"role": "string", "max_uses": "number", "expires_in_days": "number"}},
	{path: "/api/workspaces/{id}/folders",
		base:   map[string]any{"name": "Fuzz"},
		fields: map[string]string{"name": "string"}},
	{path: "/api/workspaces/{id}/folders/{folder_id}/workflows",
		base:   map[string]any{"workflow_ids": []any{"wr_00000000000000000000000000000000"}},
		fields: map[string]string{"workflow_ids": "array", "workflow_ids[0]": "string"}},
	// workspace webhooks: the fuzz's callers are on the free tier (403
	// tier_required); the webhook is one that does not exist
	{path: "/api/workspaces/{id}/webhooks",
		base:   map[string]any{"url": "https://example.com/hook", "events": []any{"step_failed"}, "description": "fuzz", "active": true},
		fields: map[string]string{"url": "string", "events": "array", "events[0]": "string", "description": "string", "active": "bool"}},
	{path: "/api/workspaces/{id}/webhooks/{webhook_id}/test", base: map[string]any{}, fields: map[string]string{}},
	{path: "/api/workspaces/{id}/webhooks/{webhook_id}/verify",
		base:   map[string]any{"payload": "{}", "signature": "t=1,v1=00"},
		fields: map[string]string{"payload": "string", "signature": "string"}},
	{path: "/api/workspaces/{id}/webhooks/{webhook_id}/rotate-secret",
		base:   map[string]any{"overlap_hours": 24},
		fields: map[string]string{"overlap_hours": "number"}},
	// DedupQ (spec C)
	{path: "/api/dedupq/check",
		base:   map[string]any{"content": "Summarize the fuzz report", "task_id": "fuzz-1", "hash_only": false, "similarity_threshold": 0.9},
		fields: map[string]string{"content": "string", "task_id": "string", "hash_only": "bool", "similarity_threshold": "number"}},
	{path: "/api/dedupq/complete",
		base: map[string]any{"task_id": "fuzz-1", "content": "Summarize the fuzz report", "result": map[string]any{"ok": true},
			"result_type": "json", "result_summary": "ok", "actual_cost": 0.1, "ttl_seconds": 60, "tags": []any{"fuzz"}, "hash_only": false},
		fields: map[string]string{"task_id": "string", "content": "string", "result": "object", "result_type": "string",
			"result_summary": "string", "actual_cost": "number", "ttl_seconds": "number", "tags": "array", "tags[0]": "string", "hash_only": "bool"}},
	// PitfallDB (spec C)
	{path: "/api/pitfalldb/query",
		base: map[string]any{"task_type": "web_scraping", "task_description": "scrape prices",
			"filters": map[string]any{"language": "python", "framework": "scrapy", "provider": "openai"}},
		fields: map[string]string{"task_type": "string", "task_description": "string", "filters": "object",
			"filters.language": "string", "filters.framework": "string", "filters.provider": "string"}},
	{path: "/api/pitfalldb/report",
		base: map[string]any{"task_type": "fuzz_testing", "task_description": "fuzz the report route", "failure": map[string]any{
			"error_type": "FuzzError", "error_message": "fuzzed", "root_cause": "fuzz", "fix_applied": "none", "fix_worked": false,
			"language": "go", "framework": "none", "provider": "none"}},
		fields: map[string]string{"task_type": "string", "task_description": "string", "failure": "object",
			"failure.error_type": "string", "failure.error_message": "string", "failure.root_cause": "string",
			"failure.fix_applied": "string", "failure.fix_worked": "bool", "failure.language": "string",
			"failure.framework": "string", "failure.provider": "string"}},
	// BurnRate (spec C): a step's label is a string or a number, so it
	// is not fuzzed by kind
	{path: "/api/burnrate/estimate",
		base: map[string]any{"budget_limit": 1, "plan": []any{map[string]any{"step": 1, "action": "summarize", "provider": "openai",
			"model": "gpt-4o", "estimated_input_tokens": 1000, "estimated_output_tokens": 200, "cache_read_tokens": 0,
			"search_calls": 1, "prompt_length": "short", "prompt_text_sample": "Summarize this."}}},
		fields: union(burnratePlanFields, map[string]string{"budget_limit": "number"})},
	{path: "/api/burnrate/track",
		base: map[string]any{"provider": "openai", "model": "gpt-4o", "actual_cost": 0.01, "task_id": "fuzz-1",
			"input_tokens": 1000, "output_tokens": 100, "cache_read_tokens": 0},
		fields: map[string]string{"provider": "string", "model": "string", "actual_cost": "number", "task_id": "string",
			"input_tokens": "number", "output_tokens": "number", "cache_read_tokens": "number"}},
	{path: "/api/burnrate/optimize",
		base: map[string]any{"max_suggestions": 3, "target_budget": 0.5, "plan": []any{map[string]any{"step": "draft",
			"provider": "anthropic", "model": "claude-opus-4-1", "estimated_input_tokens": 5000, "estimated_output_tokens": 2000}}},
		fields: union(burnratePlanFields, map[string]string{"max_suggestions": "number", "target_budget": "number"})},
	// QualityGate (spec C)
	{path: "/api/qualitygate/validate",
		base: map[string]any{"output": "{\"name\": \"fuzz\"}", "directives": []any{"must include fuzz", map[string]any{"type": "max_length", "value": "100 words", "name": "short"}},
			"check_types": []any{"directive_compliance"}, "schema": map[string]any{"type": "object"}, "language": "json",
			"override": false, "override_reason": "fuzz"},
		fields: map[string]string{"output": "string", "directives": "array", "directives[0]": "string", "directives[1]": "object",
			"directives[1].type": "string", "directives[1].value": "string", "directives[1].name": "string",
			"check_types": "array", "check_types[0]": "string", "schema": "object", "language": "string",
			"override": "bool", "override_reason": "string"}},
	// GuardRail (spec C): a policy's name is taken after its first
	// creation (409), which the fuzz answers as well
	{path: "/api/guardrail/check",
		base: map[string]any{"agent_id": "fuzz", "proposed_action": map[string]any{"type": "purchase", "cost_estimate": 5,
			"description": "fuzz", "tags": []any{"fuzz"}}},
		fields: map[string]string{"agent_id": "string", "proposed_action": "object", "proposed_action.type": "string",
			"proposed_action.cost_estimate": "number", "proposed_action.description": "string",
			"proposed_action.tags": "array", "proposed_action.tags[0]": "string"}},
	{path: "/api/guardrail/policies",
		base: map[string]any{"name": "fuzz", "description": "fuzz", "priority": 1, "effect": "deny", "action_types": []any{"purchase"},
			"rules": []any{map[string]any{"operator": "gt", "field": "cost_estimate", "value": 100},
				map[string]any{"operator": "or", "rules": []any{map[string]any{"operator": "contains", "field": "tags", "value": "x"}}}},
			"tests": []any{map[string]any{"name": "cheap", "proposed_action": map[string]any{"type": "purchase"}, "expect": "allow"}}},
		fields: guardrailPolicyFields},
	{path: "/api/guardrail/policies/dry-run",
		base: map[string]any{"days": 7, "policy": map[string]any{"name": "fuzz", "rules": []any{
			map[string]any{"operator": "eq", "field": "type", "value": "purchase"}}}},
		fields: map[string]string{"days": "number", "policy": "object", "policy.name": "string", "policy.rules": "array",
			"policy.rules[0]": "object", "policy.rules[0].operator": "string", "policy.rules[0].field": "string"}},
	{path: "/api/billing/checkout",
		base:   map[string]any{"pack": 10},
		fields: map[string]string{"pack": "number", "custom_amount": "number"}},
	{path: "/api/billing/subscribe",
		base:   map[string]any{"tier": "pro", "interval": "monthly"},
		fields: map[string]string{"tier": "string", "interval": "string"}},
	{path: "/api/billing/portal", base: map[string]any{}, fields: map[string]string{}},
	// data deletion: the caller's request, answered again within the window
	{path: "/api/data/delete-request", base: map[string]any{}, fields: map[string]string{}},
	// the processor's webhook: every body signed, so that it is read (an
	// unsigned one is 400 invalid_signature before anything else); the
	// event is a purchase of an organization the server does not have
	// context-server connections: the fuzz's callers are owners (creations
	// pile up to the limit, 409); the tested connection does not exist
	{path: "/api/rigor/connections",
		base: map[string]any{"display_name": "fuzz", "label": "Fuzz", "scope": "org", "server_url": "https://mcp.example.com/mcp",
			"auth_type": "bearer_token", "transport": "streamable-http", "auth_credential": map[string]any{"token": "fuzz-token"}},
		fields: map[string]string{"display_name": "string", "label": "string", "scope": "string", "workspace_id": "string", "server_url": "string",
			"auth_type": "string", "transport": "string", "provider": "string", "auth_credential": "object", "auth_credential.token": "string",
			"auth_credential.key": "string", "auth_credential.header": "string", "auth_credential.access_token": "string"}},
	{path: "/api/rigor/connections/{connection_id}/test", base: map[string]any{}, fields: map[string]string{}},
	// (its "object" is not fuzzed: stripe-go reads only an "event")
	{path: "/api/billing/webhook", signed: true,
		base: map[string]any{"id": "evt_fuzz", "object": "event", "type": "checkout.session.completed", "created": 1700000000,
			"data": map[string]any{"object": map[string]any{"id": "cs_fuzz", "object": "checkout.session", "mode": "payment",
				"payment_status": "paid", "customer": "cus_fuzz",
				"metadata": map[string]any{"org_id": "00000000-0000-4000-8000-000000000000", "credits": "10000"}}}},
		fields: map[string]string{"id": "string", "type": "string", "created": "number", "data": "object",
			"data.object": "object", "data.object.id": "string", "data.object.mode": "string", "data.object.payment_status": "string",
			"data.object.customer": "string", "data.object.metadata": "object", "data.object.metadata.org_id": "string",
			"data.object.metadata.credits": "string"}},
}

// fill puts who's workspace and folder into path's {id} and {folder_id},
// and a webhook and a connection that do not exist into {webhook_id} and
// {connection_id}.
func (who caller) fill(path string) string {
	return strings.NewReplacer("{id}", who.workspace, "{folder_id}", who.folder,
		"{webhook_id}", "00000000-0000-4000-8000-000000000000", "{connection_id}", "00000000-0000-4000-8000-000000000000").Replace(path)
}

// caller is who sends a fuzzed request: an organization's owner key, or a
// signed-up user's session.
type caller struct {
	key, cookie, workspace, folder string
	signed                         bool // sign the body (postRoute.signed)
}

// newCaller signs up a fresh caller for route.
func (s *server) newCaller(t *testing.T, route postRoute) caller {
	t.Helper()
	if route.signed {
		return caller{signed: true}
	}
	if route.session {
		p := s.signUpPerson(t, "fuzz")
		return caller{cookie: "svc_session=" + p.Access, workspace: p.WorkspaceID}
	}
	a := s.signup(t, nil)
	return caller{key: a.Key, workspace: a.WorkspaceID, folder: s.folder(t, a)}
}

// folder creates a folder in a's default workspace and returns its id.
func (s *server) folder(t *testing.T, a account) string {
	t.Helper()
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + a.WorkspaceID + "/folders", Key: a.Key,
		Body: map[string]any{"name": "Fuzz " + randomHex(4)}})
	wantStatus(t, res, http.StatusCreated)
	return str(t, res.Body, "id")
}

// TestPostRouteList reads the routes http registers (every non-test file
// of package httpapi, parsed) and requires its POST routes to be exactly
// postRoutes, so a new POST route cannot escape the fuzz below; then it
// requires each listed route to exist on a running server (neither 404 nor
// 405).
func TestPostRouteList(t *testing.T) {
	t.Parallel()
	registered := registeredPostRoutes(t)
	listed := map[string]bool{}
	for _, r := range postRoutes {
		listed[r.path] = true
	}
	for _, p := range registered {
		if !listed[p] {
			t.Errorf("http registers POST %s, which postRoutes (fuzz_test.go) does not list: add it with its fields", p)
		}
		delete(listed, p)
	}
	for p := range listed {
		t.Errorf("postRoutes lists POST %s, which http does not register", p)
	}

	s := sharedServer(t)
	a := s.signup(t, nil)
	folderID := s.folder(t, a)
	for _, r := range postRoutes {
		who := caller{key: a.Key, workspace: a.WorkspaceID, folder: folderID}
		res := s.do(t, req{Method: http.MethodPost, Path: who.fill(r.path), Key: a.Key, XFF: nextIP(), Body: "[]"})
		if res.Status == http.StatusNotFound || res.Status == http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, the route does not exist: %s", r.path, res.Status, res.Raw)
		}
	}
	// and the check can tell: an unknown route is 404, a GET-only one 405
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/no-such-route", Key: a.Key, Body: "{}"}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/billing/balance", Key: a.Key, Body: "{}"}), http.StatusMethodNotAllowed, "method_not_allowed")
}

// registeredPostRoutes parses ../../http and returns the paths of the
// routes registered for POST: X.Handle(path, …).Methods(…POST…) on the
// router or a PathPrefix subrouter, and s.RigorHandle(path, POST, …).
func registeredPostRoutes(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "http")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	str := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(lit.Value)
		return v, err == nil
	}
	isPost := func(e ast.Expr) bool {
		if v, ok := str(e); ok {
			return v == http.MethodPost
		}
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "MethodPost"
	}
	var src func(e ast.Expr) string // the text of a receiver: r, s.rigor
	src = func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return src(x.X) + "." + x.Sel.Name
		default:
			return fmt.Sprintf("%T", e)
		}
	}
	// prefixes of subrouters: s.rigor = r.PathPrefix("/api/rigor").Subrouter()
	prefixes := map[string]string{"r": "", "s.router": ""}
	var out []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
				if sub, ok := as.Rhs[0].(*ast.CallExpr); ok {
					if sel, ok := sub.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Subrouter" {
						if pp, ok := sel.X.(*ast.CallExpr); ok {
							if ppSel, ok := pp.Fun.(*ast.SelectorExpr); ok && ppSel.Sel.Name == "PathPrefix" && len(pp.Args) == 1 {
								if p, ok := str(pp.Args[0]); ok {
									prefixes[src(as.Lhs[0])] = prefixes[src(ppSel.X)] + p
								}
							}
						}
					}
				}
			}
			return true
		})
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			// the suite's operations: suiteOp{method: http.MethodPost,
			// path: "/api/dedupq/check", ...} (http/suite.go registers them)
			if lit, ok := n.(*ast.CompositeLit); ok {
				// []suiteOp{{...}, ...} elides the elements' type
				if arr, ok := lit.Type.(*ast.ArrayType); ok {
					if id, ok := arr.Elt.(*ast.Ident); ok && id.Name == "suiteOp" {
						for _, el := range lit.Elts {
							if inner, ok := el.(*ast.CompositeLit); ok && inner.Type == nil {
								inner.Type = &ast.Ident{Name: "suiteOp"}
							}
						}
					}
					return true
				}
				if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "suiteOp" {
					var path string
					post := false
					for _, el := range lit.Elts {
						kv, ok := el.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						switch k, _ := kv.Key.(*ast.Ident); k.Name {
						case "method":
							post = isPost(kv.Value)
						case "path":
							path, _ = str(kv.Value)
						}
					}
					if post && path == "" {
						t.Errorf("%s: a POST suiteOp whose path is not a literal", fset.Position(lit.Pos()))
					} else if post {
						out = append(out, path)
					}
				}
				return true
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			// workspaceRoutes' helper: ws(path, method, name, floor, handler)
			// registers /api/workspaces/{id} + path
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "ws" && len(call.Args) >= 2 && isPost(call.Args[1]) {
				p, ok := str(call.Args[0])
				if !ok {
					t.Errorf("%s: ws with a path that is not a literal", fset.Position(call.Pos()))
					return true
				}
				out = append(out, "/api/workspaces/{id}"+p)
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "RigorHandle":
				if len(call.Args) >= 2 && isPost(call.Args[1]) {
					p, ok := str(call.Args[0])
					if !ok {
						t.Errorf("%s: RigorHandle with a path that is not a literal", fset.Position(call.Pos()))
						return true
					}
					out = append(out, prefixes["s.rigor"]+p)
				}
			case "Methods":
				post := false
				for _, a := range call.Args {
					post = post || isPost(a)
				}
				if !post {
					return true
				}
				h, ok := sel.X.(*ast.CallExpr)
				hSel, ok2 := h.Fun.(*ast.SelectorExpr)
				if !ok || !ok2 || (hSel.Sel.Name != "Handle" && hSel.Sel.Name != "HandleFunc") || len(h.Args) == 0 {
					t.Errorf("%s: a POST registration this test cannot read", fset.Position(call.Pos()))
					return true
				}
				p, ok := str(h.Args[0])
				prefix, known := prefixes[src(hSel.X)]
				if !ok || !known {
					t.Errorf("%s: a POST registration on %s this test cannot read", fset.Position(call.Pos()), src(hSel.X))
					return true
				}
				out = append(out, prefix+p)
			}
			return true
		})
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("found no POST route in ../../http: the parser no longer understands the routes")
	}
	return out
}

// TestFuzzPostRoutes sends every POST route generated bodies: each known
// field with each wrong type; NUL, bytes that are not UTF-8 and unpaired
// surrogates in each string field and in a key (400 invalid_field naming
// the field); a body over the limit (413); deep nesting; empty and non-JSON
// bodies; seeded random corruptions of a valid body. Every answer must be
// below 500, every 4xx the error envelope with a code, and the server must
// still answer /api/health afterwards.
func TestFuzzPostRoutes(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	seed := uint64(20261124)
	if v := os.Getenv("BLACKBOX_FUZZ_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (BLACKBOX_FUZZ_SEED)", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	deadline := time.Now().Add(60 * time.Second)
	total := 0
	for _, route := range postRoutes {
		// a fresh org every 100 requests: the per-minute limit (120) is per org
		var who caller
		sent := 0
		counts := map[int]int{}
		send := func(what string, body []byte) *response {
			total++
			if time.Now().After(deadline) {
				t.Fatalf("the fuzz ran over its time budget at %s %s", route.path, what)
			}
			if sent%100 == 0 {
				who = s.newCaller(t, route)
			}
			sent++
			res := s.fuzzPost(t, who.fill(route.path), who, body)
			counts[res.Status]++
			if res.Status >= 500 {
				t.Errorf("POST %s, %s: %d %s\nbody: %.300q", route.path, what, res.Status, res.Raw, body)
			}
			return res
		}
		fields := sortedFields(route.fields)

		// wrong types for each known field
		for _, f := range fields {
			for _, v := range wrongTypes(route.fields[f]) {
				doc := cloneDoc(route.base)
				setPath(doc, f, v)
				send(fmt.Sprintf("%s as %T", f, v), mustJSON(t, doc))
			}
		}
		// bad text in each string field: refused, naming the field
		bad := []struct{ name, raw string }{
			{"NUL", `\u0000`}, {"byte 0xff", "\xff"}, {"overlong /", "\xc0\xaf"}, {"UTF-8 surrogate", "\xed\xa0\x80"},
			{"lone high surrogate", `\ud800`}, {"lone low surrogate", `\udfff x`}, {"truncated", "\xe2\x82"},
		}
		for _, f := range fields {
			if route.fields[f] != "string" {
				continue
			}
			for _, b := range bad {
				doc := cloneDoc(route.base)
				setPath(doc, f, placeholder)
				res := send(f+" with "+b.name, withText(t, doc, "ok "+b.raw+" text"))
				if !route.jsonrpc {
					wantInvalidField(t, res, route.path+" "+f+" with "+b.name, f)
				}
			}
		}
		for _, b := range bad[:3] {
			doc := cloneDoc(route.base)
			doc[placeholder] = 1
			res := send("a key with "+b.name, withText(t, doc, "k"+b.raw))
			if !route.jsonrpc && (res.Status != http.StatusBadRequest || errCode(res) != "invalid_field") {
				t.Errorf("POST %s, a key with %s: %d %s, want 400 invalid_field", route.path, b.name, res.Status, res.Raw)
			}
		}
		// over the body limit
		big := cloneDoc(route.base)
		big["padding"] = strings.Repeat("x", 1<<20)
		if res := send("over the body limit", mustJSON(t, big)); res.Status != http.StatusRequestEntityTooLarge || errCode(res) != "body_too_large" {
			t.Errorf("POST %s over the body limit: %d %s, want 413 body_too_large", route.path, res.Status, res.Raw)
		}
		// deep nesting, in a known field and in an unknown one
		for _, depth := range []int{64, 10_001, 100_000} {
			for _, open := range []string{"[", `{"a":`} {
				closing := "]"
				if open != "[" {
					closing = "}"
				}
				nested := strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth)
				targets := []string{"unknown_field"}
				if len(fields) > 0 {
					targets = append(targets, fields[0])
				}
				for _, f := range targets {
					send(fmt.Sprintf("%s nested %d deep in %s", open, depth, f),
						[]byte(`{"`+f+`":`+nested+`}`))
				}
			}
		}
		// empty and not JSON
		for _, body := range []string{"", " \n", "null", "[]", `"x"`, "7", "{", `{"a":`, "{}{}", `{"a":1}]`, `{"a":1}}`,
			"not json", "\x00", "\xff\xfe{}", "{\x00}", `{'a':1}`, `{"a":01}`, `{"a":NaN}`, "\ufeff{}"} {
			send(fmt.Sprintf("body %q", body), []byte(body))
		}
		// seeded random corruptions of the valid body
		valid := mustJSON(t, route.base)
		for range 25 {
			send("corrupted", corrupt(rng, valid))
		}
		t.Logf("POST %s: answers by status %v", route.path, counts)
	}
	t.Logf("%d requests", total)
	res := s.do(t, req{Path: "/api/health"})
	wantStatus(t, res, http.StatusOK)
	if strings.Contains(s.stderr.String(), "panic in handler") {
		t.Error("the server log records a panic in a handler")
	}
}

// TestTextRefusals: NUL (U+0000) and text that is not UTF-8, in the
// fields PostgreSQL used to refuse with a 500 and in query parameters and
// path variables, are 400 invalid_field naming the field, and nothing of
// such a request is stored.
func TestTextRefusals(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	s.setTier(t, a, "pro") // POST /step reaches its command on a paid tier only
	before := s.settledEvents(t, a)

	task := "compare our pricing with three competitors for the board"
	conn := func(url string) []any {
		return []any{map[string]any{"id": "c1", "label": "Docs", "server_url": url, "capabilities": []any{"resources"}}}
	}
	for _, path := range []string{"/api/rigor/plan", "/api/rigor/execute"} {
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"task_description", map[string]any{"task_description": "compare our pricing\x00 with three competitors"}},
			{"context.additional_context", map[string]any{"task_description": task, "context": map[string]any{"additional_context": "a\x00b"}}},
			{"available_mcp_connections[0].server_url", map[string]any{"task_description": task, "available_mcp_connections": conn("https://a\x00.example.com/sse")}},
			{"preferences.skip_frameworks[0]", map[string]any{"task_description": task, "preferences": map[string]any{"skip_frameworks": []any{"SWOT\x00"}}}},
		} {
			c.body["delivery"] = map[string]any{"method": "polling"}
			res := s.do(t, req{Method: http.MethodPost, Path: path, Key: a.Key, Body: c.body}) // json.Marshal writes \u0000
			wantInvalidField(t, res, path+" NUL in "+c.field, c.field)
		}
		// bytes that are not UTF-8, and an unpaired surrogate, are refused, not replaced with U+FFFD
		for _, c := range []struct{ field, body string }{
			{"task_description", "{\"task_description\":\"compare our pricing \xff with three competitors\",\"delivery\":{\"method\":\"polling\"}}"},
			{"context.additional_context", "{\"task_description\":\"" + task + "\",\"context\":{\"additional_context\":\"caf\xe9\"},\"delivery\":{\"method\":\"polling\"}}"},
			{"available_mcp_connections[0].server_url", "{\"task_description\":\"" + task + "\",\"available_mcp_connections\":[{\"id\":\"c1\",\"server_url\":\"https://\xc0\xae.example.com\"}]}"},
			{"preferences.rigor_level", `{"task_description":"` + task + `","preferences":{"rigor_level":"\ud800"}}`},
		} {
			res := s.do(t, req{Method: http.MethodPost, Path: path, Key: a.Key, Body: c.body})
			wantInvalidField(t, res, path+" invalid text in "+c.field, c.field)
		}
	}
	for _, body := range []string{`{"workflow_id":"\u0000","action":"next"}`, "{\"workflow_id\":\"wr_\xff\",\"action\":\"next\"}"} {
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/step", Key: a.Key, Body: body})
		wantInvalidField(t, res, "/api/rigor/step "+body, "workflow_id")
	}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP(), Body: `{"name":"Acme\u0000"}`})
	wantInvalidField(t, res, "/api/keys NUL in name", "name")

	// query parameters and path variables
	cursor := func(id string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(time.Now().UnixMicro(), 10) + "." + id))
	}
	for _, c := range []struct{ path, param string }{
		{"/api/rigor/status/%00", "workflow_id"},
		{"/api/rigor/status/wr_%FF", "workflow_id"},
		{"/api/rigor/lineage/%00", "workflow_id"},
		{"/api/rigor/workflows?task_type=%00", "task_type"},
		{"/api/rigor/workflows?q=caf%E9", "q"},
		{"/api/rigor/workflows?status=failed&cursor=" + cursor("wr_\x00"), "cursor"},
		{"/api/rigor/workflows?cursor=" + cursor("wr_\xff"), "cursor"},
		{"/api/rigor/workflows?created_after=2026-03-01%00", "created_after"},
		{"/api/rigor/webhooks/deliveries?workflow_id=%00", "workflow_id"},
		{"/api/rigor/usage-summary?from=%FF", "from"},
		{"/api/rigor/costs?group_by=%00", "group_by"},
		{"/api/rigor/templates?task_type=%00", "task_type"},
		{"/api/keys/verify-email?token=%00", "token"},
		{"/api/rigor/workflows?%00=1", `\u0000`},
	} {
		res := s.do(t, req{Path: c.path, Key: a.Key})
		wantInvalidField(t, res, "GET "+c.path, c.param)
	}
	// valid text, escaped or not, still passes
	res = s.do(t, req{Path: "/api/rigor/workflows?q=" + url.QueryEscape("café ü"), Key: a.Key})
	wantStatus(t, res, http.StatusOK)

	// nothing of the refused requests was stored: only the first barrier's
	// stream is new
	seen := map[string]bool{}
	for _, e := range before {
		seen[fmt.Sprint(e.StreamID, "@", e.Version)] = true
	}
	streams := map[string]bool{}
	for _, e := range s.settledEvents(t, a) {
		if !seen[fmt.Sprint(e.StreamID, "@", e.Version)] {
			streams[e.StreamID] = true
		}
	}
	if len(streams) > 1 {
		t.Errorf("refused requests stored events: new streams %v", streams)
	}
}

// ---------------------------------------------------------------------------

// fuzzPost posts body to path with key (and a fresh client address, for
// signups) and checks what every answer must satisfy (checkCommon). An
// event stream (execute's default delivery) is closed once its headers
// arrived.
func (s *server) fuzzPost(t *testing.T, path string, who caller, body []byte) *response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if who.key != "" {
		hr.Header.Set("x-api-key", who.key)
	}
	if who.cookie != "" {
		hr.Header.Set("Cookie", who.cookie)
	}
	if who.signed {
		hr.Header.Set("Stripe-Signature", webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: stripeWebhookSecret}).Header)
	}
	hr.Header.Set("X-Forwarded-For", nextIP())
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("POST %s: %v (body %.200q)", path, err, body)
	}
	defer resp.Body.Close()
	out := &response{Status: resp.StatusCode, Header: resp.Header, RequestID: resp.Header.Get("X-Request-Id")}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return out
	}
	if out.Raw, err = io.ReadAll(resp.Body); err != nil {
		t.Fatalf("POST %s: reading the answer: %v", path, err)
	}
	if b := bytes.TrimSpace(out.Raw); len(b) > 0 && b[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&out.Body); err != nil {
			t.Errorf("POST %s: %d with a body that is not JSON: %v: %.300q", path, out.Status, err, out.Raw)
		}
	}
	checkCommon(t, req{Method: http.MethodPost, Path: path}, out)
	return out
}

func errCode(res *response) string {
	if c, ok := res.Body["error"].(string); ok {
		// spec C's envelope names the same refusals its own way
		if same, ok := map[string]string{"invalid_request": "invalid_field", "payload_too_large": "body_too_large"}[c]; ok {
			return same
		}
		return c
	}
	env, _ := res.Body["error"].(map[string]any)
	c, _ := env["code"].(string)
	return c
}

// wantInvalidField requires 400 invalid_field with details.field = field.
func wantInvalidField(t *testing.T, res *response, what, field string) {
	t.Helper()
	if _, suite := res.Body["error"].(string); suite { // spec C: the message names the field
		if msg, _ := res.Body["message"].(string); res.Status != http.StatusBadRequest || errCode(res) != "invalid_field" || !strings.Contains(msg, field) {
			t.Errorf("%s: %d %s, want 400 invalid_request naming %q", what, res.Status, res.Raw, field)
		}
		return
	}
	env, _ := res.Body["error"].(map[string]any)
	details, _ := env["details"].(map[string]any)
	if res.Status != http.StatusBadRequest || errCode(res) != "invalid_field" || details["field"] != field {
		t.Errorf("%s: %d %s, want 400 invalid_field naming %q", what, res.Status, res.Raw, field)
	}
}

// placeholder marks where withText and withKey put raw bytes.
const placeholder = "FUZZ-PLACEHOLDER-7f3a"

// withText encodes doc with the placeholder string (a value or a key)
// replaced by text, raw: escapes in text stay escapes, other bytes go in as
// they are.
func withText(t *testing.T, doc map[string]any, text string) []byte {
	t.Helper()
	raw := mustJSON(t, doc)
	if !bytes.Contains(raw, []byte(`"`+placeholder+`"`)) {
		t.Fatalf("no placeholder in %s", raw)
	}
	return bytes.ReplaceAll(raw, []byte(`"`+placeholder+`"`), []byte(`"`+text+`"`))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func sortedFields(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wrongTypes are values of every JSON kind but kind.
func wrongTypes(kind string) []any {
	all := map[string]any{"string": "7", "number": 7.5, "bool": true, "array": []any{1, "x"}, "object": map[string]any{"a": 1}}
	var out []any
	for _, k := range []string{"string", "number", "bool", "array", "object"} {
		if k != kind {
			out = append(out, all[k])
		}
	}
	return out
}

// cloneDoc deep-copies a JSON document.
func cloneDoc(doc map[string]any) map[string]any {
	raw, _ := json.Marshal(doc)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// setPath sets the field at path ("a.b", "a[0].b", "a[0]") of doc to v,
// making the objects and one-element arrays on the way.
func setPath(doc map[string]any, path string, v any) {
	segs := strings.Split(path, ".")
	cur := doc
	for i, seg := range segs {
		last := i == len(segs)-1
		name, indexed := strings.CutSuffix(seg, "[0]")
		if !indexed {
			if last {
				cur[name] = v
				return
			}
			next, ok := cur[name].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[name] = next
			}
			cur = next
			continue
		}
		if last {
			cur[name] = []any{v}
			return
		}
		arr, _ := cur[name].([]any)
		var next map[string]any
		if len(arr) > 0 {
			next, _ = arr[0].(map[string]any)
		}
		if next == nil {
			next = map[string]any{}
			cur[name] = []any{next}
		}
		cur = next
	}
}

// corrupt applies one to four random edits to a copy of valid: a byte
// changed, inserted or deleted, a span repeated, or a NUL escape or a
// stray byte 0xff put in.
func corrupt(rng *rand.Rand, valid []byte) []byte {
	b := append([]byte(nil), valid...)
	for range 1 + rng.IntN(4) {
		if len(b) == 0 {
			b = append(b, '{')
		}
		i := rng.IntN(len(b))
		switch rng.IntN(6) {
		case 0:
			b[i] = byte(rng.IntN(256))
		case 1:
			b = append(b[:i], append([]byte{byte(rng.IntN(256))}, b[i:]...)...)
		case 2:
			b = append(b[:i], b[i+1:]...)
		case 3:
			j := i + rng.IntN(len(b)-i)
			b = append(b[:j], append(append([]byte(nil), b[i:j]...), b[j:]...)...)
		case 4:
			b = append(b[:i], append([]byte(`\u0000`), b[i:]...)...)
		case 5:
			b = append(b[:i], append([]byte{0xff}, b[i:]...)...)
		}
	}
	return b
}
