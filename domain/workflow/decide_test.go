package workflow_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"svc/domain/contract"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// record appends decided data to the stream, as a repository would.
func (s *stream) record(data ...event.Data) *stream {
	for _, d := range data {
		s.add(d.EventType(), d)
	}
	return s
}

func started(t *testing.T) *stream {
	s := queued(t, false)
	return s.record(s.load().Start("w", true, 10)...)
}

// The failure ladder of each kind of step, decided by the aggregate.
func TestStepFailedDecides(t *testing.T) {
	s := started(t)
	wf := s.load()
	timeout := workflow.Failure{Cause: "deadline", TimedOut: true}
	down := workflow.Failure{Cause: "503 from api.example.com"}

	// a required research step over its time budget: tried in parts first,
	// then lost (not the run)
	next := wf.Next()
	if out := wf.StepFailed(next, timeout); !out.RetryChunked || out.FailRun || len(out.Events) != 0 {
		t.Fatalf("timeout: %+v", out)
	}
	lost, ok := wf.ChunkedFailed(next.Step, timeout).(workflow.StepIncomplete)
	if !ok || lost.Abandoned || !strings.Contains(lost.Reason, "ran out of its time budget") || lost.Error != "deadline" {
		t.Fatalf("research step lost in parts: %+v", lost)
	}
	if out := wf.StepFailed(next, down); len(out.Events) != 1 || out.FailRun {
		t.Fatalf("research step lost: %+v", out)
	} else if inc := out.Events[0].(workflow.StepIncomplete); strings.Contains(inc.Reason, "api.example.com") {
		t.Fatalf("the customer's reason names the provider: %q", inc.Reason)
	}

	// a content step: in parts on a timeout (abandoned if that fails), the
	// run fails on anything else
	s.record(wf.StartStep(next), workflow.StepCompleted{Step: 1, Name: steps[0].Name, Kind: steps[0].Kind, Credits: 200})
	wf = s.load()
	next = wf.Next()
	if ab := wf.ChunkedFailed(next.Step, timeout).(workflow.StepIncomplete); !ab.Abandoned || ab.Reason != workflow.ReasonChunksAbandoned {
		t.Fatalf("content step in parts: %+v", ab)
	}
	if out := wf.StepFailed(next, down); !out.FailRun {
		t.Fatalf("content step: %+v", out)
	}
	failed := wf.Fail(2, "provider_exhausted", down, 200)
	if failed.Refunded != 200 || failed.Cause != down.Cause || strings.Contains(failed.Error, "example.com") || !strings.Contains(failed.Error, "(SWOT Analysis)") {
		t.Fatalf("fail: %+v", failed)
	}
}

// The terminal step climbs one ladder: the strategy Next gives an attempt
// is the one StepFailed announced for it.
func TestTerminalLadderIsOne(t *testing.T) {
	s := started(t)
	for i := 1; i <= 3; i++ {
		wf := s.load()
		s.record(wf.StartStep(wf.Next()), workflow.StepCompleted{Step: i, Name: steps[i-1].Name, Kind: steps[i-1].Kind})
	}
	for attempt, want := range []string{"", workflow.StrategyCompressed, workflow.StrategyChunked, workflow.StrategySalvage} {
		wf := s.load()
		next := wf.Next()
		if next.Strategy != want || next.Attempt != attempt+1 {
			t.Fatalf("attempt %d: next %+v, want strategy %q", attempt+1, next, want)
		}
		if want == workflow.StrategySalvage {
			salvaged := wf.SalvageStep(next.Step)
			if !salvaged.Salvaged || salvaged.Deliverable == nil {
				t.Fatalf("salvage: %+v", salvaged)
			}
			break
		}
		out := wf.StepFailed(next, workflow.Failure{Cause: "x"})
		r, ok := out.Events[0].(workflow.TerminalRetrying)
		if !ok || r.Attempt != attempt+2 || r.MaxAttempts != workflow.TerminalMaxAttempts {
			t.Fatalf("attempt %d failed: %+v", attempt+1, out)
		}
		s.record(out.Events...)
		if got := s.load().Next().Strategy; got != r.Strategy {
			t.Fatalf("announced %q, next runs %q", r.Strategy, got)
		}
	}
}

