package workflow_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// stream builds a workflow stream from (type, data) pairs.
type stream struct {
	t      *testing.T
	events []event.Event
}

func (s *stream) add(typ string, data any) *stream {
	b, err := json.Marshal(data)
	if err != nil {
		s.t.Fatal(err)
	}
	s.events = append(s.events, event.Event{StreamID: "workflow-wr_x", Version: int64(len(s.events)), Type: typ, Data: b,
		RecordedAt: time.Date(2026, 11, 21, 10, 0, len(s.events), 0, time.UTC)})
	return s
}

func (s *stream) load() *workflow.Workflow {
	s.t.Helper()
	wf, err := workflow.Load(s.events)
	if err != nil {
		s.t.Fatal(err)
	}
	return wf
}

var steps = []workflow.PlannedStep{
	{Step: 1, Name: "Desk Research", Kind: workflow.KindResearch, Tier: 1, Credits: 200, PriorityClass: "must"},
	{Step: 2, Name: "SWOT Analysis", Kind: workflow.KindContent, Tier: 2, Credits: 150, PriorityClass: "should"},
	{Step: 3, Name: "Multi-Perspective Review (Standard)", Kind: workflow.KindReview, Tier: 1, Credits: 320, PriorityClass: "must"},
	{Step: 4, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 530, PriorityClass: "must"},
}

func queued(t *testing.T, free bool) *stream {
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: 4, Credits: 1200, Steps: steps})
	s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Free: free, Delivery: workflow.Delivery{Method: "polling"}})
	return s
}

func completed(n int, credits int) workflow.StepCompleted {
	c := workflow.StepCompleted{Step: n, Name: steps[n-1].Name, Kind: steps[n-1].Kind, Summary: "done", Credits: credits,
		Sections: []workflow.Section{{Heading: "H", Content: "C"}}, Calls: []workflow.Call{{Model: "m1"}}}
	if steps[n-1].Kind == workflow.KindSynthesis {
		c.Deliverable = &workflow.Deliverable{Title: "T", Sections: []workflow.Section{{Heading: "Summary", Content: "x"}}}
	}
	return c
}

func TestFullRun(t *testing.T) {
	s := queued(t, false)
	if n := s.load().Next(); n.Action != workflow.ActStart {
		t.Fatalf("queued: next %v", n.Action)
	}
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	for i := 1; i <= 4; i++ {
		n := s.load().Next()
		if n.Action != workflow.ActStep || n.Step.Step != i || n.Attempt != 1 {
			t.Fatalf("step %d: next %+v", i, n)
		}
		wf := s.load()
		s.add(workflow.EventStepStarted, workflow.StepStarted{Step: i, Name: steps[i-1].Name, Attempt: 1})
		s.add(workflow.EventStepCompleted, completed(i, wf.StepCharge(steps[i-1])))
	}
	if n := s.load().Next(); n.Action != workflow.ActReview {
		t.Fatalf("after the steps: next %v", n.Action)
	}
	s.add(workflow.EventReviewStarted, struct{}{})
	score := 91
	s.add(workflow.EventReviewed, workflow.Reviewed{Score: &score, Summary: "good", PathTo100: []string{"cite sources"}})
	wf := s.load()
	if n := wf.Next(); n.Action != workflow.ActFinish {
		t.Fatalf("after review: next %v", n.Action)
	}
	done, err := wf.Finish()
	if err != nil || done.Partial || done.Fee != 530 || done.Deliverable == nil {
		t.Fatalf("finish: %+v %v", done, err)
	}
	s.add(workflow.EventCompleted, done)
	v := s.load().View(true)
	if v.Status != "completed" || v.CreditsUsed != 1200 || v.CreditsLive != 670 || *v.QualityScore != 91 ||
		v.ActualStepsExecuted != 4 || v.CompletedStepSummaries[0].Model != "m1" || v.CompletedAt == nil || v.Error != nil {
		t.Fatalf("view: %+v", v)
	}
	if v.ActualStepsExecuted+v.SkippedSteps+v.IncompleteCount != v.TotalSteps {
		t.Fatalf("identity broken: %+v", v)
	}
	if s.load().Next().Action != workflow.ActNone {
		t.Fatal("a completed workflow has nothing next")
	}
}

func TestFreeRunChargesNothing(t *testing.T) {
	wf := queued(t, true).load()
	for _, st := range steps {
		if wf.StepCharge(st) != 0 {
			t.Fatalf("free run charges %s", st.Name)
		}
	}
	if wf.Remaining() != 0 {
		t.Fatalf("remaining %d", wf.Remaining())
	}
}

