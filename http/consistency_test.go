package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// call sends a JSON body (nil for none) with key and decodes the answer,
// checking that no list in it is null.
func (f *fixture) call(t *testing.T, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	code, out, _ := f.exchange(t, method, path, body, func(r *http.Request) {
		if key != "" {
			r.Header.Set("x-api-key", key)
		}
	})
	return code, out
}

// nullable are the response keys whose value may be null: scalars and
// objects spec A and B show as nullable. Any other null is a list (or an
// object) a handler forgot, and fails the test.
var nullable = map[string]bool{
	"quality_score": true, "credits_remaining": true, "started_at": true, "completed_at": true, "error": true,
	"cursor": true, "limit": true, "remaining": true, "halted_at_step": true, "revision_guidance": true,
	"generated_title": true, "task_excerpt": true, "credits_saved_by_halt": true, "status_code": true,
	"next_attempt_at": true, "halt_reason": true, "prior_workflow_id": true, "deliverable": true,
	"quality_review": true, "current_step_name": true, "estimated_completion": true, "last_error": true,
	"delivered_at": true, "model": true, "approval_status": true, "pending_approval_step": true,
	"template_name_i18n": true, "description_i18n": true, // spec A: null or a map
	// spec B
	"archived_at": true, "llm_policy": true, "enforcement_status": true, "last_used_at": true, "max_uses": true,
	"uses_remaining": true, "invite_id": true, "expires_at": true, "next_cursor": true, "monthly_credit_budget": true,
	"user_id": true, "email": true, // GET /api/user/me with a key
	"updated_at": true, // GET .../llm-policy of a workspace that never had one
	// GET /api/billing/auto-reload never configured
	"threshold": true, "amount": true, "monthly_limit": true, "reset_at": true, "last_reload_at": true,
	// a notification unread, or not about a workflow
	"read_at": true, "workflow_id": true,
	// a deletion request not confirmed, or not finished yet
	"soft_deleted_at": true, "hard_deleted_at": true,
	// a webhook's secret rotated without overlap
	"previous_secret_expires_at": true,
	// a webhook delivery never answered; an invite an API key created (its preview)
	"last_status_code": true, "invited_by": true,
	// a connection at org scope, never tested, of a provider outside the registry
	"workspace_id": true, "capabilities": true, "last_tested_at": true, "provider_metadata": true,
	// spec C, GuardRail: a decision no policy made, or one that failed open
	"policy_id": true, "policy_name": true, "audit_id": true,
}

func noNullLists(t *testing.T, where, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil && !nullable[k] {
				t.Errorf("%s: %s.%s is null", where, path, k)
			}
			noNullLists(t, where, path+"."+k, e)
		}
	case []any:
		for _, e := range x {
			noNullLists(t, where, path+"[]", e)
		}
	}
}

// listed returns the status of workflow id in GET /api/rigor/workflows,
// "" when it is not listed.
func (f *fixture) listed(t *testing.T, key, id string) string {
	t.Helper()
	_, body := f.call(t, "GET", "/api/rigor/workflows?limit=100", key, nil)
	list, _ := body["workflows"].([]any)
	for _, w := range list {
		if m := w.(map[string]any); m["workflow_id"] == id {
			return m["status"].(string)
		}
	}
	return ""
}

func (f *fixture) balance(t *testing.T, key string) float64 {
	t.Helper()
	code, body := f.call(t, "GET", "/api/billing/balance", key, nil)
	b, ok := body["balance"].(float64)
	if code != 200 || !ok {
		t.Fatalf("balance: %d %v", code, body)
	}
	return b
}

// appendRun appends events to workflow id's stream (a state the test
// server's absent worker would have reached) and waits until the listing
// shows want.
func (f *fixture) appendRun(t *testing.T, key, orgID, id, want string, data ...event.Data) {
	t.Helper()
	wf, err := commands.NewRepositories(store).Workflows.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	events := make([]event.New, len(data))
	for i, d := range data {
		events[i] = event.New{Data: d, Metadata: event.Metadata{OrgID: orgID}}
	}
	if _, err := store.Append(context.Background(), workflow.Stream(id), wf.Version(), events...); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); f.listed(t, key, id) != want; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("setup: %s never listed %s", id, want)
		}
	}
}

