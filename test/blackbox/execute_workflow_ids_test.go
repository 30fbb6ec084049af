package blackbox

import (
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Two descriptions the planner splits into two intents each.
const (
	twoIntents      = "audit our authentication code for security vulnerabilities and draft a launch plan for the new mobile app"
	twoOtherIntents = "review our vendor contracts for compliance risks and write a hiring plan for the support team"
)

// planIntents plans a multi-intent description with key and returns its
// workflow ids (plan.plans[].workflow_id), with the estimate of each.
func (s *server) planIntents(t testing.TB, key, desc string) ([]string, []int64) {
	t.Helper()
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: key, Body: map[string]any{"task_description": desc}})
	wantStatus(t, res, http.StatusOK)
	plans, _ := object(t, res.Body, "plan")["plans"].([]any)
	if len(plans) != 2 {
		t.Fatalf("want a plan of 2 intents: %s", res.Raw)
	}
	var ids []string
	var credits []int64
	for _, p := range plans {
		plan := p.(map[string]any)
		ids = append(ids, str(t, plan, "workflow_id"))
		credits = append(credits, integer(t, object(t, plan, "cost"), "credits"))
	}
	return ids, credits
}

// wantRefusedFor requires an error answer of status and code whose
// details name workflow id.
func wantRefusedFor(t testing.TB, res *response, status int, code, id string) map[string]any {
	t.Helper()
	wantError(t, res, status, code)
	details := object(t, object(t, res.Body, "error"), "details")
	if details["workflow_id"] != id {
		t.Fatalf("%s names workflow %v, want %s: %s", code, details["workflow_id"], id, res.Raw)
	}
	return details
}

// manyAnswer checks the shape of a 200 of execute with workflow_ids and
// returns its queued and refused lists.
func manyAnswer(t testing.TB, s *server, res *response, delivery string) ([]map[string]any, []map[string]any) {
	t.Helper()
	wantStatus(t, res, http.StatusOK)
	if !boolean(t, res.Body, "ok") || str(t, res.Body, "delivery_mode") != delivery {
		t.Fatalf("answer %s", res.Raw)
	}
	list := func(field string) []map[string]any {
		raw, ok := res.Body[field].([]any)
		if !ok {
			t.Fatalf("%s is not a list: %s", field, res.Raw)
		}
		out := make([]map[string]any, len(raw))
		for i, r := range raw {
			out[i] = r.(map[string]any)
		}
		return out
	}
	queued, refused := list("workflows"), list("refused")
	sum := int64(0)
	for _, q := range queued {
		one := &response{Status: http.StatusOK, Body: q}
		_, est := wantQueued(t, s, one, delivery)
		sum += est
	}
	if got := integer(t, res.Body, "estimated_credits"); got != sum {
		t.Errorf("estimated_credits %d, the queued workflows' sum %d", got, sum)
	}
	for _, r := range refused {
		e := object(t, r, "error")
		if str(t, e, "code") == "" || str(t, e, "message") == "" || str(t, e, "request_id") != res.RequestID ||
			object(t, e, "details")["workflow_id"] != r["workflow_id"] {
			t.Errorf("refused entry %v (request %s)", r, res.RequestID)
		}
	}
	return queued, refused
}

// TestExecuteWorkflowIDs: a multi-intent plan's workflows executed with
// workflow_ids are queued (polling by default), in the order given, each
// answered as an execute of its workflow_id, and run to completion with
// the request's language and agent; executed again, they are refused. By
// webhook, the URL's secret is shown once, with the workflow that
// registered it.
func TestExecuteWorkflowIDs(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	s.setTier(t, a, "pro") // three at a time
	s.grant(t, a, 20_000)
	ids, _ := s.planIntents(t, a.Key, twoIntents)
	order := []string{ids[1], ids[0]}

	res := s.execute(t, a.Key, map[string]any{"workflow_ids": order, "language": "de", "agent_id": "multi-intent-agent",
		"context": map[string]any{"additional_context": "We ship on iOS first."}})
	queued, refused := manyAnswer(t, s, res, "polling")
	if len(queued) != 2 || len(refused) != 0 {
		t.Fatalf("answer %s", res.Raw)
	}
	for i, q := range queued {
		if q["workflow_id"] != order[i] {
			t.Fatalf("workflow %d is %v, want %s (the request's order)", i, q["workflow_id"], order[i])
		}
	}
	if !boolean(t, queued[0], "free") || boolean(t, queued[1], "free") {
		t.Errorf("free %v, %v: the org's first run only", queued[0]["free"], queued[1]["free"])
	}
	for _, id := range order {
		wf := s.waitTerminal(t, a.Key, id, 90*time.Second)
		if str(t, wf, "status") != "completed" || str(t, wf, "language") != "de" || str(t, wf, "agent_id") != "multi-intent-agent" ||
			str(t, wf, "delivery_mode") != "polling" {
			t.Fatalf("workflow %s: %v", id, wf)
		}
	}
	// executed already: the first id's refusal is the answer
	wantRefusedFor(t, s.execute(t, a.Key, map[string]any{"workflow_ids": order}), http.StatusConflict, "workflow_has_progress", order[0])

	// by webhook: the secret once
	more, _ := s.planIntents(t, a.Key, twoOtherIntents)
	hook := "https://127.0.0.1:9/hooks/multi" // never reached: a private address
	res = s.execute(t, a.Key, map[string]any{"workflow_ids": more, "delivery": map[string]any{"method": "webhook", "webhook_url": hook}})
	queued, refused = manyAnswer(t, s, res, "webhook")
	if len(queued) != 2 || len(refused) != 0 {
		t.Fatalf("answer %s", res.Raw)
	}
	secret := str(t, queued[0], "webhook_secret")
	if _, err := hex.DecodeString(secret); err != nil || len(secret) != 64 {
		t.Errorf("webhook_secret %q", secret)
	}
	for _, q := range queued {
		if str(t, q, "webhook_url") != hook || str(t, q, "webhook_status") != "registered" {
			t.Errorf("webhook answer %v", q)
		}
	}
	if _, shown := queued[1]["webhook_secret"]; shown {
		t.Errorf("the secret shown twice: %s", res.Raw)
	}
	for _, id := range more {
		s.waitTerminal(t, a.Key, id, 90*time.Second)
	}
}

