package blackbox

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"svc/test/fakellm"
)

// Provider failures through fake OpenAI-compatible servers: a content step
// that fails on the primary and the fallback fails the run (refunded, the
// stream ends with workflow_error); a step only the primary fails completes
// through the fallback. The subtests run in turn: rules are server-wide.
func TestLLMProviderFailures(t *testing.T) {
	t.Parallel()
	primary, fallback := fakellm.New(), fakellm.New()
	t.Cleanup(primary.Close)
	t.Cleanup(fallback.Close)
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": primary.URL(), "SVC_LLM_FALLBACK_BASE_URL": fallback.URL()})

	t.Run("exhausted: failed, refunded, workflow_error", func(t *testing.T) {
		primary.Reset()
		fallback.Reset()
		a := s.signup(t, nil)
		// the org's free first workflow, so that the failing one is charged
		warm, _ := wantQueued(t, s, s.execute(t, a.Key, map[string]any{"task_description": "Write a go-to-market plan for our new analytics product", "delivery": polling}), "polling")
		if wf := s.waitTerminal(t, a.Key, warm, 30*time.Second); wf["status"] != "completed" {
			t.Fatalf("warm-up workflow %v", wf)
		}
		// SWOT Analysis is step 4 of 6 of a competitive analysis, a content step
		const match = "framework=SWOT Analysis"
		primary.AddRule(fakellm.Rule{Match: match, Status: http.StatusInternalServerError})
		fallback.AddRule(fakellm.Rule{Match: match, Status: http.StatusInternalServerError})
		t.Cleanup(primary.ClearRules)
		t.Cleanup(fallback.ClearRules)

		c := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: competitive("", nil)})
		id := wantSSEHeaders(t, c)
		evs := progress(c.rest(t, 30*time.Second))
		if len(evs) < 2 || evs[0].Event != "workflow_started" {
			t.Fatalf("stream %s", names(evs))
		}
		last := evs[len(evs)-1]
		if last.Event != "workflow_error" || last.ID != id+":error" {
			t.Fatalf("the stream ends with %s (%s), want workflow_error (%s:error): %s", last.Event, last.ID, id, names(evs))
		}
		if str(t, last.Data, "status") != "failed" || str(t, last.Data, "code") != "provider_exhausted" || integer(t, last.Data, "credits_used") != 0 {
			t.Errorf("workflow_error data %s", last.Raw)
		}
		for _, e := range evs {
			if e.Event == "step_completed" && integer(t, e.Data, "step") >= 4 {
				t.Errorf("a step at or after the failing one completed: %s", e.Raw)
			}
			if e.Event == "quality_review" || e.Event == "workflow_completed" {
				t.Errorf("%s in a failed run", e.Event)
			}
		}

		wf := s.waitTerminal(t, a.Key, id, 10*time.Second)
		if wf["status"] != "failed" {
			t.Fatalf("status %v, want failed", wf)
		}
		if msg, _ := wf["error"].(string); !strings.Contains(msg, "provider_exhausted") {
			t.Errorf("error %q does not mention provider_exhausted", msg)
		}
		t.Logf("failed run: credits_live %v, credits_used %v", wf["credits_live"], wf["credits_used"])
		if used := integer(t, wf, "credits_used"); used != 0 {
			t.Errorf("credits_used %d, want 0 (per-step charges refunded)", used)
		}
		total, executed := integer(t, wf, "total_steps"), integer(t, wf, "actual_steps_executed")
		if executed != 3 || executed+integer(t, wf, "skipped_steps")+integer(t, wf, "incomplete_step_count") != total {
			t.Errorf("failed at step 4: actual_steps_executed %d, skipped_steps %v, incomplete_step_count %v, total_steps %d", executed, wf["skipped_steps"], wf["incomplete_step_count"], total)
		}
		if _, ok := wf["deliverable"]; ok {
			t.Errorf("a failed run has a deliverable")
		}
		if n, fb := primary.Calls(match), fallback.Calls(match); n != 3 || fb != 3 {
			t.Errorf("SWOT Analysis calls: primary %d, fallback %d; want 3 each (retries, then the fallback)", n, fb)
		}
		s.waitBalance(t, a.Key, 2500, 10*time.Second)
		// the steps before the failure were charged, then refunded in full
		var charged, refunded float64
		for _, e := range s.settledEvents(t, a) {
			if e.Data["workflow_id"] != id {
				continue
			}
			switch e.Type {
			case "CreditsCharged":
				charged += e.Data["amount"].(float64)
			case "CreditsRefunded":
				refunded += e.Data["amount"].(float64)
			}
		}
		if charged == 0 || charged != refunded {
			t.Errorf("charged %v, refunded %v: want the steps before the failure charged and all of it refunded", charged, refunded)
		}
		replayBilling(t, s.dbURL, a.OrgID)
		// the failed run released its slot
		primary.ClearRules()
		fallback.ClearRules()
		again, _ := wantQueued(t, s, s.execute(t, a.Key, competitive("again", map[string]any{"delivery": polling})), "polling")
		if wf := s.waitTerminal(t, a.Key, again, 30*time.Second); wf["status"] != "completed" {
			t.Errorf("the next workflow: %v", wf)
		}
	})

	t.Run("fallback provider completes the step", func(t *testing.T) {
		primary.Reset()
		fallback.Reset()
		a := s.signup(t, nil)
		// Milestone Plan is a step of a launch plan
		const match = "framework=Milestone Plan"
		primary.AddRule(fakellm.Rule{Match: match, Status: http.StatusServiceUnavailable})
		t.Cleanup(primary.ClearRules)
		res := s.execute(t, a.Key, map[string]any{"task_description": "Write a go-to-market plan for our new analytics product", "delivery": polling})
		id, _ := wantQueued(t, s, res, "polling")
		wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
		if wf["status"] != "completed" {
			t.Fatalf("status %v, want completed through the fallback", wf)
		}
		if n, fb := primary.Calls(match), fallback.Calls(match); n != 3 || fb != 1 {
			t.Errorf("Milestone Plan calls: primary %d, fallback %d; want 3 and 1", n, fb)
		}
		if got := fallback.Calls("kind=step"); got != 1 {
			t.Errorf("the fallback served %d step calls, want only the failing one", got)
		}
	})
}
