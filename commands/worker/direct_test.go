package worker_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/offline"
	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/test/fakellm"
)

// Direct execution: content steps composed into one call, the
// output_contract validated in place of the review, runtime fallback.

const tagContract = `{"task_type":"ticket_tags","shape":"array","fields":[{"name":"ticket","type":"string"},
	{"name":"tag","type":"string","enum":["billing","bug","feature"]},{"name":"confidence","type":"number","minimum":0,"maximum":1}],
	"count":{"min":2,"max":10}}`

// planDirect prepares a fresh plan of taskType with preferences prefs (a
// JSON object, as the caller sends it).
func planDirect(t *testing.T, o testOrg, taskType, prefs string) workflow.Planned {
	t.Helper()
	var p planning.Preferences
	var raw struct {
		RigorLevel     string          `json:"rigor_level"`
		Execution      string          `json:"execution"`
		OutputContract json.RawMessage `json:"output_contract"`
	}
	if err := json.Unmarshal([]byte(prefs), &raw); err != nil {
		t.Fatal(err)
	}
	p.RigorLevel, p.Execution, p.OutputContract = raw.RigorLevel, raw.Execution, raw.OutputContract
	desc := fmt.Sprintf("Tag the support tickets of Acme, a payroll software company, by topic and urgency; reference run %d.", descriptions.Add(1))
	h := commands.NewPlanWorkflowHandler(commands.NewRepositories(testStore), planning.NewPlanner(catalog.Default()))
	planned, err := planStored(t, h, commands.PlanWorkflow{OrgID: o.ID, WorkspaceID: o.WorkspaceID, KeyID: o.KeyID, RawPreferences: json.RawMessage(prefs),
		Request: planning.Request{TaskType: taskType, Description: desc, Preferences: p, SingleIntent: true}})
	if err != nil || len(planned) != 1 {
		t.Fatalf("plan %s: %v", taskType, err)
	}
	return planned[0]
}

// runWith runs the workflows on a worker with opts and waits for each.
func runWith(t *testing.T, provider llm.Provider, opts workerOpts, ps ...workflow.Planned) []*workflow.Workflow {
	t.Helper()
	w, stop := startWorker(t, provider, opts)
	out := make([]*workflow.Workflow, len(ps))
	for i, p := range ps {
		w.Kick(p.WorkflowID)
		out[i] = waitEnded(t, p.WorkflowID, 30*time.Second)
	}
	stop()
	return out
}

// The content steps of an explicit direct run are written by one tier-2
// call; each is recorded and charged on its own, the call on the first.
func TestDirectComposesContentSteps(t *testing.T) {
	o := newPayingOrg(t)
	p := execute(t, o, planDirect(t, o, "competitive_analysis", `{"rigor_level":"standard","execution":"direct"}`))
	if p.Execution != "direct" {
		t.Fatalf("plan execution %q", p.Execution)
	}
	var content []int
	for _, s := range p.Steps {
		if s.Kind == workflow.KindContent {
			content = append(content, s.Step)
		}
	}
	if len(content) != 3 || content[0] != 1 {
		t.Fatalf("plan changed: %+v", p.Steps)
	}
	fake := newFake(t)
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]
	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.ExecutionMode != "direct" || v.ExecutionFallback || v.CreditsUsed != p.Credits {
		t.Fatalf("status %s mode %s fallback %v credits_used %d of %d", v.Status, v.ExecutionMode, v.ExecutionFallback, v.CreditsUsed, p.Credits)
	}
	for _, n := range content {
		if len(l.stepCharges[n]) != 1 || l.stepCharges[n][0] != int64(p.Steps[n-1].Credits) {
			t.Errorf("step %d charged %v, estimate %d", n, l.stepCharges[n], p.Steps[n-1].Credits)
		}
	}
	byKind := fake.CallsByKind()
	if byKind[llm.KindStep] != 3 || byKind[llm.KindSynthesis] != 1 || byKind[llm.KindReview] != 1 || fake.Calls("composed=3") != 1 {
		t.Fatalf("calls by kind %v, composed %d; want one composed call, the research and review steps apart", byKind, fake.Calls("composed=3"))
	}
	for _, c := range fake.Requests() {
		if c.Markers["composed"] != "" && (c.Model != "fake-tier2" || c.Framework != "Market Definition | Porter's Five Forces | SWOT Analysis") {
			t.Errorf("composed call on %s for %q", c.Model, c.Framework)
		}
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	want := []string{workflow.EventPlanned, workflow.EventQueued, workflow.EventStarted,
		workflow.EventStepStarted, workflow.EventStepStarted, workflow.EventStepStarted,
		workflow.EventStepCompleted, workflow.EventStepCompleted, workflow.EventStepCompleted,
		workflow.EventStepStarted, workflow.EventStepCompleted, workflow.EventStepStarted, workflow.EventStepCompleted,
		workflow.EventStepStarted, workflow.EventStepCompleted, workflow.EventReviewStarted, workflow.EventReviewed, workflow.EventCompleted}
	if got := types(events); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	for _, c := range ofType[workflow.StepCompleted](t, events, workflow.EventStepCompleted) {
		switch {
		case c.Step == 1 && (len(c.Calls) != 1 || c.ComposedInto != 0 || len(c.Sections) == 0):
			t.Errorf("step 1 %+v", c)
		case (c.Step == 3 || c.Step == 4) && (len(c.Calls) != 0 || c.ComposedInto != 1 || !strings.Contains(c.Summary, "step 1's composed call") || len(c.Sections) == 0):
			t.Errorf("step %d %+v", c.Step, c)
		case c.OutputValidationStatus != "":
			t.Errorf("step %d validated without a contract", c.Step)
		}
	}
}