func TestSynthesisIsTheFee(t *testing.T) {
	wf := queued(t, false).load()
	if wf.StepCharge(steps[3]) != 0 || wf.StepCharge(steps[0]) != 200 || wf.Fee() != 530 || wf.Remaining() != 1200 {
		t.Fatalf("charge %d fee %d remaining %d", wf.StepCharge(steps[3]), wf.Fee(), wf.Remaining())
	}
}

func TestTerminalLadderEndsInSalvage(t *testing.T) {
	s := queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{})
	for i := 1; i <= 3; i++ {
		s.add(workflow.EventStepCompleted, completed(i, steps[i-1].Credits))
	}
	want := []string{"", workflow.StrategyCompressed, workflow.StrategyChunked, workflow.StrategySalvage}
	for attempt := 1; attempt <= 4; attempt++ {
		n := s.load().Next()
		if n.Step.Step != 4 || n.Attempt != attempt || n.Strategy != want[attempt-1] {
			t.Fatalf("attempt %d: %+v", attempt, n)
		}
		if attempt < 4 {
			s.add(workflow.EventTerminalRetrying, workflow.TerminalRetrying{StepIndex: 3, Attempt: attempt + 1, MaxAttempts: 4, Strategy: want[attempt]})
			v := s.load().View(false)
			if v.TerminalStepAttempts != attempt || v.TerminalStepStrategy != want[attempt] {
				t.Fatalf("view after attempt %d: %d %q", attempt, v.TerminalStepAttempts, v.TerminalStepStrategy)
			}
		}
	}
	wf := s.load()
	s.add(workflow.EventStepIncomplete, workflow.StepIncomplete{Step: 4, Name: "Synthesis", Reason: workflow.ReasonBudgetExhausted, Salvaged: true, Deliverable: wf.Salvage()})
	if n := s.load().Next(); n.Action != workflow.ActReview {
		t.Fatalf("a salvaged deliverable is still reviewed: %v", n.Action)
	}
	s.add(workflow.EventReviewStarted, struct{}{})
	s.add(workflow.EventReviewed, workflow.Reviewed{Summary: "could not run"})
	done, err := s.load().Finish()
	if err != nil || !done.Partial || done.Fee != 530 || done.Deliverable == nil || len(done.IncompleteSteps) != 1 ||
		done.IncompleteSteps[0] != (workflow.Incomplete{StepIndex: 3, Framework: "Synthesis", Reason: workflow.ReasonBudgetExhausted}) {
		t.Fatalf("salvage: %+v %v", done, err)
	}
	s.add(workflow.EventCompleted, done)
	v := s.load().View(false)
	if v.Status != "completed_partial" || v.QualityScore != nil || v.Error == nil || len(v.Deliverable.Sections) != 3 || v.TerminalStepStrategy != "" {
		t.Fatalf("view: %+v", v)
	}
}

func TestLostResearchPaysNoFee(t *testing.T) {
	s := queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepIncomplete, workflow.StepIncomplete{Step: 1, Name: "Desk Research", Reason: "The required research step was lost."})
	for i := 2; i <= 4; i++ {
		s.add(workflow.EventStepCompleted, completed(i, s.load().StepCharge(steps[i-1])))
	}
	s.add(workflow.EventReviewStarted, struct{}{})
	score := 60
	s.add(workflow.EventReviewed, workflow.Reviewed{Score: &score})
	done, _ := s.load().Finish()
	if !done.Partial || done.Fee != 0 || done.IncompleteSteps[0].Reason != "The required research step was lost." {
		t.Fatalf("%+v", done)
	}
	s.add(workflow.EventCompleted, done)
	v := s.load().View(false)
	if v.CreditsUsed != 470 || *v.QualityScore != 60 || v.IncompleteCount != 1 || v.ActualStepsExecuted != 3 {
		t.Fatalf("%+v", v)
	}
}

func TestAbandonedChunksEndWithoutDeliverable(t *testing.T) {
	s := queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	s.add(workflow.EventStepStarted, workflow.StepStarted{Step: 2, Attempt: 2, Strategy: "chunked", Chunk: &workflow.Chunk{Index: 1, Total: 2}})
	if v := s.load().View(false); v.CurrentChunk == nil || *v.CurrentChunk != (workflow.Chunk{Index: 1, Total: 2}) {
		t.Fatalf("current_chunk while chunked: %+v", v.CurrentChunk)
	}
	s.add(workflow.EventStepIncomplete, workflow.StepIncomplete{Step: 2, Name: "SWOT Analysis", Reason: workflow.ReasonChunksAbandoned, Abandoned: true})
	wf := s.load()
	if n := wf.Next(); n.Action != workflow.ActFinish {
		t.Fatalf("after abandonment: %v", n.Action)
	}
	done, _ := wf.Finish()
	if !done.Partial || done.Deliverable != nil || done.Fee != 0 || len(done.IncompleteSteps) != 3 || done.IncompleteSteps[2].Reason != workflow.ReasonNotReached {
		t.Fatalf("%+v", done)
	}
	s.add(workflow.EventCompleted, done)
	v := s.load().View(false)
	if v.CurrentChunk != nil || v.Deliverable != nil || v.ActualStepsExecuted+v.IncompleteCount != 4 {
		t.Fatalf("%+v", v)
	}
}

