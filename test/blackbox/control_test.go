package blackbox

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/test/fakellm"
)

// setTier moves a's org to tier and waits until the server sees it (keys
// are cached for a few seconds).
func (s *server) setTier(t testing.TB, a account, tier string) {
	t.Helper()
	if out := cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", tier); out.Code != 0 {
		t.Fatalf("svc org set-tier: %s", out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := s.do(t, req{Path: "/api/keys/verify", Key: a.Key})
		if paid, _ := res.Body["is_paid"].(bool); paid == (tier != "free") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tier %s not visible: %s", tier, res.Raw)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// stepCall sends POST /api/rigor/step.
func (s *server) stepCall(t testing.TB, key string, body map[string]any) *response {
	t.Helper()
	return s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/step", Key: key, Body: body})
}

// waitStatus waits until workflow id has status.
func (s *server) waitStatus(t testing.TB, key, id, status string) map[string]any {
	t.Helper()
	return s.waitWorkflow(t, key, id, 30*time.Second, status, func(wf map[string]any) bool { return wf["status"] == status })
}

// An interactive workflow driven step by step: next (with its lock and
// feedback), skip, abort, and every error of POST /step.
func TestInteractive(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Match: "kind=step", Delay: 800 * time.Millisecond})
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	a := s.signup(t, nil)
	interactive := func(tag string) map[string]any {
		return process(tag, map[string]any{"mode": "interactive", "preferences": map[string]any{"rigor_level": "quick"}})
	}

	wantError(t, s.execute(t, a.Key, interactive("free")), http.StatusForbidden, "tier_required")
	s.setTier(t, a, "pro")
	s.grant(t, a, 50000)

	res := s.execute(t, a.Key, interactive("one"))
	wantStatus(t, res, http.StatusOK)
	id := str(t, res.Body, "workflow_id")
	if str(t, res.Body, "status") != "interactive_waiting" || str(t, res.Body, "delivery_mode") != "interactive" {
		t.Fatalf("interactive execute %s", res.Raw)
	}
	seq, _ := res.Body["sequence"].([]any)
	total := integer(t, res.Body, "total_steps")
	if len(seq) != int(total) || total < 3 {
		t.Fatalf("sequence %v total %d", seq, total)
	}
	first := seq[0].(map[string]any)
	if integer(t, first, "index") != 0 || str(t, first, "name") == "" {
		t.Errorf("sequence[0] %v", first)
	}
	boolean(t, first, "required")
	cost := object(t, res.Body, "cost")
	if integer(t, cost, "credits") <= 0 || number(t, cost, "usd") <= 0 || !boolean(t, res.Body, "free") || object(t, res.Body, "classification")["task_type"] != "process_improvement" {
		t.Errorf("cost %v classification %v", cost, res.Body["classification"])
	}
	if wf := s.workflow(t, a.Key, id); wf["status"] != "interactive_waiting" {
		t.Fatalf("status %v", wf["status"])
	}

	// next runs one step; a second call meanwhile meets the lock
	res = s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "next", "feedback": "Mention the night shift."})
	wantStatus(t, res, http.StatusOK)
	step := object(t, res.Body, "step")
	if str(t, res.Body, "status") != "step_executing" || integer(t, step, "index") != 0 || str(t, step, "name") != str(t, first, "name") ||
		str(t, res.Body, "poll_url") != s.base+"/api/rigor/status/"+id || str(t, res.Body, "message") == "" {
		t.Errorf("next %s", res.Raw)
	}
	res = s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "next"})
	wantError(t, res, http.StatusConflict, "concurrent_step")
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("concurrent_step without Retry-After")
	}
	wf := s.waitStatus(t, a.Key, id, "interactive_waiting")
	if integer(t, wf, "actual_steps_executed") != 1 || integer(t, wf, "current_step") != 1 {
		t.Errorf("after one step %v", wf)
	}
	found := false
	for _, c := range llm.Requests() {
		if c.Kind == "step" && strings.Contains(c.Messages[len(c.Messages)-1].Content, "Mention the night shift.") {
			found = true
		}
	}
	if !found {
		t.Errorf("the feedback did not reach the step's prompt")
	}

	// skip records the step skipped and names the next one
	res = s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "skip"})
	wantStatus(t, res, http.StatusOK)
	executed, next := object(t, res.Body, "step_executed"), object(t, res.Body, "next_step")
	if str(t, res.Body, "status") != "interactive_waiting" || integer(t, executed, "step") != 2 || str(t, executed, "status") != "skipped" ||
		integer(t, next, "index") != 2 || integer(t, res.Body, "steps_completed") != 1 || integer(t, res.Body, "total_steps") != total {
		t.Errorf("skip %s", res.Raw)
	}
	if wf := s.workflow(t, a.Key, id); integer(t, wf, "skipped_steps") != 1 {
		t.Errorf("skipped_steps %v", wf["skipped_steps"])
	}

	// abort ends it (the org's first workflow: free)
	res = s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "abort"})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "status") != "aborted" || integer(t, res.Body, "steps_completed") != 1 || integer(t, res.Body, "total_steps") != total {
		t.Errorf("abort %s", res.Raw)
	}
	wf = s.workflow(t, a.Key, id)
	if wf["status"] != "aborted" || integer(t, wf, "credits_used") != 0 ||
		integer(t, wf, "actual_steps_executed")+integer(t, wf, "skipped_steps")+integer(t, wf, "incomplete_step_count") != total {
		t.Errorf("aborted workflow %v", wf)
	}
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "next"}), http.StatusConflict, "invalid_status")

	// errors
	wantError(t, s.stepCall(t, a.Key, map[string]any{"action": "next"}), http.StatusBadRequest, "missing_field")
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": id}), http.StatusBadRequest, "missing_field")
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "jump"}), http.StatusBadRequest, "invalid_action")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/step", Key: a.Key, Body: "{"}), http.StatusBadRequest, "invalid_body")
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": "wr_" + randomHex(16), "action": "next"}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/step", Body: map[string]any{"workflow_id": id, "action": "next"}}), http.StatusUnauthorized, "missing_api_key")
	full, _ := wantQueued(t, s, s.execute(t, a.Key, process("full", map[string]any{"delivery": polling, "preferences": map[string]any{"rigor_level": "quick"}})), "polling")
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": full, "action": "next"}), http.StatusBadRequest, "invalid_field")
	other := s.signup(t, nil)
	s.setTier(t, other, "pro")
	wantError(t, s.stepCall(t, other.Key, map[string]any{"workflow_id": id, "action": "next"}), http.StatusNotFound, "not_found")
	s.waitTerminal(t, a.Key, full, 60*time.Second)

	// driven to the end: the last result runs the review and completes it
	res = s.execute(t, a.Key, interactive("two"))
	wantStatus(t, res, http.StatusOK)
	id = str(t, res.Body, "workflow_id")
	for i := int64(0); i < total; i++ {
		wantStatus(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "next"}), http.StatusOK)
		if i < total-1 {
			s.waitStatus(t, a.Key, id, "interactive_waiting")
		}
	}
	wf = s.waitTerminal(t, a.Key, id, 60*time.Second)
	if wf["status"] != "completed" || integer(t, wf, "actual_steps_executed") != total || wf["deliverable"] == nil || wf["quality_score"] == nil {
		t.Errorf("interactive run to the end %v", wf)
	}
	if integer(t, wf, "credits_used") != integer(t, wf, "estimated_credits") {
		t.Errorf("credits_used %v, estimated %v", wf["credits_used"], wf["estimated_credits"])
	}
}

