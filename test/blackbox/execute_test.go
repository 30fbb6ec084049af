package blackbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"svc/test/fakellm"
)

// competitive is an execute (or plan) body of a competitive analysis; tag
// makes the description differ (the duplicate-task window) without changing
// the plan.
func competitive(tag string, extra map[string]any) map[string]any {
	b := map[string]any{"task_description": "Compare our SaaS pricing with three competitors for the board " + tag, "task_type": "competitive_analysis"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// process is an execute (or plan) body of a process improvement, the task
// type of the tests on the shared server: a completed run gives its task
// type an execution history (cost.range of later plans, server-wide), and
// TestPlan expects competitive_analysis to have none there.
func process(tag string, extra map[string]any) map[string]any {
	b := map[string]any{"task_description": "Improve how our support team triages customer tickets " + tag, "task_type": "process_improvement"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// polling is the delivery of an execute answered with JSON.
var polling = map[string]any{"method": "polling"}

// number requires field to be a JSON number.
func number(t testing.TB, m map[string]any, field string) float64 {
	t.Helper()
	n, ok := m[field].(json.Number)
	if !ok {
		t.Fatalf("field %q is %T %v, want a number", field, m[field], m[field])
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatalf("field %q: %v", field, err)
	}
	return f
}

// wantQueued checks the JSON answer of a polling execute and returns the
// workflow id and the estimate.
func wantQueued(t testing.TB, s *server, res *response, delivery string) (string, int64) {
	t.Helper()
	wantStatus(t, res, http.StatusOK)
	b := res.Body
	id := str(t, b, "workflow_id")
	if !workflowID.MatchString(id) {
		t.Fatalf("workflow_id %q", id)
	}
	if !boolean(t, b, "ok") || str(t, b, "status") != "queued" || str(t, b, "delivery_mode") != delivery {
		t.Errorf("execute answer %s", res.Raw)
	}
	str(t, b, "task_type")
	switch vc := str(t, b, "value_class"); vc {
	case "operational", "governance", "strategic":
	default:
		t.Errorf("value_class %q", vc)
	}
	plan := object(t, b, "plan")
	if str(t, plan, "workflow_id") != id {
		t.Errorf("plan.workflow_id %v, want %s", plan["workflow_id"], id)
	}
	est := integer(t, b, "estimated_credits")
	if c := integer(t, object(t, plan, "cost"), "credits"); c != est {
		t.Errorf("estimated_credits %d != plan.cost.credits %d", est, c)
	}
	if got, want := str(t, b, "poll_url"), s.base+"/api/rigor/status/"+id; got != want {
		t.Errorf("poll_url %q, want %q (absolute)", got, want)
	}
	modes, _ := b["available_modes"].([]any)
	if len(modes) != 4 || modes[0] != "sse" || modes[1] != "polling" || modes[2] != "webhook" || modes[3] != "interactive" {
		t.Errorf("available_modes %v", b["available_modes"])
	}
	return id, est
}

// warningCodes lists the codes of an answer's top-level warnings.
func warningCodes(res *response) []string {
	var out []string
	list, _ := res.Body["warnings"].([]any)
	for _, w := range list {
		if m, ok := w.(map[string]any); ok {
			c, _ := m["code"].(string)
			out = append(out, c)
		}
	}
	return out
}

// wantWorkflowShape checks every field of spec A's Workflow table (and
// decision 42's extras) on a completed workflow.
func wantWorkflowShape(t testing.TB, wf map[string]any, id string) {
	t.Helper()
	if str(t, wf, "workflow_id") != id || str(t, wf, "status") != "completed" {
		t.Fatalf("workflow %v", wf)
	}
	str(t, wf, "task_type")
	str(t, wf, "value_class")
	total := integer(t, wf, "total_steps")
	if cur := integer(t, wf, "current_step"); cur != total {
		t.Errorf("current_step %d, total_steps %d", cur, total)
	}
	executed, skipped, incomplete := integer(t, wf, "actual_steps_executed"), integer(t, wf, "skipped_steps"), integer(t, wf, "incomplete_step_count")
	if executed+skipped+incomplete != total {
		t.Errorf("actual_steps_executed %d + skipped_steps %d + incomplete_step_count %d != total_steps %d", executed, skipped, incomplete, total)
	}
	if executed != total {
		t.Errorf("a completed run executed %d of %d steps", executed, total)
	}
	sums, ok := wf["completed_step_summaries"].([]any)
	if !ok || int64(len(sums)) != executed {
		t.Fatalf("completed_step_summaries %v, want %d entries", wf["completed_step_summaries"], executed)
	}
	for i, raw := range sums {
		s := raw.(map[string]any)
		if integer(t, s, "step") != int64(i+1) {
			t.Errorf("summary %d: step %v", i, s["step"])
		}
		if tool, fw := str(t, s, "tool"), str(t, s, "framework"); tool != fw || fw == "" {
			t.Errorf("summary %d: tool %q, framework %q (want the same display name)", i, tool, fw)
		}
		if str(t, s, "summary") == "" {
			t.Errorf("summary %d is empty", i)
		}
	}
	score := number(t, wf, "quality_score")
	if score < 0 || score > 100 {
		t.Errorf("quality_score %v", score)
	}
	review := object(t, wf, "quality_review")
	if number(t, review, "score") != score || str(t, review, "summary") == "" {
		t.Errorf("quality_review %v, quality_score %v", review, score)
	}
	d := object(t, wf, "deliverable")
	secs, _ := d["sections"].([]any)
	if str(t, d, "title") == "" || len(secs) == 0 {
		t.Fatalf("deliverable %v", d)
	}
	for i, raw := range secs {
		sec, ok := raw.(map[string]any)
		if !ok || str(t, sec, "heading") == "" || str(t, sec, "content") == "" {
			t.Errorf("deliverable section %d: %v", i, raw)
		}
	}
	integer(t, wf, "credits_used")
	integer(t, wf, "credits_live")
	integer(t, wf, "estimated_credits")
	if v, ok := wf["error"]; !ok || v != nil {
		t.Errorf("error %v (present %v), want null on completed", v, ok)
	}
	if str(t, wf, "execution_mode") != "standard" {
		t.Errorf("execution_mode %v", wf["execution_mode"])
	}
	for _, f := range []string{"execution_fallback", "current_chunk", "terminal_step_attempts", "terminal_step_strategy", "incomplete_steps", "halted_at_step", "halt_reason"} {
		if _, ok := wf[f]; ok {
			t.Errorf("%s present on a plain completed run: %v", f, wf[f])
		}
	}
	for _, f := range []string{"created_at", "updated_at", "started_at", "completed_at"} {
		if _, err := time.Parse(time.RFC3339Nano, str(t, wf, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	str(t, wf, "title")
	str(t, wf, "rigor_level")
	str(t, wf, "delivery_mode")
}

// Execute with polling delivery, then the status of the finished run; step
// models appear once the org is on Pro.
func TestExecutePolling(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	agent := strings.Repeat("é", 150)
	res := s.execute(t, a.Key, process("", map[string]any{"delivery": polling, "language": "pt-BR", "agent_id": agent}))
	id, est := wantQueued(t, s, res, "polling")
	if str(t, res.Body, "task_type") != "process_improvement" {
		t.Errorf("task_type %v", res.Body["task_type"])
	}
	if _, ok := res.Body["warnings"]; ok {
		t.Errorf("warnings present though empty: %s", res.Raw)
	}
	if res.Header.Get("X-Svc-Workflow-Id") != "" {
		t.Errorf("X-Svc-Workflow-Id on a polling answer (SSE only)")
	}

	wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
	wantWorkflowShape(t, wf, id)
	if integer(t, wf, "estimated_credits") != est || integer(t, wf, "credits_used") != 0 {
		t.Errorf("first workflow: estimated_credits %v (want %d), credits_used %v (want 0, free)", wf["estimated_credits"], est, wf["credits_used"])
	}
	if str(t, wf, "language") != "pt-BR" {
		t.Errorf("language %v, want pt-BR", wf["language"])
	}
	if got := str(t, wf, "agent_id"); got != strings.Repeat("é", 100) {
		t.Errorf("agent_id has %d characters (%d bytes), want the first 100 of 150", utf8.RuneCountInString(got), len(got))
	}
	if str(t, wf, "delivery_mode") != "polling" {
		t.Errorf("delivery_mode %v", wf["delivery_mode"])
	}
	for _, raw := range wf["completed_step_summaries"].([]any) {
		if m, ok := raw.(map[string]any)["model"]; ok {
			t.Errorf("a free org sees step models: %v", m)
		}
	}

	// Pro and above see each step's model
	if out := cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "pro"); out.Code != 0 {
		t.Fatalf("svc org set-tier: %s", out)
	}
	s.waitWorkflow(t, a.Key, id, 20*time.Second, "showing step models to a Pro org", func(wf map[string]any) bool {
		for _, raw := range wf["completed_step_summaries"].([]any) {
			if m, _ := raw.(map[string]any)["model"].(string); m == "" {
				return false
			}
		}
		return true
	})
}

// Stored plans and fresh executes, and spec A's context persistence rules.
// The offline writer quotes the context it was given in the deliverable.
func TestExecuteStoredPlanContext(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	s.grant(t, a, 10000)
	usedContext := func(id string) string {
		t.Helper()
		wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
		if wf["status"] != "completed" {
			t.Fatalf("workflow %s: %v", id, wf)
		}
		raw, _ := json.Marshal(wf["deliverable"])
		return string(raw)
	}
	plan := func(tag string, ctx string) string {
		t.Helper()
		body := process(tag, nil)
		if ctx != "" {
			body["context"] = map[string]any{"additional_context": ctx}
		}
		return s.planStored(t, a.Key, body)
	}
	cases := []struct {
		name, planCtx, bodyCtx string
		omit                   bool
		want                   string
		warning                string
	}{
		{name: "omitted: the plan's context", planCtx: "we sell to mid-market retailers", omit: true, want: "we sell to mid-market retailers"},
		{name: "identical", planCtx: "our churn doubled last quarter", bodyCtx: "our churn doubled last quarter", want: "our churn doubled last quarter"},
		{name: "differing: the body's, with a warning", planCtx: "budget is 40k EUR", bodyCtx: "budget is 90k USD", want: "budget is 90k USD", warning: "context_differs_from_plan"},
		{name: "plan without context", bodyCtx: "three sales regions", want: "three sales regions"},
	}
	for i, c := range cases {
		id := plan(string(rune('a'+i)), c.planCtx)
		if st := s.workflow(t, a.Key, id); st["status"] != "planned" {
			t.Fatalf("%s: stored plan status %v", c.name, st["status"])
		}
		body := map[string]any{"workflow_id": id, "delivery": polling}
		if !c.omit {
			body["context"] = map[string]any{"additional_context": c.bodyCtx}
		}
		res := s.execute(t, a.Key, body)
		got, _ := wantQueued(t, s, res, "polling")
		if got != id {
			t.Fatalf("%s: execute of stored plan %s answered workflow %s", c.name, id, got)
		}
		codes := warningCodes(res)
		if c.warning == "" && len(codes) > 0 {
			t.Errorf("%s: warnings %v, want none (and no warnings key)", c.name, codes)
		}
		if c.warning != "" && (len(codes) != 1 || codes[0] != c.warning) {
			t.Errorf("%s: warnings %v, want [%s]", c.name, codes, c.warning)
		}
		d := usedContext(id)
		if !strings.Contains(d, c.want) {
			t.Errorf("%s: the run did not use context %q", c.name, c.want)
		}
		if c.planCtx != "" && c.planCtx != c.want && strings.Contains(d, c.planCtx) {
			t.Errorf("%s: the run used the plan's context %q though the body's differs", c.name, c.planCtx)
		}
	}
	// with SSE delivery the warning travels in workflow_started
	id := plan("sse", "budget is 40k EUR")
	c := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key,
		Body: map[string]any{"workflow_id": id, "context": map[string]any{"additional_context": "budget is 70k GBP"}}})
	if got := wantSSEHeaders(t, c); got != id {
		t.Fatalf("SSE execute of %s streams %s", id, got)
	}
	evs := c.rest(t, 30*time.Second)
	if len(evs) == 0 || evs[0].Event != "workflow_started" {
		t.Fatalf("stream %s", names(evs))
	}
	var codes []string
	list, _ := evs[0].Data["warnings"].([]any)
	for _, w := range list {
		code, _ := w.(map[string]any)["code"].(string)
		codes = append(codes, code)
		str(t, w.(map[string]any), "message")
		str(t, w.(map[string]any), "suggestion")
	}
	if len(codes) != 1 || codes[0] != "context_differs_from_plan" {
		t.Errorf("SSE, differing context: workflow_started warnings %v, want [context_differs_from_plan]", codes)
	}
	if !strings.Contains(usedContext(id), "budget is 70k GBP") {
		t.Error("SSE, differing context: the body's context was not used")
	}

	// a fresh execute plans, persists and runs in one call; context applies
	res := s.execute(t, a.Key, process("fresh", map[string]any{"delivery": polling, "context": map[string]any{"additional_context": "board meets in May"}}))
	id, _ = wantQueued(t, s, res, "polling")
	if codes := warningCodes(res); len(codes) > 0 {
		t.Errorf("fresh execute warnings %v", codes)
	}
	if !strings.Contains(usedContext(id), "board meets in May") {
		t.Error("fresh execute: context not used")
	}
	if n := countEvents(s.settledEvents(t, a), "WorkflowQueued"); n != len(cases)+2 {
		t.Errorf("%d workflows queued, want %d", n, len(cases)+2)
	}
}

// First workflow free, the second charged exactly its estimate, 402 when the
// balance is short (and nothing queued), billing replay agrees.
func TestExecuteCredits(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)

	res := s.execute(t, a.Key, process("first", map[string]any{"delivery": polling}))
	first, _ := wantQueued(t, s, res, "polling")
	if !boolean(t, res.Body, "free") {
		t.Errorf("first execute not marked free: %s", res.Raw)
	}
	wf := s.waitTerminal(t, a.Key, first, 30*time.Second)
	if wf["status"] != "completed" || integer(t, wf, "credits_used") != 0 || integer(t, wf, "credits_live") != 0 {
		t.Fatalf("first workflow: %v", wf)
	}
	s.waitBalance(t, a.Key, 2500, 10*time.Second)

	id := s.planStored(t, a.Key, process("second", nil))
	res = s.execute(t, a.Key, map[string]any{"workflow_id": id, "delivery": polling})
	_, est := wantQueued(t, s, res, "polling")
	if boolean(t, res.Body, "free") {
		t.Errorf("second execute marked free: %s", res.Raw)
	}
	wf = s.waitTerminal(t, a.Key, id, 30*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("second workflow: %v", wf)
	}
	used := integer(t, wf, "credits_used")
	if used != est || integer(t, wf, "estimated_credits") != est {
		t.Errorf("credits_used %d, estimated_credits %v, want both %d", used, wf["estimated_credits"], est)
	}
	if live := integer(t, wf, "credits_live"); live != est-530 {
		t.Errorf("credits_live %d, want the estimate without the 530 orchestration fee: %d", live, est-530)
	}
	balance := 2500 - est
	s.waitBalance(t, a.Key, balance, 10*time.Second)
	replayBilling(t, s.dbURL, a.OrgID)

	// the balance no longer covers a plan: 402, nothing queued or charged
	short := s.planStored(t, a.Key, process("third", nil))
	res = s.execute(t, a.Key, map[string]any{"workflow_id": short, "delivery": polling})
	wantError(t, res, http.StatusPaymentRequired, "insufficient_credits")
	details := object(t, object(t, res.Body, "error"), "details")
	if integer(t, details, "required_credits") != est || integer(t, details, "balance") != balance {
		t.Errorf("402 details %v, want required_credits %d and balance %d", details, est, balance)
	}
	if st := s.workflow(t, a.Key, short); st["status"] != "planned" {
		t.Errorf("refused stored plan has status %v, want planned", st["status"])
	}
	res = s.execute(t, a.Key, process("fourth", map[string]any{"delivery": polling}))
	wantError(t, res, http.StatusPaymentRequired, "insufficient_credits")
	// an SSE execute is refused the same way, before any stream
	_, res = s.trySSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: process("fifth", nil)})
	if res == nil {
		t.Fatal("an SSE execute the balance does not cover opened a stream")
	}
	wantError(t, res, http.StatusPaymentRequired, "insufficient_credits")
	events := s.settledEvents(t, a)
	if q := countEvents(events, "WorkflowQueued"); q != 2 {
		t.Errorf("%d workflows queued, want 2 (the refused ones append nothing)", q)
	}
	if n := countEvents(events, "WorkflowPlanned"); n != 3 {
		t.Errorf("%d workflows planned, want 3 (first, second, third; refused fresh executes persist nothing)", n)
	}
	s.waitBalance(t, a.Key, balance, time.Second)
	replayBilling(t, s.dbURL, a.OrgID)
}

// Validation and refusal codes of execute.
func TestExecuteErrors(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	exec := func(body any) *response { return s.execute(t, a.Key, body) }

	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Body: process("", nil)}), http.StatusUnauthorized, "missing_api_key")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: "svc_live_" + strings.Repeat("0", 48), Body: process("", nil)}), http.StatusUnauthorized, "invalid_api_key")
	wantError(t, exec(`{"task_description":`), http.StatusBadRequest, "invalid_body")
	wantError(t, exec(`[1]`), http.StatusBadRequest, "invalid_body")
	wantError(t, exec(map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, exec(map[string]any{"delivery": polling, "context": map[string]any{"additional_context": "x"}}), http.StatusBadRequest, "missing_field")
	wantError(t, exec(map[string]any{"task_description": "pricing"}), http.StatusBadRequest, "invalid_task_description")
	wantError(t, exec(map[string]any{"task_description": ""}), http.StatusBadRequest, "invalid_task_description")
	wantError(t, exec(process("", map[string]any{"language": "english!!"})), http.StatusBadRequest, "invalid_language")
	wantError(t, exec(process("", map[string]any{"delivery": map[string]any{"method": "webhook"}})), http.StatusBadRequest, "webhook_url_required")
	wantError(t, exec(process("", map[string]any{"delivery": map[string]any{"method": "webhook", "webhook_url": "http://example.com/hook"}})), http.StatusBadRequest, "webhook_url_https")
	wantError(t, exec(process("", map[string]any{"delivery": map[string]any{"method": "webhook", "webhook_url": "not a url"}})), http.StatusBadRequest, "webhook_url_invalid")
	wantError(t, exec(process("", map[string]any{"delivery": map[string]any{"method": "webhook", "webhook_url": "https://"}})), http.StatusBadRequest, "webhook_url_invalid")
	wantError(t, exec(map[string]any{"workflow_id": "wr_" + randomHex(16)}), http.StatusNotFound, "not_found")
	wantError(t, exec(map[string]any{"workflow_id": "wr_nope"}), http.StatusNotFound, "not_found")

	// another org's stored plan
	other := s.signup(t, nil)
	foreign := s.planStored(t, other.Key, process("", nil))
	wantError(t, exec(map[string]any{"workflow_id": foreign, "delivery": polling}), http.StatusForbidden, "forbidden")
	if st := s.workflow(t, other.Key, foreign); st["status"] != "planned" {
		t.Errorf("another org's execute moved the plan to %v", st["status"])
	}
	t.Log("403 insufficient_permissions not tested: no black-box way to make a viewer key (POST /api/keys makes owners; no workspace-key endpoint or CLI yet)")

	// a stored plan runs once; a finished one has step results
	id := s.planStored(t, a.Key, process("stored", nil))
	first, _ := wantQueued(t, s, exec(map[string]any{"workflow_id": id, "delivery": polling}), "polling")
	if first != id {
		t.Fatalf("execute of %s answered %s", id, first)
	}
	if wf := s.waitTerminal(t, a.Key, id, 30*time.Second); wf["status"] != "completed" {
		t.Fatalf("status %v", wf)
	}
	wantError(t, exec(map[string]any{"workflow_id": id, "delivery": polling}), http.StatusConflict, "workflow_has_progress")

	// the same task within 5 minutes, folded for case and punctuation
	dup, _ := wantQueued(t, s, exec(map[string]any{"task_description": "Improve how our warehouse team handles returned orders", "task_type": "process_improvement", "delivery": polling}), "polling")
	res := exec(map[string]any{"task_description": "  improve HOW our warehouse-team handles returned orders!!", "task_type": "process_improvement", "delivery": polling})
	wantError(t, res, http.StatusConflict, "duplicate_task")
	if got := object(t, object(t, res.Body, "error"), "details")["existing_workflow_id"]; got != dup {
		t.Errorf("duplicate_task details.existing_workflow_id %v, want %s", got, dup)
	}
	s.waitTerminal(t, a.Key, dup, 30*time.Second)
	// the other org may submit the same task
	wantQueued(t, s, s.execute(t, other.Key, map[string]any{"task_description": "Improve how our warehouse team handles returned orders", "task_type": "process_improvement", "delivery": polling}), "polling")

	if q := countEvents(s.settledEvents(t, a), "WorkflowQueued"); q != 2 {
		t.Errorf("%d workflows queued, want 2: a refused execute appended", q)
	}
}