func TestFailedRefundsAndHaltedSaves(t *testing.T) {
	s := queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	s.add(workflow.EventFailed, workflow.Failed{Code: "provider_exhausted", Error: "boom", Step: 2, Refunded: 200})
	v := s.load().View(false)
	if v.Status != "failed" || v.CreditsUsed != 0 || v.CreditsLive != 0 || *v.Error != "boom" || v.IncompleteCount != 3 {
		t.Fatalf("failed: %+v", v)
	}

	s = queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	h := s.load().HaltOn(2, "connection_failure", []string{"Connection repo failed to respond"})
	if h.CreditsSaved != 1000 {
		t.Fatalf("saved %d, want 150+320+530", h.CreditsSaved)
	}
	s.add(workflow.EventHalted, h)
	v = s.load().View(false)
	if v.Status != "halted" || *v.HaltedAtStep != 2 || v.HaltReason != "connection_failure" || len(v.ResolutionOptions) != 4 ||
		*v.CreditsSavedByHalt != 1000 || v.CreditsUsed != 200 || len(v.BlockingIssues) != 1 {
		t.Fatalf("halted: %+v", v)
	}
}

func TestCanQueue(t *testing.T) {
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", Steps: steps})
	if err := s.load().CanQueue(); err != nil {
		t.Fatal(err)
	}
	s.add(workflow.EventQueued, workflow.Queued{})
	if err := s.load().CanQueue(); !errors.Is(err, workflow.ErrNotQueueable) {
		t.Fatalf("queued twice: %v", err)
	}
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepCompleted, completed(1, 0))
	if err := s.load().CanQueue(); !errors.Is(err, workflow.ErrHasProgress) {
		t.Fatalf("with progress: %v", err)
	}
	empty := &stream{t: t}
	empty.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_y"})
	if err := empty.load().CanQueue(); !errors.Is(err, workflow.ErrNoPlan) {
		t.Fatalf("no steps: %v", err)
	}
	if _, err := workflow.Load(nil); !errors.Is(err, workflow.ErrNotFound) {
		t.Fatalf("empty stream: %v", err)
	}
}

func TestSlotsAndLimits(t *testing.T) {
	sl := workflow.NewSlots()
	ev := func(v int64, typ, id string) event.Event {
		b, _ := json.Marshal(workflow.Slot{WorkflowID: id})
		return event.Event{Version: v, Type: typ, Data: b}
	}
	for i, e := range []event.Event{ev(0, workflow.EventSlotTaken, "a"), ev(1, workflow.EventSlotTaken, "b"), ev(2, workflow.EventSlotReleased, "a")} {
		if err := sl.Apply(e); err != nil {
			t.Fatal(i, err)
		}
	}
	if got := sl.Active(); len(got) != 1 || got[0] != "b" || sl.Version() != 2 {
		t.Fatalf("active %v v%d", got, sl.Version())
	}
	if _, err := sl.Take("c", 1); !errors.Is(err, workflow.ErrConcurrentLimit) {
		t.Fatalf("free tier second slot: %v", err)
	}
	if _, err := sl.Take("c", 0); err != nil {
		t.Fatalf("unlimited: %v", err)
	}
	for tier, want := range map[string]int{"free": 1, "pro": 3, "team": 10, "enterprise": 0} {
		if workflow.ConcurrentLimit(tier) != want {
			t.Fatalf("%s: %d", tier, workflow.ConcurrentLimit(tier))
		}
	}
	if workflow.DailyLimit("enterprise") != 100_000 || workflow.DailyLimit("team") != 1000 {
		t.Fatal("daily limits")
	}
	if workflow.Normalize("  Compare our PRICING, with 3 competitors! ") != "compare our pricing with 3 competitors" {
		t.Fatalf("normalize: %q", workflow.Normalize("  Compare our PRICING, with 3 competitors! "))
	}
	if workflow.TaskStream("o", "A  b") != workflow.TaskStream("o", "a b.") || workflow.TaskStream("o", "a b") == workflow.TaskStream("p", "a b") {
		t.Fatal("task streams")
	}
}
