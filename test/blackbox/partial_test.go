package blackbox

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"svc/test/fakellm"
)

// TestPartialAndHalted drives the states a run reaches when something is
// missing, through a fake LLM and context servers: a salvaged deliverable
// and a lost research step (completed_partial) and a connection that does
// not answer (halted). The subtests run in turn: the fake's rules are
// server-wide.
func TestPartialAndHalted(t *testing.T) {
	t.Parallel()
	fake := fakellm.New()
	t.Cleanup(fake.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": fake.URL(), "SVC_ALLOW_PRIVATE_URLS": "true"})
	a := s.signup(t, nil)
	s.grant(t, a, 50_000)
	warm, _ := wantQueued(t, s, s.execute(t, a.Key, map[string]any{"task_description": "Write a go-to-market plan for our new analytics product", "delivery": polling}), "polling")
	s.waitTerminal(t, a.Key, warm, 30*time.Second) // the free first run: the others are charged

	t.Run("salvaged deliverable", func(t *testing.T) {
		fake.AddRule(fakellm.Rule{Match: "kind=synthesis", Status: http.StatusInternalServerError})
		t.Cleanup(fake.ClearRules)
		c := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: competitive("salvage", nil)})
		id := wantSSEHeaders(t, c)
		evs := progress(c.rest(t, 60*time.Second))
		var strategies []string
		for _, e := range evs {
			if e.Event == "terminal_step_retrying" {
				strategies = append(strategies, str(t, e.Data, "strategy"))
				if str(t, e.Data, "step_name") != "Synthesis" || integer(t, e.Data, "max_attempts") != 4 || str(t, e.Data, "message") == "" {
					t.Errorf("terminal_step_retrying %s", e.Raw)
				}
			}
		}
		if len(strategies) != 3 || strategies[0] != "compressed" || strategies[1] != "chunked" || strategies[2] != "salvage" {
			t.Fatalf("ladder %v in %s", strategies, names(evs))
		}
		last := evs[len(evs)-1]
		if last.Event != "workflow_completed" || !boolean(t, last.Data, "partial") || str(t, last.Data, "status") != "completed_partial" {
			t.Fatalf("last event %s", last.Raw)
		}
		wf := s.waitTerminal(t, a.Key, id, 10*time.Second)
		inc, _ := wf["incomplete_steps"].([]any)
		total := integer(t, wf, "total_steps")
		if len(inc) != 1 {
			t.Fatalf("incomplete_steps %v", wf["incomplete_steps"])
		}
		entry := inc[0].(map[string]any)
		if integer(t, entry, "step_index") != total-1 || str(t, entry, "framework") != "Synthesis" || str(t, entry, "reason") != "invocation_budget_exhausted" {
			t.Fatalf("incomplete step %v", entry)
		}
		if wf["deliverable"] == nil || wf["error"] == nil || integer(t, wf, "terminal_step_attempts") != 3 {
			t.Fatalf("salvaged workflow %v", wf)
		}
		// a salvaged deliverable pays the fee: the run costs its estimate
		if integer(t, wf, "credits_used") != integer(t, wf, "estimated_credits") {
			t.Fatalf("credits_used %v, estimate %v", wf["credits_used"], wf["estimated_credits"])
		}
	})

	t.Run("required research step lost", func(t *testing.T) {
		fake.AddRule(fakellm.Rule{Match: "framework=Competitor Matrix", Status: http.StatusInternalServerError})
		t.Cleanup(fake.ClearRules)
		id, _ := wantQueued(t, s, s.execute(t, a.Key, competitive("lost", map[string]any{"delivery": polling})), "polling")
		wf := s.waitTerminal(t, a.Key, id, 60*time.Second)
		if wf["status"] != "completed_partial" || wf["quality_score"] == nil || wf["deliverable"] == nil {
			t.Fatalf("workflow %v", wf)
		}
		inc, _ := wf["incomplete_steps"].([]any)
		if len(inc) != 1 || str(t, inc[0].(map[string]any), "framework") != "Competitor Matrix" || len(str(t, inc[0].(map[string]any), "reason")) < 30 {
			t.Fatalf("incomplete_steps %v", wf["incomplete_steps"])
		}
		// no fee, and the lost step is not charged: estimate less both
		plan := s.workflow(t, a.Key, id)
		if used := integer(t, plan, "credits_used"); used >= integer(t, plan, "estimated_credits")-530 {
			t.Fatalf("credits_used %d of %d: the fee or the lost step was charged", used, integer(t, plan, "estimated_credits"))
		}
		if n := integer(t, wf, "actual_steps_executed") + integer(t, wf, "skipped_steps") + integer(t, wf, "incomplete_step_count"); n != integer(t, wf, "total_steps") {
			t.Fatalf("identity: %d of %v", n, wf["total_steps"])
		}
	})

	t.Run("halted on a connection that does not answer", func(t *testing.T) {
		down := httptest.NewServer(http.NotFoundHandler())
		downURL := down.URL
		down.Close() // a port nobody listens on
		res := s.execute(t, a.Key, map[string]any{"task_description": "audit our authentication service for security weaknesses", "task_type": "security_audit",
			"delivery": polling, "available_mcp_connections": []any{map[string]any{"id": "repo", "label": "repo", "server_url": downURL}}})
		id, _ := wantQueued(t, s, res, "polling")
		plan := object(t, res.Body, "plan")
		if !hasWarning(plan, "connection_error") {
			t.Errorf("plan warnings %v, want connection_error", plan["warnings"])
		}
		wf := s.waitTerminal(t, a.Key, id, 60*time.Second)
		if wf["status"] != "halted" || str(t, wf, "halt_reason") != "connection_failure" || integer(t, wf, "halted_at_step") < 1 {
			t.Fatalf("workflow %v", wf)
		}
		issues, _ := wf["blocking_issues"].([]any)
		options, _ := wf["resolution_options"].([]any)
		if len(issues) != 1 || len(options) != 4 {
			t.Fatalf("blocking_issues %v resolution_options %v", issues, options)
		}
		if integer(t, wf, "credits_used")+integer(t, wf, "credits_saved_by_halt") != integer(t, wf, "estimated_credits") {
			t.Fatalf("used %v + saved %v != estimate %v", wf["credits_used"], wf["credits_saved_by_halt"], wf["estimated_credits"])
		}
	})

	t.Run("plan warnings from context servers", func(t *testing.T) {
		degraded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }))
		defer degraded.Close()
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: map[string]any{
			"task_description": "audit our authentication service for security weaknesses", "task_type": "security_audit",
			"available_mcp_connections": []any{map[string]any{"id": "docs", "label": "docs", "server_url": degraded.URL}}}})
		wantStatus(t, res, http.StatusOK)
		plan := object(t, res.Body, "plan")
		ctx := object(t, plan, "context")
		conns, _ := ctx["connections"].([]any)
		if !hasWarning(plan, "context_insufficient") || boolean(t, ctx, "sufficient") || len(conns) != 1 || conns[0].(map[string]any)["status"] != "degraded" {
			t.Fatalf("plan %s", res.Raw)
		}
	})
	replayBilling(t, s.dbURL, a.OrgID)
}

func hasWarning(plan map[string]any, code string) bool {
	ws, _ := plan["warnings"].([]any)
	for _, w := range ws {
		if m, _ := w.(map[string]any); m["code"] == code {
			return true
		}
	}
	return false
}
