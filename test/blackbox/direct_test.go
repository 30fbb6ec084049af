package blackbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"svc/test/fakellm"
)

// Direct execution (spec A): composed content steps, the output_contract
// validated in place of the review, and the fallbacks to standard.

// ticketContract is an output_contract of ticket tags.
var ticketContract = map[string]any{"task_type": "ticket_tags", "shape": "array", "count": map[string]any{"min": 2, "max": 10},
	"fields": []any{map[string]any{"name": "ticket", "type": "string"},
		map[string]any{"name": "tag", "type": "string", "enum": []string{"billing", "bug", "feature"}},
		map[string]any{"name": "confidence", "type": "number", "minimum": 0, "maximum": 1}}}

// tagging is an execute body of the atomic task type tag.
func tagging(tag string, prefs map[string]any) map[string]any {
	return map[string]any{"task_description": "Tag these forty support tickets by product area and urgency " + tag, "task_type": "tag",
		"delivery": polling, "preferences": prefs}
}

// stepOutput is the workflow's only step_outputs entry.
func stepOutput(t testing.TB, wf map[string]any) map[string]any {
	t.Helper()
	outs, _ := wf["step_outputs"].([]any)
	if len(outs) != 1 {
		t.Fatalf("step_outputs %v", wf["step_outputs"])
	}
	return outs[0].(map[string]any)
}

// With the fake LLM: an explicit direct run composes its content steps
// into one call; an atomic type runs direct by itself, and a conforming
// contract output replaces the review; a violating one fails its step.
func TestDirectExecution(t *testing.T) {
	t.Parallel()
	fake := fakellm.New()
	t.Cleanup(fake.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": fake.URL()})
	a := s.signup(t, nil)

	t.Run("content steps composed", func(t *testing.T) {
		fake.Reset()
		res := s.execute(t, a.Key, competitive("direct", map[string]any{"delivery": polling, "preferences": map[string]any{"execution": "direct"}}))
		id, _ := wantQueued(t, s, res, "polling")
		if plan := object(t, res.Body, "plan"); plan["execution"] != "direct" {
			t.Fatalf("plan execution %v", plan["execution"])
		}
		wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
		if wf["status"] != "completed" || wf["execution_mode"] != "direct" || wf["execution_fallback"] != nil {
			t.Fatalf("workflow %v", wf)
		}
		total := integer(t, wf, "total_steps")
		if sums, _ := wf["completed_step_summaries"].([]any); int64(len(sums)) != total || integer(t, wf, "actual_steps_executed") != total {
			t.Errorf("summaries %v of %d steps", wf["completed_step_summaries"], total)
		}
		composed := "Market Definition | Porter's Five Forces | SWOT Analysis"
		if n := fake.CallsByFramework()[composed]; n != 1 || fake.Calls("composed=3") != 1 {
			t.Errorf("composed calls %d, by framework %v", n, fake.CallsByFramework())
		}
		if byKind := fake.CallsByKind(); byKind["step"] != 3 || byKind["synthesis"] != 1 || byKind["review"] != 1 {
			t.Errorf("calls by kind %v: want the composed call, the research step and the review step", byKind)
		}
		for _, name := range []string{"Market Definition", "SWOT Analysis"} {
			if n := fake.CallsByFramework()[name]; n != 0 {
				t.Errorf("%s had a call of its own", name)
			}
		}
	})

	t.Run("atomic with a conforming contract", func(t *testing.T) {
		fake.Reset()
		fake.AddRule(fakellm.Rule{Match: "contract=ticket_tags",
			Answer: `[{"ticket":"T-1","tag":"billing","confidence":0.9},{"ticket":"T-2","tag":"bug","confidence":0.5}]`})
		t.Cleanup(fake.ClearRules)
		res := s.execute(t, a.Key, tagging("conforming", map[string]any{"output_contract": ticketContract}))
		id, _ := wantQueued(t, s, res, "polling")
		wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
		if wf["status"] != "completed" || wf["execution_mode"] != "direct" || integer(t, wf, "quality_score") != 100 {
			t.Fatalf("workflow %v", wf)
		}
		out := stepOutput(t, wf)
		if out["output_validation_status"] != "valid" || len(out["output_findings"].([]any)) != 2 {
			t.Errorf("step output %v", out)
		}
		if byKind := fake.CallsByKind(); byKind["step"] != 2 || byKind["synthesis"] != 1 || byKind["review"] != 0 {
			t.Errorf("calls by kind %v: want 2 step calls, the synthesis and no review", byKind)
		}
	})

	t.Run("violating contract", func(t *testing.T) {
		fake.Reset() // the fake answers the synthesis with a deliverable: no key of it is declared
		res := s.execute(t, a.Key, tagging("violating", map[string]any{"execution": "direct", "output_contract": ticketContract}))
		id, est := wantQueued(t, s, res, "polling")
		wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
		if wf["status"] != "completed_partial" || wf["deliverable"] != nil || wf["quality_score"] != nil {
			t.Fatalf("workflow %v", wf)
		}
		if used := integer(t, wf, "credits_used"); used != est-530 {
			t.Errorf("credits_used %d, want the estimate %d less the fee", used, est)
		}
		incomplete, _ := wf["incomplete_steps"].([]any)
		if len(incomplete) != 1 || !strings.Contains(incomplete[0].(map[string]any)["reason"].(string), "invalid_schema") {
			t.Errorf("incomplete_steps %v", wf["incomplete_steps"])
		}
		out := stepOutput(t, wf)
		paths := map[string]bool{}
		for _, v := range out["output_validation_violations"].([]any) {
			paths[v.(map[string]any)["path"].(string)] = true
		}
		if out["output_validation_status"] != "invalid_schema" || out["output_findings"] != nil || !paths["[0].ticket"] || !paths["[0].title"] {
			t.Errorf("step output %v", out)
		}
		if n := fake.CallsByKind()["review"]; n != 0 {
			t.Errorf("%d review calls", n)
		}
	})
}

// With the offline writer: the contract output conforms as given; an
// approval gate or interactive mode runs standard instead.
func TestDirectOfflineAndFallbacks(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)

	a := s.signup(t, nil)
	id, _ := wantQueued(t, s, s.execute(t, a.Key, tagging("offline", map[string]any{"output_contract": ticketContract})), "polling")
	wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
	if wf["status"] != "completed" || wf["execution_mode"] != "direct" || integer(t, wf, "quality_score") != 100 {
		t.Fatalf("workflow %v", wf)
	}
	out := stepOutput(t, wf)
	findings, _ := out["output_findings"].([]any)
	if out["output_validation_status"] != "valid" || len(findings) < 2 {
		t.Fatalf("step output %v", out)
	}
	d := object(t, wf, "deliverable")
	sections, _ := d["sections"].([]any)
	if len(sections) != 1 || !json.Valid([]byte(sections[0].(map[string]any)["content"].(string))) {
		t.Errorf("deliverable %v", d)
	}
	review := object(t, wf, "quality_review")
	if !strings.Contains(str(t, review, "summary"), "replaced the independent review") {
		t.Errorf("quality_review %v", review)
	}

	b := s.signup(t, nil)
	s.setTier(t, b, "team")
	gated, _ := wantQueued(t, s, s.execute(t, b.Key, competitive("gated", map[string]any{"delivery": polling,
		"preferences": map[string]any{"execution": "direct", "require_approval": true}})), "polling")
	wf = s.waitStatus(t, b.Key, gated, "pending_approval")
	if wf["execution_mode"] != "standard" || wf["execution_fallback"] != true {
		t.Errorf("direct with approval: %v %v", wf["execution_mode"], wf["execution_fallback"])
	}

	c := s.signup(t, nil)
	s.setTier(t, c, "pro")
	res := s.execute(t, c.Key, competitive("interactive", map[string]any{"mode": "interactive", "preferences": map[string]any{"execution": "direct"}}))
	wantStatus(t, res, http.StatusOK)
	wf = s.waitStatus(t, c.Key, str(t, res.Body, "workflow_id"), "interactive_waiting")
	if wf["execution_mode"] != "standard" || wf["execution_fallback"] != true {
		t.Errorf("direct in interactive mode: %v %v", wf["execution_mode"], wf["execution_fallback"])
	}
}

