package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"svc/domain/contract"
	"svc/domain/workflow"
)

var directSteps = []workflow.PlannedStep{
	{Step: 1, Name: "Market Definition", Kind: workflow.KindContent, Tier: 1, Credits: 110},
	{Step: 2, Name: "Competitor Matrix", Kind: workflow.KindResearch, Tier: 1, Credits: 380},
	{Step: 3, Name: "SWOT Analysis", Kind: workflow.KindContent, Tier: 2, Credits: 320},
	{Step: 4, Name: "Multi-Perspective Review (Standard)", Kind: workflow.KindReview, Tier: 1, Credits: 320},
	{Step: 5, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 530},
}

const labelContract = `{"task_type":"labels","shape":"object","fields":[{"name":"label","type":"string","enum":["bug","feature"]},{"name":"confidence","type":"number","minimum":0,"maximum":1}]}`

// direct is a direct plan (prefs as given) queued as execute decides.
func direct(t *testing.T, prefs string, q workflow.Queued) *stream {
	p := workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "Ticket labels", TotalSteps: 5, Credits: 1660, Execution: workflow.ExecutionDirect,
		Steps: directSteps, Preferences: json.RawMessage(prefs)}
	q.WorkflowID, q.OrgID, q.Delivery = "wr_x", "org", workflow.Delivery{Method: "polling"}
	if q.Mode == "" {
		q.Mode = workflow.ModeFull
	}
	q.Execution, q.ExecutionFallback = workflow.DecideExecution(p, q)
	s := &stream{t: t}
	s.add(workflow.EventPlanned, p)
	s.add(workflow.EventQueued, q)
	return s
}

func TestDecideExecution(t *testing.T) {
	p := workflow.Planned{Execution: workflow.ExecutionDirect, Preferences: json.RawMessage(`{"execution":"direct"}`)}
	auto := workflow.Planned{Execution: workflow.ExecutionDirect, Preferences: json.RawMessage(`{}`)}
	gated := workflow.Planned{Execution: workflow.ExecutionStandard, ApprovalGates: []int{3}, Preferences: json.RawMessage(`{"execution":"direct"}`)}
	for _, tc := range []struct {
		name     string
		p        workflow.Planned
		q        workflow.Queued
		want     string
		fallback bool
	}{
		{"requested", p, workflow.Queued{Mode: workflow.ModeFull}, "direct", false},
		{"auto", auto, workflow.Queued{Mode: workflow.ModeFull}, "direct", false},
		{"interactive", p, workflow.Queued{Mode: workflow.ModeInteractive}, "standard", true},
		{"interactive auto", auto, workflow.Queued{Mode: workflow.ModeInteractive}, "standard", false},
		{"chained", p, workflow.Queued{PriorWorkflowID: "wr_y"}, "standard", true},
		{"context fields", auto, workflow.Queued{ContextFields: []string{"deliverable"}}, "standard", false},
		{"gated at plan time", gated, workflow.Queued{}, "standard", true},
		{"standard plan", workflow.Planned{Execution: "standard", Preferences: json.RawMessage(`{}`)}, workflow.Queued{}, "standard", false},
	} {
		got, fb := workflow.DecideExecution(tc.p, tc.q)
		if got != tc.want || fb != tc.fallback {
			t.Errorf("%s: %s %v, want %s %v", tc.name, got, fb, tc.want, tc.fallback)
		}
	}
}