// A free org's one active workflow: a second execute is refused with 429,
// re-executing the queued stored plan with 409 invalid_status. The
// provider is slow so that the first run stays active.
func TestExecuteConcurrentLimit(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Delay: 300 * time.Millisecond})
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	a := s.signup(t, nil)

	id := s.planStored(t, a.Key, competitive("slow", nil))
	got, _ := wantQueued(t, s, s.execute(t, a.Key, map[string]any{"workflow_id": id, "delivery": polling}), "polling")
	if got != id {
		t.Fatalf("execute of %s answered %s", id, got)
	}
	wantError(t, s.execute(t, a.Key, map[string]any{"workflow_id": id, "delivery": polling}), http.StatusConflict, "invalid_status")

	res := s.execute(t, a.Key, competitive("another", map[string]any{"delivery": polling}))
	wantError(t, res, http.StatusTooManyRequests, "concurrent_limit_exceeded")
	details := object(t, object(t, res.Body, "error"), "details")
	active, _ := details["active_workflows"].([]any)
	if integer(t, details, "active_count") != 1 || integer(t, details, "limit") != 1 || len(active) != 1 || active[0] != id {
		t.Errorf("429 details %v, want active_count 1, limit 1, active_workflows [%s]", details, id)
	}
	if st := s.workflow(t, a.Key, id); terminalStatuses[st["status"].(string)] {
		t.Fatalf("the slow run already ended (%v): the checks above prove nothing", st["status"])
	}

	// the slot is released with the terminal event
	if wf := s.waitTerminal(t, a.Key, id, 30*time.Second); wf["status"] != "completed" {
		t.Fatalf("status %v", wf)
	}
	wantError(t, s.execute(t, a.Key, map[string]any{"workflow_id": id, "delivery": polling}), http.StatusConflict, "workflow_has_progress")
	next, _ := wantQueued(t, s, s.execute(t, a.Key, competitive("another", map[string]any{"delivery": polling})), "polling")
	if wf := s.waitTerminal(t, a.Key, next, 30*time.Second); wf["status"] != "completed" {
		t.Fatalf("status %v", wf)
	}
}