// TestEveryWriteIsReadBack walks every route that writes and, right after
// each write, reads every read model its events feed: the answer must
// already reflect the write. A write route the walk does not know fails
// the test, so a new route cannot be added without its check. Every
// answer is also checked for null lists.
func TestEveryWriteIsReadBack(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	ctx := context.Background()

	// an org on the Pro tier (interactive steps), its key unused until now
	repos := commands.NewRepositories(store)
	signup, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: "rw-" + workflow.NewID() + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	tier, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: signup.OrgID, Tier: org.Enterprise, Source: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, tier.Position); err != nil { // the key's first use caches the tier
		t.Fatal(err)
	}
	key, orgID := signup.Key.Raw, signup.OrgID
	waitKey(t, f, key)
	plan := func(desc string) string {
		t.Helper()
		code, body := f.call(t, "POST", "/api/rigor/plan", key, map[string]any{"task_description": desc})
		if code != 200 {
			t.Fatalf("plan: %d %v", code, body)
		}
		return body["plan"].(map[string]any)["workflow_id"].(string)
	}
	gated := func(desc string) string {
		t.Helper()
		code, body := f.call(t, "POST", "/api/rigor/plan", key, map[string]any{"task_description": desc,
			"preferences": map[string]any{"approval_before_step": []int{1}}})
		if code != 200 {
			t.Fatalf("plan: %d %v", code, body)
		}
		return body["plan"].(map[string]any)["workflow_id"].(string)
	}

	walk := map[string]func(t *testing.T){
		"POST keys.create": func(t *testing.T) {
			code, body := f.call(t, "POST", "/api/keys", "", map[string]any{"name": "Read back"})
			if code != 200 && code != 201 {
				t.Fatalf("signup: %d %v", code, body)
			}
			k := body["key"].(string)
			if code, body := f.call(t, "GET", "/api/keys/verify", k, nil); code != 200 {
				t.Fatalf("the new key does not verify at once: %d %v", code, body)
			}
			if b := f.balance(t, k); b != 2500 {
				t.Fatalf("balance after signup %v", b)
			}
		},
		"GET keys.verify_email": func(t *testing.T) {
			if code, body := f.call(t, "GET", "/api/keys/verify-email?token="+signup.VerificationToken, "", nil); code != 200 {
				t.Fatalf("verify: %d %v", code, body)
			}
			if b := f.balance(t, key); b != 5000 {
				t.Fatalf("balance after the verification grant %v, want 5000", b)
			}
		},
		"POST rigor.enhance": func(t *testing.T) {
			before := f.balance(t, key)
			code, body := f.call(t, "POST", "/api/rigor/enhance", key, map[string]any{"task_description": "compare our pricing with three competitors", "tier": "llm"})
			if code != 200 {
				t.Fatalf("enhance: %d %v", code, body)
			}
			if b := f.balance(t, key); b != before-270 || body["credits_remaining"] != b {
				t.Fatalf("balance %v after enhance answered %v (before %v)", b, body["credits_remaining"], before)
			}
		},
		"POST rigor.plan": func(t *testing.T) {
			var ids []string
			for i := range 7 {
				ids = append(ids, plan("draft a launch plan for our mobile app in market "+string(rune('A'+i))))
			}
			for _, id := range ids {
				if st := f.listed(t, key, id); st != workflow.StatusPlanned {
					t.Fatalf("plan %s listed as %q right after planning", id, st)
				}
			}
		},
		"POST rigor.execute": func(t *testing.T) {
			code, body := f.call(t, "POST", "/api/rigor/execute", key, map[string]any{
				"task_description": "write a competitive analysis of our two largest rivals", "delivery": map[string]any{"method": "polling"}})
			if code != 200 {
				t.Fatalf("execute: %d %v", code, body)
			}
			if st := f.listed(t, key, body["workflow_id"].(string)); st != workflow.StatusQueued {
				t.Fatalf("executed workflow listed as %q", st)
			}
		},
		"POST rigor.step": func(t *testing.T) {
			code, body := f.call(t, "POST", "/api/rigor/execute", key, map[string]any{
				"task_description": "write a SWOT analysis of our payroll product", "mode": "interactive"})
			if code != 200 {
				t.Fatalf("interactive execute: %d %v", code, body)
			}
			id := body["workflow_id"].(string)
			if code, body := f.call(t, "POST", "/api/rigor/step", key, map[string]any{"workflow_id": id, "action": "next"}); code != 200 {
				t.Fatalf("step: %d %v", code, body)
			}
			if st := f.listed(t, key, id); st != workflow.StatusStepExecuting {
				t.Fatalf("stepped workflow listed as %q", st)
			}
		},
		"POST rigor.approve": func(t *testing.T) {
			id := gated("prepare a board memo on our pricing change with an approval before the review")
			f.appendRun(t, key, orgID, id, workflow.StatusPendingApproval,
				workflow.Queued{WorkflowID: id, OrgID: orgID, Tier: "enterprise", Mode: workflow.ModeFull, Delivery: workflow.Delivery{Method: "polling"}},
				workflow.Started{Worker: "test"}, workflow.ApprovalRequested{Gate: 1, Step: 2})
			if code, body := f.call(t, "POST", "/api/rigor/approve", key, map[string]any{"workflow_id": id, "decision": "approved"}); code != 200 {
				t.Fatalf("approve: %d %v", code, body)
			}
			if st := f.listed(t, key, id); st != workflow.StatusApproved {
				t.Fatalf("approved workflow listed as %q", st)
			}
		},
		"POST rigor.resume": func(t *testing.T) {
			id := plan("summarise our customer interviews into five findings for the product team")
			f.appendRun(t, key, orgID, id, workflow.StatusFailed,
				workflow.Queued{WorkflowID: id, OrgID: orgID, Tier: "enterprise", Mode: workflow.ModeFull, Delivery: workflow.Delivery{Method: "polling"}},
				workflow.Started{Worker: "test"}, workflow.Failed{Code: "provider_exhausted", Error: "e", Step: 1})
			if code, body := f.call(t, "POST", "/api/rigor/resume", key, map[string]any{"workflow_id": id}); code != 200 {
				t.Fatalf("resume: %d %v", code, body)
			}
			if st := f.listed(t, key, id); st != workflow.StatusResuming {
				t.Fatalf("resumed workflow listed as %q", st)
			}
		},
		"POST rigor.workflows.actions": func(t *testing.T) {
			id := plan("outline a hiring plan for two backend engineers next quarter")
			code, body := f.call(t, "POST", "/api/rigor/workflows/actions", key, map[string]any{"action": "cancel", "workflow_ids": []string{id}, "confirm": true})
			if code != 200 {
				t.Fatalf("cancel: %d %v", code, body)
			}
			if st := f.listed(t, key, id); st != workflow.StatusCancelled {
				t.Fatalf("cancelled workflow listed as %q", st)
			}
		},
	}

	for name, w := range peopleWalks(t, f) {
		walk[name] = w
	}
	for name, w := range folderWalks(t, f) {
		walk[name] = w
	}
	for name, w := range budgetWalks(t, f) {
		walk[name] = w
	}
	for name, w := range webhookWalks(t, f) {
		walk[name] = w
	}
	for name, w := range invitePreviewWalks(t, f) {
		walk[name] = w
	}
	for name, w := range billingWalks(t, f) {
		walk[name] = w
	}
	for name, w := range autoReloadWalks(t, f) {
		walk[name] = w
	}
	for name, w := range notificationWalks(t, f) {
		walk[name] = w
	}
	for name, w := range deletionWalks(t, f) {
		walk[name] = w
	}
	for name, w := range suiteWalks(t, f) {
		walk[name] = w
	}
	for name, w := range llmPolicyWalks(t, f, key, signup.WorkspaceID) {
		walk[name] = w
	}
	for name, w := range connectionWalks(t, f, key) {
		walk[name] = w
	}

	// every route that accepts a write method, and the GET routes that
	// run a command, must be walked
	for _, r := range f.srv.Routes() {
		method := strings.Fields(r)[0]
		if method == "GET" && r != "GET keys.verify_email" && r != "GET auth.callback" {
			continue
		}
		if _, ok := walk[r]; !ok {
			t.Errorf("write route %q is not walked: add how to call it and what must read it back", r)
		}
	}
	names := make([]string, 0, len(walk))
	for n := range walk {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t.Run(n, walk[n])
	}
}