func TestDirectViewAndRuntimeFallback(t *testing.T) {
	s := direct(t, `{"execution":"direct"}`, workflow.Queued{})
	wf := s.load()
	if v := wf.View(false); v.ExecutionMode != "direct" || v.ExecutionFallback || !wf.Direct() {
		t.Fatalf("queued direct: mode %s fallback %v", v.ExecutionMode, v.ExecutionFallback)
	}
	if _, ok := wf.RuntimeFallback(true, 8); ok {
		t.Fatal("allowed and within the limit: no fallback")
	}
	if fb, ok := wf.RuntimeFallback(true, 1); !ok || fb.Reason != workflow.FallbackCompositionLimit || !strings.Contains(fb.Message, "2 content steps") {
		t.Fatalf("over the limit: %+v %v", fb, ok)
	}
	fb, ok := wf.RuntimeFallback(false, 8)
	if !ok || fb.Reason != workflow.FallbackServerDisallowed {
		t.Fatalf("disallowed: %+v %v", fb, ok)
	}
	s.add(workflow.EventExecutionFellBack, fb)
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	wf = s.load()
	if v := wf.View(false); v.ExecutionMode != "standard" || !v.ExecutionFallback || wf.Direct() || wf.FellBack() == nil {
		t.Fatalf("after the runtime fallback: mode %s fallback %v", v.ExecutionMode, v.ExecutionFallback)
	}
	if b := wf.Composable(directSteps[0]); b != nil {
		t.Fatalf("a standard run composes %v", b)
	}
	if _, ok := wf.RuntimeFallback(false, 8); ok {
		t.Fatal("a second fallback")
	}

	// auto-selected direct that falls back: standard, but not requested
	s = direct(t, `{}`, workflow.Queued{})
	s.add(workflow.EventExecutionFellBack, fb)
	if v := s.load().View(false); v.ExecutionMode != "standard" || v.ExecutionFallback {
		t.Fatalf("auto direct fallen back: mode %s fallback %v", v.ExecutionMode, v.ExecutionFallback)
	}
	// interactive: standard with the fallback reported (plan, then execute)
	s = direct(t, `{"execution":"direct"}`, workflow.Queued{Mode: workflow.ModeInteractive})
	if v := s.load().View(false); v.ExecutionMode != "standard" || !v.ExecutionFallback {
		t.Fatalf("interactive: mode %s fallback %v", v.ExecutionMode, v.ExecutionFallback)
	}
	// before execute the plan's own choice shows
	planned := &stream{t: t}
	planned.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", Execution: "direct", Steps: directSteps, Preferences: json.RawMessage(`{}`)})
	if v := planned.load().View(false); v.ExecutionMode != "direct" || v.ExecutionFallback {
		t.Fatalf("planned: mode %s fallback %v", v.ExecutionMode, v.ExecutionFallback)
	}
}

func TestComposable(t *testing.T) {
	s := direct(t, `{}`, workflow.Queued{})
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	wf := s.load()
	n := wf.Next()
	batch := wf.Composable(n.Step)
	if n.Step.Step != 1 || len(batch) != 2 || batch[0].Step != 1 || batch[1].Step != 3 {
		t.Fatalf("next %+v, batch %+v", n.Step, batch)
	}
	if wf.Composable(directSteps[1]) != nil || wf.Attempt(1) != 1 {
		t.Fatal("a research step composes, or the attempt is off")
	}
	s.add(workflow.EventStepStarted, workflow.StepStarted{Step: 1, Attempt: 1})
	s.add(workflow.EventStepStarted, workflow.StepStarted{Step: 3, Attempt: 1})
	s.add(workflow.EventStepCompleted, workflow.StepCompleted{Step: 1, Name: "Market Definition", Kind: "content", Summary: "s", Credits: 110})
	s.add(workflow.EventStepCompleted, workflow.StepCompleted{Step: 3, Name: "SWOT Analysis", Kind: "content", Summary: "s", Credits: 320, ComposedInto: 1})
	wf = s.load()
	if n := wf.Next(); n.Step.Step != 2 || wf.Attempt(3) != 2 || wf.CreditsLive() != 430 {
		t.Fatalf("after the composed call: next %+v, attempt %d, live %d", n.Step, wf.Attempt(3), wf.CreditsLive())
	}
}

// runTo4 runs the direct stream through step 4 (the review step).
func runTo4(s *stream) {
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	for i := 1; i <= 4; i++ {
		s.add(workflow.EventStepCompleted, workflow.StepCompleted{Step: i, Name: directSteps[i-1].Name, Kind: directSteps[i-1].Kind, Summary: "s", Credits: directSteps[i-1].Credits})
	}
}