// An idle interactive session times out on the next step call (410), and
// resume runs its remaining steps to the end.
func TestInteractiveSessionExpiry(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"SVC_INTERACTIVE_IDLE": "1s"})
	a := s.signup(t, nil)
	s.setTier(t, a, "pro")
	res := s.execute(t, a.Key, process("idle", map[string]any{"mode": "interactive", "preferences": map[string]any{"rigor_level": "quick"}}))
	wantStatus(t, res, http.StatusOK)
	id := str(t, res.Body, "workflow_id")
	time.Sleep(1500 * time.Millisecond)
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "next"}), http.StatusGone, "session_expired")
	if wf := s.workflow(t, a.Key, id); wf["status"] != "timed_out" {
		t.Fatalf("status %v, want timed_out", wf["status"])
	}
	wantError(t, s.stepCall(t, a.Key, map[string]any{"workflow_id": id, "action": "next"}), http.StatusConflict, "invalid_status")
	res = s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/resume", Key: a.Key, Body: map[string]any{"workflow_id": id}})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "status") != "resuming" || integer(t, res.Body, "resuming_from_step") != 1 || res.Body["revision_guidance"] != nil {
		t.Errorf("resume %s", res.Raw)
	}
	if wf := s.waitTerminal(t, a.Key, id, 60*time.Second); wf["status"] != "completed" {
		t.Errorf("resumed session %v", wf)
	}
}