// TestExecuteWorkflowIDsRefusals: each refusal of the request as a whole
// (400, 403, 404, 409), and nothing is queued by any of them.
func TestExecuteWorkflowIDsRefusals(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a, b := s.signup(t, nil), s.signup(t, nil)
	ids, _ := s.planIntents(t, a.Key, twoIntents)
	theirs := s.planStored(t, b.Key, process("theirs", nil))
	cancelled := s.planStored(t, a.Key, process("cancelled before it ran", nil))
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/workflows/actions", Key: a.Key,
		Body: map[string]any{"action": "cancel", "confirm": true, "workflow_ids": []string{cancelled}}}), http.StatusOK)
	s.waitStatus(t, a.Key, cancelled, "cancelled")

	exec := func(body map[string]any) *response {
		t.Helper()
		if _, ok := body["workflow_ids"]; !ok {
			body["workflow_ids"] = ids
		}
		return s.execute(t, a.Key, body)
	}
	invalid := func(body map[string]any, field string) {
		t.Helper()
		res := exec(body)
		wantError(t, res, http.StatusBadRequest, "invalid_field")
		if got := object(t, object(t, res.Body, "error"), "details")["field"]; got != field {
			t.Errorf("invalid_field names %v, want %s: %s", got, field, res.Raw)
		}
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = "wr_" + randomHex(16)
	}
	unknown := "wr_" + strings.Repeat("0", 32)

	wantError(t, exec(map[string]any{"workflow_ids": []string{}}), http.StatusBadRequest, "no_workflow_ids")
	res := exec(map[string]any{"workflow_ids": many})
	wantError(t, res, http.StatusBadRequest, "bulk_limit_exceeded")
	if integer(t, object(t, object(t, res.Body, "error"), "details"), "max") != 20 {
		t.Errorf("bulk limit %s", res.Raw)
	}
	invalid(map[string]any{"workflow_ids": "not a list"}, "workflow_ids")
	invalid(map[string]any{"workflow_id": ids[0]}, "workflow_id")
	invalid(map[string]any{"task_description": twoIntents}, "task_description")
	invalid(map[string]any{"workflow_ids": []string{ids[0], ids[1], ids[0]}}, "workflow_ids")
	invalid(map[string]any{"delivery": map[string]any{"method": "sse"}}, "delivery.method")
	invalid(map[string]any{"delivery": map[string]any{"method": "carrier pigeon"}}, "delivery.method")
	invalid(map[string]any{"mode": "interactive"}, "mode")
	invalid(map[string]any{"mode": "partial"}, "mode")
	invalid(map[string]any{"prior_workflow_id": ids[0]}, "prior_workflow_id")
	invalid(map[string]any{"context_fields": []string{"deliverable"}}, "context_fields")
	wantError(t, exec(map[string]any{"language": "not a language!"}), http.StatusBadRequest, "invalid_language")
	wantError(t, exec(map[string]any{"delivery": map[string]any{"method": "webhook"}}), http.StatusBadRequest, "webhook_url_required")
	wantError(t, exec(map[string]any{"delivery": map[string]any{"method": "webhook", "webhook_url": "http://hooks.example.com/x"}}),
		http.StatusBadRequest, "webhook_url_https")
	wantError(t, exec(map[string]any{"delivery": map[string]any{"method": "webhook", "webhook_url": "https://user:pw@hooks.example.com/x"}}),
		http.StatusBadRequest, "webhook_url_invalid")

	wantRefusedFor(t, exec(map[string]any{"workflow_ids": []string{ids[0], unknown}}), http.StatusNotFound, "not_found", unknown)
	wantRefusedFor(t, exec(map[string]any{"workflow_ids": []string{ids[0], "wr_nope"}}), http.StatusNotFound, "not_found", "wr_nope")
	wantRefusedFor(t, exec(map[string]any{"workflow_ids": []string{ids[0], theirs}}), http.StatusForbidden, "forbidden", theirs)
	wantRefusedFor(t, exec(map[string]any{"workflow_ids": []string{ids[0], cancelled}}), http.StatusConflict, "invalid_status", cancelled)

	for _, id := range append(ids, theirs) {
		key := a.Key
		if id == theirs {
			key = b.Key
		}
		if st := str(t, s.workflow(t, key, id), "status"); st != "planned" {
			t.Errorf("workflow %s is %s after refused executes", id, st)
		}
	}
}