func TestContractConforming(t *testing.T) {
	s := direct(t, `{"execution":"direct","output_contract":`+labelContract+`}`, workflow.Queued{})
	wf := s.load()
	c, ok := wf.Contract()
	if !ok || c.TaskType != "labels" {
		t.Fatalf("contract %+v %v", c, ok)
	}
	runTo4(s)
	r := c.Validate(`{"label":"Bug","confidence":0.8}`)
	d := wf.ContractDeliverable(r.Findings)
	if d.Title != "Ticket labels" || len(d.Sections) != 1 || !strings.Contains(d.Sections[0].Content, "\n  \"label\": \"bug\"") {
		t.Fatalf("deliverable %+v", d)
	}
	s.add(workflow.EventStepCompleted, workflow.StepCompleted{Step: 5, Name: "Synthesis", Kind: "synthesis", Summary: "s", Deliverable: d,
		OutputFindings: r.Findings, OutputValidationStatus: string(r.Status), OutputValidationViolations: r.Violations})
	wf = s.load()
	if n := wf.Next(); n.Action != workflow.ActReview {
		t.Fatalf("next %v", n.Action)
	}
	rev, ok := wf.ValidationReview()
	if !ok || rev.Score == nil || *rev.Score != workflow.ScoreValidNormalise || len(rev.Calls) != 0 || len(rev.PathTo100) != 1 {
		t.Fatalf("review %+v %v", rev, ok)
	}
	v := wf.View(false)
	if len(v.StepOutputs) != 1 || v.StepOutputs[0].Step != 5 || v.StepOutputs[0].OutputValidationStatus != "valid_after_normalization" ||
		string(v.StepOutputs[0].OutputFindings) != `{"label":"bug","confidence":0.8}` || v.StepOutputs[0].OutputValidationViolations == nil {
		t.Fatalf("step_outputs %+v", v.StepOutputs)
	}
	// a standard run has no contract, whatever the preferences say
	std := &stream{t: t}
	std.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", Execution: "standard", Steps: directSteps, Preferences: json.RawMessage(`{"output_contract":` + labelContract + `}`)})
	std.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", Execution: "standard"})
	if _, ok := std.load().Contract(); ok {
		t.Fatal("standard run with a contract")
	}
}

func TestContractViolated(t *testing.T) {
	s := direct(t, `{"execution":"direct","output_contract":`+labelContract+`}`, workflow.Queued{})
	runTo4(s)
	c, _ := s.load().Contract()
	r := c.Validate(`{"label":"question","confidence":3,"extra":1}`)
	if r.OK() || len(r.Violations) != 3 {
		t.Fatalf("validation %+v", r)
	}
	reason := workflow.ViolationReason(string(r.Status), r.Violations)
	if !strings.Contains(reason, "invalid_schema") || !strings.Contains(reason, ".label: must be one of") || !strings.Contains(reason, ".extra: is not declared") {
		t.Fatalf("reason %q", reason)
	}
	s.add(workflow.EventStepIncomplete, workflow.StepIncomplete{Step: 5, Name: "Synthesis", Reason: reason,
		OutputValidationStatus: string(r.Status), OutputValidationViolations: r.Violations})
	wf := s.load()
	if n := wf.Next(); n.Action != workflow.ActFinish {
		t.Fatalf("next %v: no deliverable, no review", n.Action)
	}
	if _, ok := wf.ValidationReview(); ok {
		t.Fatal("a violating output replaced the review")
	}
	done, err := wf.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !done.Partial || done.Fee != 0 || done.Deliverable != nil || len(done.IncompleteSteps) != 1 || done.IncompleteSteps[0].Reason != reason ||
		!strings.Contains(done.Error, "violates the output_contract") || done.CreditsUsed != 1130 {
		t.Fatalf("finish %+v", done)
	}
	v := wf.View(false)
	if len(v.StepOutputs) != 1 || v.StepOutputs[0].OutputValidationStatus != string(contract.InvalidSchema) || len(v.StepOutputs[0].OutputValidationViolations) != 3 || v.StepOutputs[0].OutputFindings != nil {
		t.Fatalf("step_outputs %+v", v.StepOutputs)
	}
}