// Approval gates: the run pauses with the deliverable so far; approved
// notes reach the later steps; rejection fails it.
func TestApprovalGates(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	a := s.signup(t, nil)
	s.setTier(t, a, "team")
	s.grant(t, a, 50000)

	id, _ := wantQueued(t, s, s.execute(t, a.Key, process("gated", map[string]any{"delivery": polling,
		"preferences": map[string]any{"require_approval": true}})), "polling")
	wf := s.waitStatus(t, a.Key, id, "pending_approval")
	d := object(t, wf, "deliverable")
	if sections, _ := d["sections"].([]any); len(sections) == 0 || str(t, wf, "approval_status") != "pending" {
		t.Errorf("pending approval without a partial deliverable: %v", wf)
	}
	gateStep := integer(t, wf, "pending_approval_step")

	approve := func(key string, body map[string]any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/approve", Key: key, Body: body})
	}
	wantError(t, approve(a.Key, map[string]any{"workflow_id": id}), http.StatusBadRequest, "missing_field")
	wantError(t, approve(a.Key, map[string]any{"decision": "approved"}), http.StatusBadRequest, "missing_field")
	wantError(t, approve(a.Key, map[string]any{"workflow_id": id, "decision": "maybe"}), http.StatusBadRequest, "invalid_field")
	wantError(t, approve(a.Key, map[string]any{"workflow_id": "wr_" + randomHex(16), "decision": "approved"}), http.StatusNotFound, "not_found")
	other := s.signup(t, nil)
	wantError(t, approve(other.Key, map[string]any{"workflow_id": id, "decision": "approved"}), http.StatusNotFound, "not_found")

	before := len(llm.Requests())
	res := approve(a.Key, map[string]any{"workflow_id": id, "decision": "approved", "notes": "Keep it under a page."})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "decision") != "approved" || str(t, res.Body, "workflow_id") != id || str(t, res.Body, "message") == "" {
		t.Errorf("approve %s", res.Raw)
	}
	wf = s.waitTerminal(t, a.Key, id, 60*time.Second)
	if wf["status"] != "completed" || str(t, wf, "approval_status") != "approved" {
		t.Fatalf("approved run %v", wf)
	}
	noted := 0
	for _, c := range llm.Requests()[before:] {
		if (c.Kind == "step" || c.Kind == "synthesis") && strings.Contains(c.Messages[len(c.Messages)-1].Content, "Keep it under a page.") {
			noted++
		}
	}
	if noted == 0 {
		t.Errorf("the approver's notes reached no later step")
	}
	if int64(noted) > integer(t, wf, "total_steps")-gateStep+1 {
		t.Errorf("notes in %d calls, more than the steps after the gate", noted)
	}
	wantError(t, approve(a.Key, map[string]any{"workflow_id": id, "decision": "approved"}), http.StatusConflict, "invalid_status")

	// a gate by index; rejected
	id, _ = wantQueued(t, s, s.execute(t, a.Key, process("gated by index", map[string]any{"delivery": polling,
		"preferences": map[string]any{"approval_before_step": []int{1}}})), "polling")
	wf = s.waitStatus(t, a.Key, id, "pending_approval")
	if integer(t, wf, "pending_approval_step") != 2 || integer(t, wf, "actual_steps_executed") != 1 {
		t.Errorf("gate before index 1: %v", wf)
	}
	res = approve(a.Key, map[string]any{"workflow_id": id, "decision": "rejected", "notes": "Wrong team."})
	wantStatus(t, res, http.StatusOK)
	w := object(t, res.Body, "workflow")
	if str(t, w, "status") != "failed" || str(t, w, "halt_reason") != "rejected" || str(t, w, "workflow_id") != id {
		t.Errorf("reject %s", res.Raw)
	}
	wf = s.waitTerminal(t, a.Key, id, 10*time.Second)
	if wf["status"] != "failed" || wf["halt_reason"] != "rejected" || integer(t, wf, "actual_steps_executed") != 1 || integer(t, wf, "credits_used") <= 0 {
		t.Errorf("rejected workflow %v", wf)
	}
	// a rejection is final
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/resume", Key: a.Key, Body: map[string]any{"workflow_id": id}}), http.StatusConflict, "invalid_status")
}