// An atomic type runs direct without being asked; a conforming contract
// output becomes the deliverable and replaces the review (no call).
func TestDirectContractReplacesReview(t *testing.T) {
	o := newPayingOrg(t)
	offlinePlan := execute(t, o, planDirect(t, o, "tag", `{"output_contract":`+tagContract+`}`))
	offlineRun := runAll(t, offline.New(), offlinePlan)[0]
	fake := newFake(t)
	answer := `[{"ticket":"T-1","tag":"billing","confidence":0.9},{"ticket":"T-2","tag":"Bug","confidence":"0.4"}]`
	fake.AddRule(fakellm.Rule{Match: "contract=ticket_tags", Answer: answer})
	// queued only now: the offline worker, which also polls, cannot take it
	faked := execute(t, o, planDirect(t, o, "tag", `{"output_contract":`+tagContract+`}`))
	wfs := []*workflow.Workflow{offlineRun, runAll(t, fakeProvider(t, fake, 0, nil), faked)[0]}

	for i, status := range []string{"valid", "valid_after_normalization"} {
		p, wf := []workflow.Planned{offlinePlan, faked}[i], wfs[i]
		v, l := checkRun(t, o.ID, wf)
		if v.Status != workflow.StatusCompleted || v.ExecutionMode != "direct" || v.CreditsUsed != p.Credits || len(l.fees) != 1 {
			t.Fatalf("%s: status %s mode %s credits_used %d of %d, fees %v", status, v.Status, v.ExecutionMode, v.CreditsUsed, p.Credits, l.fees)
		}
		score := map[string]int{"valid": 100, "valid_after_normalization": 90}[status]
		if v.QualityScore == nil || *v.QualityScore != score || !strings.Contains(v.QualityReview.Summary, "replaced the independent review") {
			t.Errorf("%s: quality %v %+v", status, v.QualityScore, v.QualityReview)
		}
		if len(v.StepOutputs) != 1 || v.StepOutputs[0].Step != 3 || v.StepOutputs[0].OutputValidationStatus != status || len(v.StepOutputs[0].OutputValidationViolations) != 0 {
			t.Fatalf("%s: step_outputs %+v", status, v.StepOutputs)
		}
		var findings []map[string]any
		if err := json.Unmarshal(v.StepOutputs[0].OutputFindings, &findings); err != nil || len(findings) < 2 {
			t.Fatalf("%s: findings %s (%v)", status, v.StepOutputs[0].OutputFindings, err)
		}
		if d := v.Deliverable; d == nil || d.Title != p.Title || len(d.Sections) != 1 || !strings.Contains(d.Sections[0].Content, `"ticket"`) {
			t.Fatalf("%s: deliverable %+v", status, d)
		}
		events := load(t, workflow.Stream(p.WorkflowID))
		if rev := ofType[workflow.Reviewed](t, events, workflow.EventReviewed); len(rev) != 1 || len(rev[0].Calls) != 0 {
			t.Errorf("%s: reviews %+v", status, rev)
		}
	}
	if byKind := fake.CallsByKind(); byKind[llm.KindStep] != 2 || byKind[llm.KindSynthesis] != 1 || byKind[llm.KindReview] != 0 {
		t.Errorf("calls by kind %v: want 2 step calls, the synthesis and no review", byKind)
	}
}

