package blackbox

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"svc/test/fakellm"
)

// A server killed (SIGKILL) in the middle of a charged run: a new server on
// the same database takes the workflow over when its lease expires and
// finishes it, with every step charged once and the streams intact.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	env := map[string]string{"SVC_LLM_BASE_URL": llm.URL(), "SVC_WORKER_LEASE": "1s", "SVC_SECRET_KEY": randomHex(32)}
	first := startServer(t, env)
	a := first.signup(t, nil)

	// the org's free first workflow, at full speed
	warm, _ := wantQueued(t, first, first.execute(t, a.Key, competitive("warm-up", map[string]any{"delivery": polling})), "polling")
	if wf := first.waitTerminal(t, a.Key, warm, 30*time.Second); wf["status"] != "completed" {
		t.Fatalf("warm-up workflow %v", wf)
	}
	first.waitBalance(t, a.Key, 2500, 10*time.Second)

	// the charged run, ~300 ms a call
	llm.AddRule(fakellm.Rule{Delay: 300 * time.Millisecond})
	id, est := wantQueued(t, first, first.execute(t, a.Key, competitive("crash", map[string]any{"delivery": polling})), "polling")
	first.waitWorkflow(t, a.Key, id, 20*time.Second, "at step 2", func(wf map[string]any) bool {
		step, _ := wf["current_step"].(json.Number).Int64()
		if terminalStatuses[wf["status"].(string)] {
			t.Fatalf("the run ended before the crash: %v", wf)
		}
		return step >= 2
	})
	before := first.workflow(t, a.Key, id)
	first.kill(t)
	killed := time.Now()

	second := startServerOn(t, first.dbURL, env)
	started := time.Since(killed)
	wf := second.waitTerminal(t, a.Key, id, 30*time.Second)
	recovered := time.Since(killed)
	t.Logf("crash recovery: killed at current_step %v (%v), successor answering after %v, workflow %s after %v (SVC_WORKER_LEASE=1s, 300 ms a provider call, %v steps)",
		before["current_step"], before["status"], started.Round(time.Millisecond), wf["status"], recovered.Round(time.Millisecond), wf["total_steps"])
	if wf["status"] != "completed" {
		t.Fatalf("after the crash: %v", wf)
	}
	total := int(integer(t, wf, "total_steps"))
	if used := integer(t, wf, "credits_used"); used != est {
		t.Errorf("credits_used %d, want the estimate %d", used, est)
	}
	second.waitBalance(t, a.Key, 2500-est, 10*time.Second)

	events := second.settledEvents(t, a)
	// one charge per step (Synthesis is the fee), one fee
	perStep := map[int]int{}
	fees, sum := 0, 0.0
	for _, e := range events {
		if e.Type != "CreditsCharged" || e.Data["workflow_id"] != id {
			continue
		}
		sum += e.Data["amount"].(float64)
		if e.Data["reason"] == "orchestration_fee" {
			fees++
			continue
		}
		step, _ := e.Data["step"].(float64)
		perStep[int(step)]++
	}
	for n := 1; n < total; n++ {
		if perStep[n] != 1 {
			t.Errorf("step %d charged %d times, want once (charges per step: %v)", n, perStep[n], perStep)
		}
	}
	if len(perStep) != total-1 || fees != 1 || int64(sum) != est {
		t.Errorf("charges per step %v, %d fees, %v credits in all; want steps 1-%d once, one fee, %d credits", perStep, fees, sum, total-1, est)
	}
	// the streams are contiguous: no event lost, none written twice
	versions := map[string][]int64{}
	resumed := 0
	for _, e := range events {
		versions[e.StreamID] = append(versions[e.StreamID], e.Version)
		if e.StreamID == "workflow-"+id && e.Type == "WorkflowStarted" && e.Data["resumed"] == true {
			resumed++
			t.Logf("crash recovery: the successor took the workflow over %v after the kill (recorded_at of the resumed WorkflowStarted)", e.RecordedAt.Sub(killed).Round(time.Millisecond))
		}
	}
	for stream, vs := range versions {
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
		for i, v := range vs {
			if v != int64(i) {
				t.Errorf("stream %s: versions %v are not 0..%d", stream, vs, len(vs)-1)
				break
			}
		}
	}
	if resumed != 1 {
		t.Errorf("%d WorkflowStarted events with resumed: true, want 1 (the successor taking over)", resumed)
	}
	for _, stream := range []string{"workflow-" + id, "credits-" + a.OrgID} {
		if len(versions[stream]) == 0 {
			t.Errorf("no events of stream %s", stream)
		}
	}
	t.Logf("provider calls by framework: %s", fmt.Sprint(llm.CallsByFramework()))
	replayBilling(t, second.dbURL, a.OrgID)
}