// TestNoNullLists reads every route that answers GET (after a little of
// everything was written) and fails on a null where a list belongs, and on
// a GET route it does not know.
func TestNoNullLists(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	code, body := f.call(t, "POST", "/api/keys", "", map[string]any{"name": "Lists"})
	if code != 200 && code != 201 {
		t.Fatalf("signup: %d %v", code, body)
	}
	key := body["key"].(string)
	code, body = f.call(t, "POST", "/api/rigor/plan", key, map[string]any{"task_description": "compare our pricing with three competitors"})
	if code != 200 {
		t.Fatalf("plan: %d %v", code, body)
	}
	id := body["plan"].(map[string]any)["workflow_id"].(string)
	reads := map[string]string{
		"GET health":                    "/api/health",
		"GET docs":                      "",
		"GET openapi":                   "", // the OpenAPI document: openapi_internal_test.go
		"GET docs.asset":                "", // scripts of the rendered reference
		"GET keys.verify":               "/api/keys/verify",
		"GET keys.verify_email":         "", // a write: TestEveryWriteIsReadBack
		"GET billing.balance":           "/api/billing/balance",
		"GET billing.auto_reload":       "/api/billing/auto-reload",
		"GET notifications.list":        "/api/notifications",
		"GET notifications.count":       "/api/notifications/count",
		"GET data.delete_requests":      "/api/data/delete-request",
		"GET rigor.templates":           "/api/rigor/templates",
		"GET rigor.task_types":          "/api/rigor/task-types",
		"GET rigor.status":              "/api/rigor/status/" + id,
		"GET rigor.workflows":           "/api/rigor/workflows",
		"GET rigor.lineage":             "/api/rigor/lineage/" + id,
		"GET rigor.webhooks.deliveries": "/api/rigor/webhooks/deliveries?workflow_id=" + id,
		"GET rigor.usage_summary":       "/api/rigor/usage-summary",
		"GET rigor.costs":               "/api/rigor/costs",
		"GET rigor.connections":         "", // read with and without connections below
		"GET metrics":                   "",
		"GET auth.callback":             "", // a write: TestEveryWriteIsReadBack
		"GET auth.mcp.callback":         "", // a redirect
	}
	access, _, wsID := f.signUp(t)
	for r, path := range map[string]string{
		"GET user.me": "/api/user/me", "GET workspaces.list": "/api/workspaces", "GET workspaces.get": "/api/workspaces/" + wsID,
		"GET workspaces.members.list": "/api/workspaces/" + wsID + "/members", "GET workspaces.keys.list": "/api/workspaces/" + wsID + "/api-keys",
		"GET workspaces.invites.list": "/api/workspaces/" + wsID + "/invites",
		"GET workspaces.folders.list": "/api/workspaces/" + wsID + "/folders",
		"GET workspaces.audit_log":    "/api/workspaces/" + wsID + "/audit-log",
		"GET workspaces.budget.get":   "/api/workspaces/" + wsID + "/budget",
	} {
		reads[r] = ""
		if code, body, _ := f.callAs(t, "GET", path, access, nil); code != 200 {
			t.Errorf("%s: %d %v", path, code, body)
		}
		if code, body := f.call(t, "GET", path, key, nil); code != 200 && code != 404 {
			t.Errorf("%s with a key of another org: %d %v", path, code, body)
		}
	}
	for name, path := range suiteReads(t, f, key) {
		reads[name] = path
	}
	reads["GET workspaces.llm_policy.get"] = "" // Team tier: consistency_llm_policy_test.go
	// Pro tier or above: consistency_webhooks_test.go
	reads["GET workspaces.webhooks.list"] = ""
	reads["GET workspaces.webhooks.deliveries"] = ""
	readWebhooks(t, f)
	readWebhookDeliveries(t, f)
	readLLMPolicy(t, f)
	readConnections(t, f, key)
	for _, r := range f.srv.Routes() {
		if !strings.HasPrefix(r, "GET ") {
			continue
		}
		path, ok := reads[r]
		if !ok {
			t.Errorf("GET route %q is not read for null lists: add it", r)
			continue
		}
		if path == "" {
			continue // not JSON, or a write
		}
		if code, body := f.call(t, "GET", path, key, nil); code != 200 {
			t.Errorf("%s: %d %v", path, code, body)
		}
	}
}