func TestStepSucceededCharges(t *testing.T) {
	s := started(t)
	wf := s.load()
	done := wf.StepSucceeded(steps[0], "", workflow.Result{Summary: "ok"}).(workflow.StepCompleted)
	if done.Credits != 200 || done.Summary != "ok" {
		t.Fatalf("completed: %+v", done)
	}
	if syn := wf.StepSucceeded(steps[3], "", workflow.Result{}).(workflow.StepCompleted); syn.Credits != 0 {
		t.Fatalf("the synthesis step is the fee, charged at the end: %+v", syn)
	}
	free := queued(t, true)
	if c := free.load().StepSucceeded(steps[0], "", workflow.Result{}).(workflow.StepCompleted); c.Credits != 0 {
		t.Fatalf("a free run charges nothing: %+v", c)
	}
	bad := contract.Result{Status: contract.InvalidSchema, Violations: []contract.Violation{{Path: "$.x", Message: "missing"}}}
	inc, ok := wf.StepSucceeded(steps[3], "", workflow.Result{Validation: &bad}).(workflow.StepIncomplete)
	if !ok || inc.OutputValidationStatus != string(contract.InvalidSchema) || !strings.Contains(inc.Reason, "$.x: missing") {
		t.Fatalf("contract violation: %+v", inc)
	}
}

func TestComposedSucceeded(t *testing.T) {
	wf := started(t).load()
	batch := []workflow.PlannedStep{steps[1], {Step: 3, Name: "Other", Kind: workflow.KindContent, Credits: 40}}
	call := []workflow.Call{{Model: "m"}}
	out := wf.ComposedSucceeded(batch, []workflow.Result{{Summary: "a", Calls: call}, {Summary: "b", Calls: call}})
	first, second := out[0].(workflow.StepCompleted), out[1].(workflow.StepCompleted)
	if len(first.Calls) != 1 || first.ComposedInto != 0 || first.Credits != 150 {
		t.Fatalf("first: %+v", first)
	}
	if len(second.Calls) != 0 || second.Calls == nil || second.ComposedInto != 2 || second.Credits != 40 || !strings.HasPrefix(second.Summary, "Written in step 2's") {
		t.Fatalf("second: %+v", second)
	}
}

func TestStartAndTakeOver(t *testing.T) {
	s := queued(t, false)
	wf := s.load()
	if got := wf.TakeOver("w2"); got != nil {
		t.Fatalf("a queued run is not taken over: %v", got)
	}
	s.record(wf.Start("w", true, 10)...)
	take := s.load().TakeOver("w2")
	if len(take) != 1 || !take[0].(workflow.Started).Resumed {
		t.Fatalf("take over: %+v", take)
	}
}

func TestReviewDecisions(t *testing.T) {
	wf := started(t).load()
	if got := wf.StartReview(); len(got) != 1 {
		t.Fatalf("review start: %v", got)
	}
	score := 81
	if r := wf.Reviewed(workflow.Review{Score: &score, Summary: "good"}).(workflow.Reviewed); *r.Score != 81 {
		t.Fatalf("reviewed: %+v", r)
	}
	r := wf.Reviewed(workflow.Review{Failure: &workflow.Failure{Cause: "503 from host", TimedOut: true}}).(workflow.Reviewed)
	if r.Score != nil || !strings.Contains(r.Summary, "time budget") || strings.Contains(r.Summary, "host") {
		t.Fatalf("a review that could not run: %+v", r)
	}
	if _, ok := wf.ReviewByValidation(); ok {
		t.Fatal("a run without a contract output reviewed by validation")
	}
}

func TestFinishWaivesFee(t *testing.T) {
	c := workflow.Completed{Fee: 530, CreditsUsed: 1200}.WaiveFee()
	if c.Fee != 0 || c.CreditsUsed != 670 {
		t.Fatalf("waived: %+v", c)
	}
}

