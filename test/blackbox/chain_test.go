package blackbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"svc/test/fakellm"
)

// quick is the cheapest execute body: a quick process improvement, polled.
func quick(tag string, extra map[string]any) map[string]any {
	return process(tag, mergeBody(map[string]any{"delivery": polling, "preferences": map[string]any{"rigor_level": "quick"}}, extra))
}

func mergeBody(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// runToEnd executes body with key and waits until the run is completed.
func (s *server) runToEnd(t testing.TB, key string, body map[string]any) (string, map[string]any) {
	t.Helper()
	id, _ := wantQueued(t, s, s.execute(t, key, body), "polling")
	wf := s.waitTerminal(t, key, id, 60*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("workflow %s: %v", id, wf)
	}
	return id, wf
}

// lineage reads GET /api/rigor/lineage/{id}.
func (s *server) lineage(t testing.TB, key, id string) *response {
	t.Helper()
	return s.do(t, req{Path: "/api/rigor/lineage/" + id, Key: key})
}

// Two chained workflows, their lineage, and the validation of execute's
// chain fields.
func TestChainLineage(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a, b := s.signup(t, nil), s.signup(t, nil)
	s.grant(t, a, 20000)

	first, firstWF := s.runToEnd(t, a.Key, quick("chain first", map[string]any{"context": map[string]any{"additional_context": "our helpdesk runs on Zendesk"}}))
	if _, ok := firstWF["prior_workflow_id"]; ok {
		t.Errorf("an unchained workflow shows prior_workflow_id %v", firstWF["prior_workflow_id"])
	}
	res := s.execute(t, a.Key, quick("chain second", map[string]any{"prior_workflow_id": first, "context_fields": []string{"deliverable", "additional_context"}}))
	second, _ := wantQueued(t, s, res, "polling")
	if codes := warningCodes(res); len(codes) > 0 {
		t.Errorf("warnings %v on a standard chained execute", codes)
	}
	if got := s.workflow(t, a.Key, second)["prior_workflow_id"]; got != first {
		t.Errorf("status prior_workflow_id %v, want %s", got, first)
	}
	secondWF := s.waitTerminal(t, a.Key, second, 60*time.Second)
	raw, _ := json.Marshal(secondWF["deliverable"])
	if !strings.Contains(string(raw), "Builds on an earlier workflow") || !strings.Contains(string(raw), first) {
		t.Errorf("the offline writer's deliverable does not mention the inherited context: %s", raw)
	}

	// lineage: oldest first, total_steps summed. It reads the workflows read
	// model, which may trail the status (status folds a workflow's stream
	// when the model has not reached its last event): wait until it has
	// the run's end.
	res = s.poll(t, req{Path: "/api/rigor/lineage/" + second, Key: a.Key}, 30*time.Second, func(res *response) bool {
		chain, _ := res.Body["chain"].([]any)
		for _, e := range chain {
			if e.(map[string]any)["status"] != "completed" {
				return false
			}
		}
		return res.Status == http.StatusOK && len(chain) == 2
	}, func(res *response) string {
		return "lineage without both runs completed within 30 s: " + string(res.Raw)
	})
	wantStatus(t, res, http.StatusOK)
	chain, _ := res.Body["chain"].([]any)
	if !boolean(t, res.Body, "ok") || len(chain) != 2 || integer(t, res.Body, "chain_depth") != 2 {
		t.Fatalf("lineage %s", res.Raw)
	}
	var sum int64
	for i, want := range []map[string]any{firstWF, secondWF} {
		e := chain[i].(map[string]any)
		if str(t, e, "workflow_id") != want["workflow_id"] || str(t, e, "status") != "completed" || str(t, e, "task_type") != "process_improvement" {
			t.Errorf("chain[%d] %v", i, e)
		}
		if str(t, e, "created_at") != want["created_at"] {
			t.Errorf("chain[%d].created_at %v, status says %v", i, e["created_at"], want["created_at"])
		}
		sum += integer(t, e, "total_steps")
	}
	if total := integer(t, res.Body, "total_steps"); total != sum || total != integer(t, firstWF, "total_steps")+integer(t, secondWF, "total_steps") {
		t.Errorf("total_steps %d, want the sum %d", total, sum)
	}
	res = s.lineage(t, a.Key, first)
	wantStatus(t, res, http.StatusOK)
	if integer(t, res.Body, "chain_depth") != 1 || integer(t, res.Body, "total_steps") != integer(t, firstWF, "total_steps") {
		t.Errorf("lineage of an unchained workflow %s", res.Raw)
	}

	// lineage refusals
	wantError(t, s.lineage(t, b.Key, second), http.StatusNotFound, "not_found")
	wantError(t, s.lineage(t, a.Key, "wr_"+randomHex(16)), http.StatusNotFound, "not_found")
	wantError(t, s.lineage(t, a.Key, "wr_nope"), http.StatusNotFound, "not_found")
	wantError(t, s.lineage(t, a.Key, ""), http.StatusBadRequest, "missing_field")
	wantError(t, s.do(t, req{Path: "/api/rigor/lineage/" + second}), http.StatusUnauthorized, "missing_api_key")
	if res := s.lineage(t, a.Key, second); res.Header.Get("X-RateLimit-Limit") == "" {
		t.Error("lineage is not rate limited (no X-RateLimit-Limit)")
	}

	// execute refusals
	exec := func(body map[string]any) *response { return s.execute(t, a.Key, body) }
	wantError(t, exec(quick("x", map[string]any{"prior_workflow_id": "wr_" + randomHex(16)})), http.StatusNotFound, "prior_not_found")
	wantError(t, exec(quick("x", map[string]any{"prior_workflow_id": "not-an-id"})), http.StatusNotFound, "prior_not_found")
	wantError(t, s.execute(t, b.Key, quick("x", map[string]any{"prior_workflow_id": second})), http.StatusNotFound, "prior_not_found")
	planned := s.planStored(t, a.Key, quick("planned only", nil))
	res = exec(quick("x", map[string]any{"prior_workflow_id": planned}))
	wantError(t, res, http.StatusConflict, "prior_not_terminal")
	if st := object(t, object(t, res.Body, "error"), "details")["status"]; st != "planned" {
		t.Errorf("prior_not_terminal details.status %v", st)
	}
	res = exec(quick("x", map[string]any{"prior_workflow_id": first, "context_fields": []string{"deliverable", "everything"}}))
	wantError(t, res, http.StatusBadRequest, "invalid_field")
	if f := object(t, object(t, res.Body, "error"), "details")["field"]; f != "context_fields[1]" {
		t.Errorf("invalid_field details.field %v", f)
	}
	wantError(t, exec(quick("x", map[string]any{"context_fields": []string{"deliverable"}})), http.StatusBadRequest, "invalid_field")
	wantError(t, exec(quick("x", map[string]any{"prior_workflow_id": 7})), http.StatusBadRequest, "invalid_field")
	// the stored plan, chained: it runs, carrying both direct-execution warnings
	direct := s.planStored(t, a.Key, quick("direct asked", map[string]any{"preferences": map[string]any{"rigor_level": "quick", "execution": "direct"}}))
	res = exec(map[string]any{"workflow_id": direct, "delivery": polling, "prior_workflow_id": second, "context_fields": []string{"step_summaries"}})
	wantQueued(t, s, res, "polling")
	if codes := warningCodes(res); len(codes) != 2 || codes[0] != "direct_execution_not_eligible" || codes[1] != "direct_execution_not_eligible" {
		t.Errorf("warnings %v, want direct_execution_not_eligible twice", codes)
	}
	third := s.waitTerminal(t, a.Key, direct, 60*time.Second)
	if third["execution_mode"] != "standard" || third["prior_workflow_id"] != second {
		t.Errorf("chained direct request ran %v, prior %v", third["execution_mode"], third["prior_workflow_id"])
	}
	if res := s.lineage(t, a.Key, direct); integer(t, res.Body, "chain_depth") != 3 {
		t.Errorf("lineage of the third link %s", res.Raw)
	}
	if n := countEvents(s.settledEvents(t, a), "WorkflowQueued"); n != 3 {
		t.Errorf("%d workflows queued, want 3: a refused execute appended", n)
	}
}

// A chain reaches 10 links; the 11th is refused, and a prior whose
// inherited context is too large is refused too.
func TestChainLimits(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	s.grant(t, a, 60000)
	prior := ""
	for link := 1; link <= 10; link++ {
		body := quick(fmt.Sprintf("chain link %d", link), nil)
		if prior != "" {
			body["prior_workflow_id"], body["context_fields"] = prior, []string{"step_summaries"}
		}
		prior, _ = s.runToEnd(t, a.Key, body)
	}
	res := s.lineage(t, a.Key, prior)
	wantStatus(t, res, http.StatusOK)
	if integer(t, res.Body, "chain_depth") != 10 {
		t.Fatalf("lineage of link 10: %s", res.Raw)
	}
	wantError(t, s.execute(t, a.Key, quick("chain link 11", map[string]any{"prior_workflow_id": prior})), http.StatusUnprocessableEntity, "chain_depth_exceeded")

	// 150,000 characters of additional context, inherited: about 37,500 tokens
	big, _ := s.runToEnd(t, a.Key, quick("big context", map[string]any{"context": map[string]any{"additional_context": strings.Repeat("ticket log line ", 9400)}}))
	res = s.execute(t, a.Key, quick("inherits big", map[string]any{"prior_workflow_id": big, "context_fields": []string{"additional_context"}}))
	wantError(t, res, http.StatusUnprocessableEntity, "context_too_large")
	d := object(t, object(t, res.Body, "error"), "details")
	if integer(t, d, "max_tokens") != 32000 || integer(t, d, "estimated_tokens") <= 32000 {
		t.Errorf("context_too_large details %v", d)
	}
	// the same prior without its context is fine
	s.runToEnd(t, a.Key, quick("inherits little", map[string]any{"prior_workflow_id": big}))
}

// The inherited context reaches the steps' prompts (a fake provider records
// them).
func TestChainInheritedPrompt(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	a := s.signup(t, nil)
	s.grant(t, a, 20000)
	marker := "inherited-marker-" + randomHex(6)
	first, _ := s.runToEnd(t, a.Key, quick("prompt first", map[string]any{"context": map[string]any{"additional_context": marker}}))
	before := len(llm.Requests())
	s.runToEnd(t, a.Key, quick("prompt second", map[string]any{"prior_workflow_id": first, "context_fields": []string{"additional_context", "step_summaries"}}))
	calls := llm.Requests()[before:]
	steps := 0
	for _, c := range calls {
		if c.Kind != "step" && c.Kind != "synthesis" {
			continue
		}
		steps++
		user := c.Messages[len(c.Messages)-1].Content
		if !strings.Contains(user, "## Inherited from a prior workflow\nPrior workflow "+first) || !strings.Contains(user, marker) || !strings.Contains(user, "### Step summaries") {
			t.Errorf("%s call %v lacks the inherited context:\n%s", c.Kind, c.Markers, user)
		}
		if strings.Contains(user, "## Context\n") {
			t.Errorf("%s call has the prior's additional context as its own:\n%s", c.Kind, user)
		}
	}
	if steps == 0 {
		t.Fatalf("no step calls recorded for the chained run (%d calls)", len(calls))
	}
}