// TestExecuteWorkflowIDsLimits: the limits refuse a workflow without
// undoing the others (200 with it under refused), or, when they refuse
// every one, answer like an execute of the first: 429
// concurrent_limit_exceeded, 409 duplicate_task, 402 insufficient_credits.
func TestExecuteWorkflowIDsLimits(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil) // the free tier: one workflow at a time
	gated := s.planStored(t, a.Key, process("gated, limits of workflow_ids", map[string]any{"preferences": map[string]any{"require_approval": true}}))
	other := s.planStored(t, a.Key, process("the other one, limits of workflow_ids", nil))

	queued, refused := manyAnswer(t, s, s.execute(t, a.Key, map[string]any{"workflow_ids": []string{gated, other}}), "polling")
	if len(queued) != 1 || queued[0]["workflow_id"] != gated || len(refused) != 1 || refused[0]["workflow_id"] != other ||
		object(t, refused[0], "error")["code"] != "concurrent_limit_exceeded" {
		t.Fatalf("queued %v, refused %v", queued, refused)
	}
	s.waitStatus(t, a.Key, gated, "pending_approval") // active: holds the one slot
	details := wantRefusedFor(t, s.execute(t, a.Key, map[string]any{"workflow_ids": []string{other}}), http.StatusTooManyRequests,
		"concurrent_limit_exceeded", other)
	if integer(t, details, "limit") != 1 || integer(t, details, "active_count") != 1 {
		t.Errorf("details %v", details)
	}
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/workflows/actions", Key: a.Key,
		Body: map[string]any{"action": "cancel", "confirm": true, "workflow_ids": []string{gated}}}), http.StatusOK)
	s.waitStatus(t, a.Key, gated, "cancelled")

	// the same task twice within 5 minutes
	first := s.planStored(t, a.Key, process("twice", nil))
	second := s.planStored(t, a.Key, process("twice", nil))
	queued, refused = manyAnswer(t, s, s.execute(t, a.Key, map[string]any{"workflow_ids": []string{first, second}}), "polling")
	if len(queued) != 1 || queued[0]["workflow_id"] != first || len(refused) != 1 || refused[0]["workflow_id"] != second {
		t.Fatalf("queued %v, refused %v", queued, refused)
	}
	e := object(t, refused[0], "error")
	if e["code"] != "duplicate_task" || object(t, e, "details")["existing_workflow_id"] != first {
		t.Fatalf("refused %v", refused[0])
	}
	details = wantRefusedFor(t, s.execute(t, a.Key, map[string]any{"workflow_ids": []string{second}}), http.StatusConflict, "duplicate_task", second)
	if details["existing_workflow_id"] != first {
		t.Errorf("details %v", details)
	}
	wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/workflows/actions", Key: a.Key,
		Body: map[string]any{"action": "cancel", "confirm": true, "force": true, "workflow_ids": []string{first}}}), http.StatusOK)
	s.waitTerminal(t, a.Key, first, 90*time.Second)

	// a balance below the estimate (the org's free run is spent)
	for s.balance(t, a.Key) >= 270 {
		wantStatus(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Key: a.Key,
			Body: map[string]any{"task_description": "help me with stuff", "tier": "llm"}}), http.StatusOK)
	}
	details = wantRefusedFor(t, s.execute(t, a.Key, map[string]any{"workflow_ids": []string{other}}), http.StatusPaymentRequired,
		"insufficient_credits", other)
	if integer(t, details, "balance") >= 270 || integer(t, details, "required_credits") <= integer(t, details, "balance") {
		t.Errorf("details %v", details)
	}
	if st := str(t, s.workflow(t, a.Key, other), "status"); st != "planned" {
		t.Errorf("the refused workflow is %s", st)
	}
}