// Resume: its source statuses, only the remaining steps charged, revision
// guidance, the optimistic lock and every error.
func TestResume(t *testing.T) {
	t.Parallel()
	primary := fakellm.New()
	t.Cleanup(primary.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": primary.URL()})
	a := s.signup(t, nil)
	s.grant(t, a, 50000)
	resume := func(key, query string, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/resume" + query, Key: key, Body: body})
	}
	warm, _ := s.runToEnd(t, a.Key, process("warm", map[string]any{"delivery": polling, "preferences": map[string]any{"rigor_level": "quick"}}))
	wantError(t, resume(a.Key, "", map[string]any{"workflow_id": warm}), http.StatusConflict, "already_complete")
	planned := s.planStored(t, a.Key, process("only planned", nil))
	res := resume(a.Key, "", map[string]any{"workflow_id": planned})
	wantError(t, res, http.StatusConflict, "invalid_status")
	if allowed, _ := object(t, object(t, res.Body, "error"), "details")["allowed_statuses"].([]any); len(allowed) != 8 {
		t.Errorf("allowed_statuses %v", allowed)
	}
	wantError(t, resume(a.Key, "", map[string]any{}), http.StatusBadRequest, "missing_field")
	wantError(t, resume(a.Key, "", "[]"), http.StatusBadRequest, "invalid_body")
	wantError(t, resume(a.Key, "", map[string]any{"workflow_id": "wr_" + randomHex(16)}), http.StatusNotFound, "not_found")

	// a run failed at a step (every provider down) resumes from that step
	balance := s.balance(t, a.Key)
	primary.AddRule(fakellm.Rule{Match: "framework=Value Stream Map", Status: http.StatusInternalServerError}) // step 2
	id, est := wantQueued(t, s, s.execute(t, a.Key, process("fails", map[string]any{"delivery": polling})), "polling")
	wf := s.waitTerminal(t, a.Key, id, 60*time.Second)
	if wf["status"] != "failed" || integer(t, wf, "credits_used") != 0 {
		t.Fatalf("failing run %v", wf)
	}
	primary.ClearRules()
	s.waitBalance(t, a.Key, balance, 10*time.Second) // step 1 refunded

	// concurrent resumes: one wins, the others meet the lock
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		codes = map[string]int{}
		won   *response
	)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.try(req{Method: http.MethodPost, Path: "/api/rigor/resume", Key: a.Key, Body: map[string]any{"workflow_id": id, "revision_guidance": "Name an owner per action."}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if r.Status == http.StatusOK {
				codes["ok"]++
				won = r
				return
			}
			e, _ := r.Body["error"].(map[string]any)
			c, _ := e["code"].(string)
			codes[c]++
		}()
	}
	wg.Wait()
	if codes["ok"] != 1 || codes["ok"]+codes["resume_conflict"] != 4 {
		t.Fatalf("four concurrent resumes answered %v, want one 200 and resume_conflict", codes)
	}
	if str(t, won.Body, "status") != "resuming" || integer(t, won.Body, "resuming_from_step") != 2 || str(t, won.Body, "revision_guidance") != "Name an owner per action." ||
		integer(t, won.Body, "total_steps") < 3 || str(t, won.Body, "poll_url") != s.base+"/api/rigor/status/"+id {
		t.Errorf("resume %s", won.Raw)
	}
	wf = s.waitTerminal(t, a.Key, id, 60*time.Second)
	if wf["status"] != "completed" || str(t, wf, "revision_guidance") != "Name an owner per action." {
		t.Fatalf("resumed run %v", wf)
	}
	// step 1's charge was refunded with the failure: only the rest is paid
	used := integer(t, wf, "credits_used")
	if used >= est || used <= 0 {
		t.Errorf("credits_used %d of an estimate of %d: want only the remaining steps", used, est)
	}
	s.waitBalance(t, a.Key, balance-used, 10*time.Second)
	guided := 0
	for _, c := range primary.Requests() {
		if c.Kind == "step" && strings.Contains(c.Messages[len(c.Messages)-1].Content, "Name an owner per action.") {
			guided++
		}
	}
	if guided == 0 {
		t.Errorf("revision guidance reached no later step")
	}

	// a paused run resumes past its gate
	s.setTier(t, a, "pro")
	gated, _ := wantQueued(t, s, s.execute(t, a.Key, process("gated", map[string]any{"delivery": polling, "preferences": map[string]any{"approval_before_step": []int{1}}})), "polling")
	s.waitStatus(t, a.Key, gated, "pending_approval")
	res = resume(a.Key, "", map[string]any{"workflow_id": gated})
	wantStatus(t, res, http.StatusOK)
	if integer(t, res.Body, "resuming_from_step") != 2 {
		t.Errorf("resume at the gate %s", res.Raw)
	}
	if wf := s.waitTerminal(t, a.Key, gated, 60*time.Second); wf["status"] != "completed" {
		t.Errorf("resumed past the gate %v", wf)
	}
}

// Bulk cancel: preview, confirm, force, other orgs' ids, and its errors.
func TestBulkCancel(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Match: "kind=step", Delay: 2 * time.Second})
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL()})
	a := s.signup(t, nil)
	s.setTier(t, a, "team")
	s.grant(t, a, 50000)
	actions := func(key string, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/workflows/actions", Key: key, Body: body})
	}

	planned := s.planStored(t, a.Key, process("planned", nil))
	running, _ := wantQueued(t, s, s.execute(t, a.Key, process("running", map[string]any{"delivery": polling})), "polling")
	s.waitWorkflow(t, a.Key, running, 20*time.Second, "executing", func(wf map[string]any) bool { return wf["status"] == "executing" })
	b := s.signup(t, nil)
	foreign := s.planStored(t, b.Key, process("foreign", nil))
	ids := []string{planned, running, foreign, planned}

	res := actions(a.Key, map[string]any{"action": "cancel", "workflow_ids": ids})
	wantStatus(t, res, http.StatusOK)
	affected, _ := res.Body["affected"].([]any)
	skip, _ := res.Body["would_skip"].([]any)
	if !boolean(t, res.Body, "preview") || len(affected) != 1 || len(skip) != 1 || str(t, res.Body, "message") == "" || str(t, res.Body, "request_id") == "" {
		t.Fatalf("preview %s", res.Raw)
	}
	if m := affected[0].(map[string]any); m["workflow_id"] != planned || m["current_status"] != "planned" || m["action"] != "cancel" {
		t.Errorf("affected %v", m)
	}
	if m := skip[0].(map[string]any); m["workflow_id"] != running || str(t, m, "reason") == "" {
		t.Errorf("would_skip %v", m)
	}
	if wf := s.workflow(t, a.Key, planned); wf["status"] != "planned" {
		t.Errorf("a preview changed %v", wf["status"])
	}
	res = actions(a.Key, map[string]any{"action": "cancel", "workflow_ids": ids, "force": true})
	if affected, _ := res.Body["affected"].([]any); len(affected) != 2 || affected[1].(map[string]any)["action"] != "force_cancel" {
		t.Errorf("forced preview %s", res.Raw)
	}

	res = actions(a.Key, map[string]any{"action": "cancel", "workflow_ids": ids, "force": true, "confirm": true})
	wantStatus(t, res, http.StatusOK)
	results := object(t, res.Body, "results")
	succeeded, _ := results["succeeded"].([]any)
	failed, _ := results["failed"].([]any)
	if len(succeeded) != 2 || failed == nil || len(failed) != 0 || integer(t, res.Body, "credits_used") != 0 {
		t.Fatalf("confirm %s", res.Raw)
	}
	if rem := integer(t, res.Body, "credits_remaining"); rem <= 0 {
		t.Errorf("credits_remaining %d after a grant of 50,000", rem)
	}
	for _, raw := range succeeded {
		m := raw.(map[string]any)
		if m["new_status"] != "cancelled" || (m["workflow_id"] == running && m["previous_status"] != "executing") {
			t.Errorf("succeeded %v", m)
		}
	}
	wf := s.waitTerminal(t, a.Key, running, 10*time.Second)
	if wf["status"] != "cancelled" {
		t.Errorf("force-cancelled run %v", wf["status"])
	}
	time.Sleep(3 * time.Second) // the step in flight ends: nothing more is recorded
	if after := s.workflow(t, a.Key, running); after["status"] != "cancelled" || integer(t, after, "actual_steps_executed") != integer(t, wf, "actual_steps_executed") {
		t.Errorf("the run went on after its cancel: %v", after)
	}
	if wf := s.workflow(t, b.Key, foreign); wf["status"] != "planned" {
		t.Errorf("another org's workflow was touched: %v", wf["status"])
	}
	res = actions(a.Key, map[string]any{"action": "cancel", "workflow_ids": []string{planned}, "confirm": true})
	skipped, _ := object(t, res.Body, "results")["skipped"].([]any)
	if len(skipped) != 1 || !strings.Contains(str(t, skipped[0].(map[string]any), "reason"), "cancelled") {
		t.Errorf("cancelling a cancelled workflow %s", res.Raw)
	}

	// errors
	many := make([]string, 21)
	for i := range many {
		many[i] = "wr_" + randomHex(16)
	}
	wantError(t, actions(a.Key, map[string]any{"action": "cancel", "workflow_ids": many}), http.StatusBadRequest, "bulk_limit_exceeded")
	wantError(t, actions(a.Key, map[string]any{"action": "cancel", "workflow_ids": []string{}}), http.StatusBadRequest, "no_workflow_ids")
	wantError(t, actions(a.Key, map[string]any{"action": "cancel"}), http.StatusBadRequest, "no_workflow_ids")
	wantError(t, actions(a.Key, map[string]any{"action": "delete", "workflow_ids": []string{planned}}), http.StatusBadRequest, "invalid_action")
	wantError(t, actions(a.Key, map[string]any{"workflow_ids": []string{planned}}), http.StatusBadRequest, "missing_field")
	wantError(t, actions(a.Key, "nope"), http.StatusBadRequest, "invalid_body")
	wantError(t, actions("", map[string]any{"action": "cancel", "workflow_ids": []string{planned}}), http.StatusUnauthorized, "missing_api_key")
}