// An output that violates the contract fails its step: completed_partial,
// no deliverable, no fee, every violation by path.
func TestDirectContractViolated(t *testing.T) {
	o := newPayingOrg(t)
	p := execute(t, o, planDirect(t, o, "tag", `{"execution":"direct","output_contract":`+tagContract+`}`))
	fake := newFake(t) // answers the synthesis with a deliverable, which the contract does not declare
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]
	v, l := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompletedPartial || v.Deliverable != nil || len(l.fees) != 0 || v.CreditsUsed != p.Credits-feeOf(t, p) {
		t.Fatalf("status %s deliverable %v fees %v credits_used %d", v.Status, v.Deliverable, l.fees, v.CreditsUsed)
	}
	if len(v.IncompleteSteps) != 1 || v.IncompleteSteps[0].StepIndex != 2 || !strings.Contains(v.IncompleteSteps[0].Reason, "invalid_schema") ||
		v.Error == nil || !strings.Contains(*v.Error, "output_contract") || v.QualityScore != nil {
		t.Fatalf("incomplete %+v error %v score %v", v.IncompleteSteps, v.Error, v.QualityScore)
	}
	if len(v.StepOutputs) != 1 || v.StepOutputs[0].OutputValidationStatus != "invalid_schema" || v.StepOutputs[0].OutputFindings != nil {
		t.Fatalf("step_outputs %+v", v.StepOutputs)
	}
	paths := map[string]bool{}
	for _, x := range v.StepOutputs[0].OutputValidationViolations {
		paths[x.Path] = true
	}
	if !paths["[0].ticket"] || !paths["[0].title"] || !paths["[0].sections"] {
		t.Errorf("violations %+v", v.StepOutputs[0].OutputValidationViolations)
	}
	inc := ofType[workflow.StepIncomplete](t, load(t, workflow.Stream(p.WorkflowID)), workflow.EventStepIncomplete)
	if len(inc) != 1 || len(inc[0].Calls) != 1 || inc[0].OutputValidationStatus != "invalid_schema" {
		t.Errorf("incomplete events %+v", inc)
	}
	if n := fake.CallsByKind()[llm.KindReview]; n != 0 {
		t.Errorf("%d review calls on an output without a deliverable", n)
	}
}

// A server that disallows direct execution falls back when the run
// starts: the fallback is recorded, each content step is its own call.
func TestDirectDisallowedFallsBack(t *testing.T) {
	o := newPayingOrg(t)
	p := execute(t, o, planDirect(t, o, "competitive_analysis", `{"rigor_level":"standard","execution":"direct","output_contract":`+tagContract+`}`))
	fake := newFake(t)
	wf := runWith(t, fakeProvider(t, fake, 0, nil), workerOpts{noDirect: true}, p)[0]
	v, _ := checkRun(t, o.ID, wf)
	if v.Status != workflow.StatusCompleted || v.ExecutionMode != "standard" || !v.ExecutionFallback || v.StepOutputs != nil {
		t.Fatalf("status %s mode %s fallback %v step_outputs %v", v.Status, v.ExecutionMode, v.ExecutionFallback, v.StepOutputs)
	}
	events := load(t, workflow.Stream(p.WorkflowID))
	if got := types(events); got[2] != workflow.EventExecutionFellBack || got[3] != workflow.EventStarted {
		t.Fatalf("events %v", got)
	}
	if fb := wf.FellBack(); fb == nil || fb.Reason != workflow.FallbackServerDisallowed {
		t.Fatalf("fallback %+v", fb)
	}
	if fake.Calls("composed=") != 0 || fake.CallsByKind()[llm.KindStep] != 5 || fake.Calls("contract=") != 0 {
		t.Errorf("calls %v (composed %d): want every step apart and no contract", fake.CallsByKind(), fake.Calls("composed="))
	}
}

// A composed call that every provider fails takes the first step down the
// failure ladder: the run fails and nothing stays charged.
func TestDirectComposedCallFails(t *testing.T) {
	o := newPayingOrg(t)
	p := execute(t, o, planDirect(t, o, "blog_post", `{"execution":"direct"}`))
	fake := newFake(t)
	fake.AddRule(fakellm.Rule{Match: "composed=", Status: http.StatusInternalServerError})
	wf := runAll(t, fakeProvider(t, fake, 0, nil), p)[0]
	v, _ := checkRun(t, o.ID, wf)
	failed := ofType[workflow.Failed](t, load(t, workflow.Stream(p.WorkflowID)), workflow.EventFailed)
	if v.Status != workflow.StatusFailed || v.CreditsUsed != 0 || len(failed) != 1 || failed[0].Step != 1 || !strings.Contains(failed[0].Cause, "composed call of 3 steps") {
		t.Fatalf("status %s credits_used %d failed %+v", v.Status, v.CreditsUsed, failed)
	}
	if n := fake.Calls("composed=3"); n != 2 {
		t.Errorf("%d composed calls, want 2 (the attempts)", n)
	}
}