// A server with SVC_DIRECT_EXECUTION=false falls back when the run
// starts: an execution_fallback event, then a standard run.
func TestDirectRuntimeFallback(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"SVC_DIRECT_EXECUTION": "false"})
	a := s.signup(t, nil)
	c := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: competitive("fallback", map[string]any{"preferences": map[string]any{"execution": "direct"}})})
	id := wantSSEHeaders(t, c)
	evs := progress(c.rest(t, 30*time.Second))
	fallback, firstStep := -1, -1
	for i, e := range evs {
		switch {
		case e.Event == "execution_fallback":
			fallback = i
			if e.ID != id+":execution_fallback" || e.Data["execution_mode"] != "standard" || e.Data["reason"] != "server_disallowed" || e.Data["execution_fallback"] != true {
				t.Errorf("execution_fallback event %s %s", e.ID, e.Raw)
			}
		case e.Event == "step_started" && firstStep < 0:
			firstStep = i
		}
	}
	if fallback < 0 || firstStep < fallback || evs[len(evs)-1].Event != "workflow_completed" {
		t.Fatalf("events %s", names(evs))
	}
	wf := s.waitTerminal(t, a.Key, id, 10*time.Second)
	if wf["status"] != "completed" || wf["execution_mode"] != "standard" || wf["execution_fallback"] != true {
		t.Fatalf("workflow %v", wf)
	}
}