func TestControlDecisions(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 5, 0, 0, time.UTC)
	// interactive
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: 4, Steps: steps})
	s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Mode: workflow.ModeInteractive})
	wf := s.load()
	if _, err := wf.Interact("jump", "", now, time.Hour); !errors.Is(err, workflow.ErrInvalidAction) {
		t.Fatalf("bad action: %v", err)
	}
	got, err := wf.Interact(workflow.StepNext, "shorter", now, time.Hour)
	if err != nil || got[0].(workflow.StepRequested).Feedback != "shorter" {
		t.Fatalf("next: %v %v", got, err)
	}
	got, err = wf.Interact(workflow.StepSkip, "", now, time.Hour)
	if err != nil || got[0].(workflow.StepSkipped).Step != 1 {
		t.Fatalf("skip: %v %v", got, err)
	}
	got, err = wf.Interact(workflow.StepAbort, "", now, time.Hour)
	if err != nil || !workflow.Ends(got...) {
		t.Fatalf("abort: %v %v", got, err)
	}
	got, err = wf.Interact(workflow.StepNext, "", now, time.Minute)
	if !errors.Is(err, workflow.ErrSessionExpired) || len(got) != 1 || !workflow.Ends(got...) || got[0].(workflow.TimedOut).IdleSeconds != 299 {
		t.Fatalf("an idle session: %v %v", got, err)
	}

	// cancel
	q := queued(t, false).load()
	if a, _ := q.CancelPlan(false); a != workflow.ActionCancel {
		t.Fatalf("queued: %q", a)
	}
	r := started(t).load()
	if a, why := r.CancelPlan(false); a != "" || !strings.Contains(why, "force: true") {
		t.Fatalf("executing without force: %q %q", a, why)
	}
	if c, err := r.Cancel(true, "k"); err != nil || !c.Force || c.From != workflow.StatusExecuting {
		t.Fatalf("force: %+v %v", c, err)
	}
	if _, err := r.Cancel(false, "k"); !errors.Is(err, workflow.ErrInvalidStatus) {
		t.Fatalf("cancel without force: %v", err)
	}

	// resume and approve
	if _, err := r.Resume(false, true, "", ""); !errors.Is(err, workflow.ErrResumeConflict) {
		t.Fatalf("resume of a leased run: %v", err)
	}
	if _, err := r.Approve(true, "", "a", ""); !errors.Is(err, workflow.ErrInvalidStatus) {
		t.Fatalf("approve without a gate: %v", err)
	}
}

// RunnableStatuses are exactly the statuses in which Next has something to
// do, so the workers' query and the aggregate cannot disagree.
func TestRunnableStatusesMatchNext(t *testing.T) {
	s := queued(t, false)
	if !slices.Contains(workflow.RunnableStatuses, s.load().Status()) {
		t.Fatal("queued is not runnable")
	}
	s.record(s.load().Start("w", true, 10)...)
	for _, st := range []string{workflow.StatusPlanned, workflow.StatusCompleted, workflow.StatusFailed, workflow.StatusPendingApproval, workflow.StatusInteractiveWaiting} {
		if slices.Contains(workflow.RunnableStatuses, st) {
			t.Errorf("%s is listed as runnable", st)
		}
	}
	if n := s.load().Next(); n.Action == workflow.ActNone || !slices.Contains(workflow.RunnableStatuses, s.load().Status()) {
		t.Fatalf("executing: %+v", n)
	}
}

func TestQueueDecides(t *testing.T) {
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: 4, Steps: steps,
		AdditionalContext: "plan ctx", ContextPersisted: true, Execution: workflow.ExecutionDirect})
	wf := s.load()
	other := "body ctx"
	q, err := wf.Queue(workflow.Request{OrgID: "org", Context: &other, Free: true})
	if err != nil || q.Context != "body ctx" || len(q.Warnings) != 1 || q.Warnings[0].Code != "context_differs_from_plan" || !q.Free ||
		q.Mode != workflow.ModeFull || q.Execution != workflow.ExecutionDirect {
		t.Fatalf("queued: %+v %v", q, err)
	}
	q, _ = wf.Queue(workflow.Request{OrgID: "org", Link: &workflow.Link{PriorWorkflowID: "wr_p", Depth: 2}, ContextFields: []string{"deliverable"}})
	if q.Execution != workflow.ExecutionStandard || len(q.Warnings) != 2 || q.ChainDepth != 2 {
		t.Fatalf("chained: %+v", q)
	}
	if !workflow.Duplicate(now(), now().Add(4*time.Minute)) || workflow.Duplicate(now(), now().Add(6*time.Minute)) {
		t.Fatal("duplicate window")
	}
}

func now() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }
