package workflow_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/workflow"
)

func interactive(t *testing.T) *stream {
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: 4, Credits: 1200, Steps: steps})
	s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Mode: workflow.ModeInteractive, Delivery: workflow.Delivery{Method: "interactive"}})
	return s
}

func TestInteractiveSteps(t *testing.T) {
	s := interactive(t)
	wf := s.load()
	if wf.Status() != workflow.StatusInteractiveWaiting || wf.Next().Action != workflow.ActNone {
		t.Fatalf("status %s, next %v: an interactive run waits for a step call", wf.Status(), wf.Next().Action)
	}
	now := time.Date(2026, 11, 21, 10, 1, 0, 0, time.UTC)
	if err := wf.CheckStep(now, 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := wf.CheckStep(now.Add(time.Hour), 30*time.Minute); !errors.Is(err, workflow.ErrSessionExpired) {
		t.Fatalf("idle an hour: %v", err)
	}

	s.add(workflow.EventStepRequested, workflow.StepRequested{Step: 1, Name: steps[0].Name, Feedback: "focus on EU"})
	wf = s.load()
	next := wf.Next()
	if wf.Status() != workflow.StatusStepExecuting || next.Action != workflow.ActStep || next.Step.Step != 1 {
		t.Fatalf("status %s next %+v", wf.Status(), next)
	}
	if g := wf.Guidance(); len(g) != 1 || g[0] != "Feedback for this step: focus on EU" {
		t.Errorf("guidance %v", g)
	}
	if err := wf.CheckStep(now, time.Hour); !errors.Is(err, workflow.ErrStepInProgress) {
		t.Errorf("a step call while a step runs: %v", err)
	}
	s.add(workflow.EventStepStarted, workflow.StepStarted{Step: 1, Attempt: 1})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	wf = s.load()
	if wf.Status() != workflow.StatusInteractiveWaiting || len(wf.Guidance()) != 0 {
		t.Fatalf("after the step: %s, guidance %v", wf.Status(), wf.Guidance())
	}

	s.add(workflow.EventStepSkipped, workflow.StepSkipped{Step: 2, Name: steps[1].Name})
	s.add(workflow.EventStepRequested, workflow.StepRequested{Step: 3})
	s.add(workflow.EventStepCompleted, completed(3, 320))
	s.add(workflow.EventStepSkipped, workflow.StepSkipped{Step: 4, Name: steps[3].Name})
	wf = s.load()
	// the last step skipped: the run ends without a deliverable or a fee
	if wf.Status() != workflow.StatusExecuting || wf.Next().Action != workflow.ActFinish {
		t.Fatalf("status %s next %v", wf.Status(), wf.Next().Action)
	}
	done, err := wf.Finish()
	if err != nil || done.Partial || done.Fee != 0 || done.CreditsUsed != 520 {
		t.Fatalf("finish %+v %v", done, err)
	}
	s.add(workflow.EventCompleted, done)
	v := s.load().View(false)
	if v.ActualStepsExecuted != 2 || v.SkippedSteps != 2 || v.IncompleteCount != 0 || v.DeliveryMode != "interactive" {
		t.Errorf("view %+v", v)
	}
}

func TestInteractiveAbortAndTimeout(t *testing.T) {
	s := interactive(t)
	s.add(workflow.EventStepRequested, workflow.StepRequested{Step: 1})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	s.add(workflow.EventAborted, workflow.Aborted{StepsCompleted: 1, TotalSteps: 4})
	v := s.load().View(false)
	if v.Status != workflow.StatusAborted || v.CreditsUsed != 200 || v.Error == nil || v.CompletedAt == nil ||
		v.ActualStepsExecuted+v.SkippedSteps+v.IncompleteCount != v.TotalSteps {
		t.Errorf("aborted view %+v", v)
	}

	s = interactive(t)
	s.add(workflow.EventTimedOut, workflow.TimedOut{IdleSeconds: 1900})
	wf := s.load()
	if wf.Status() != workflow.StatusTimedOut || wf.CheckResume(false) != nil {
		t.Fatalf("timed out: %s, resume %v", wf.Status(), wf.CheckResume(false))
	}
	s.add(workflow.EventResumed, workflow.Resumed{From: workflow.StatusTimedOut, FromStep: 1, RevisionGuidance: "shorter"})
	wf = s.load()
	if wf.Status() != workflow.StatusResuming || wf.Next().Action != workflow.ActStart || wf.View(false).CompletedAt != nil {
		t.Fatalf("resumed: %s", wf.Status())
	}
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	wf = s.load()
	// a resumed interactive run goes on to its end
	if n := wf.Next(); wf.Status() != workflow.StatusExecuting || n.Action != workflow.ActStep || n.Step.Step != 1 {
		t.Fatalf("%s %+v", wf.Status(), n)
	}
	if g := wf.Guidance(); len(g) != 1 || g[0] != "Revision guidance: shorter" {
		t.Errorf("guidance %v", g)
	}
	if rg := wf.View(false).RevisionGuidance; rg == nil || *rg != "shorter" {
		t.Errorf("revision_guidance %v", rg)
	}
}

func TestApprovalGate(t *testing.T) {
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: 4, Credits: 1200, Steps: steps, ApprovalGates: []int{2}})
	s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org"})
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	s.add(workflow.EventStepCompleted, completed(2, 150))
	wf := s.load()
	if n := wf.Next(); n.Action != workflow.ActPause || n.Step.Step != 3 {
		t.Fatalf("next %+v, want a pause before step 3", n)
	}
	if v := wf.View(false); v.ApprovalStatus != workflow.ApprovalRequired {
		t.Errorf("approval_status %s", v.ApprovalStatus)
	}
	s.add(workflow.EventApprovalRequested, workflow.ApprovalRequested{Gate: 2, Step: 3, Deliverable: wf.PartialDeliverable()})
	wf = s.load()
	v := wf.View(false)
	if wf.Status() != workflow.StatusPendingApproval || wf.PendingGate() != 2 || v.Deliverable == nil || len(v.Deliverable.Sections) != 2 ||
		v.ApprovalStatus != workflow.ApprovalPending || wf.Next().Action != workflow.ActNone {
		t.Fatalf("paused: %s gate %d view %+v", wf.Status(), wf.PendingGate(), v)
	}

	approved := &stream{t: t, events: append(s.events[:0:0], s.events...)}
	approved.add(workflow.EventApproved, workflow.Decision{Gate: 2, Notes: "keep it short", AgentID: "board_chair"})
	wf = approved.load()
	if wf.Status() != workflow.StatusApproved || wf.Next().Action != workflow.ActStart {
		t.Fatalf("approved: %s", wf.Status())
	}
	approved.add(workflow.EventStarted, workflow.Started{})
	wf = approved.load()
	if n := wf.Next(); n.Action != workflow.ActStep || n.Step.Step != 3 {
		t.Fatalf("after approval next %+v", n)
	}
	if g := wf.Guidance(); len(g) != 1 || g[0] != "Approver notes: keep it short" {
		t.Errorf("guidance %v", g)
	}
	if v := wf.View(false); v.ApprovalStatus != workflow.ApprovalApproved {
		t.Errorf("approval_status %s", v.ApprovalStatus)
	}

	s.add(workflow.EventRejected, workflow.Decision{Gate: 2, Notes: "wrong market", AgentID: "board_chair"})
	v = s.load().View(false)
	if v.Status != workflow.StatusFailed || v.HaltReason != "rejected" || v.CreditsUsed != 350 || v.ApprovalStatus != workflow.ApprovalRejected ||
		v.Error == nil || v.HaltedAtStep == nil || *v.HaltedAtStep != 3 {
		t.Errorf("rejected view %+v", v)
	}
}

func TestResumeRules(t *testing.T) {
	s := queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{})
	s.add(workflow.EventStepCompleted, completed(1, 200))
	s.add(workflow.EventFailed, workflow.Failed{Code: "provider_exhausted", Step: 2, Refunded: 200})
	wf := s.load()
	if err := wf.CheckResume(false); err != nil {
		t.Fatalf("resume failed: %v", err)
	}
	s.add(workflow.EventResumed, workflow.Resumed{From: workflow.StatusFailed, FromStep: 2})
	s.add(workflow.EventStarted, workflow.Started{})
	wf = s.load()
	v := wf.View(false)
	if v.Error != nil || v.CreditsUsed != 0 || wf.Next().Step.Step != 2 {
		t.Errorf("resumed after failure: %+v next %+v", v, wf.Next())
	}
	for _, n := range []int{2, 3, 4} {
		s.add(workflow.EventStepCompleted, completed(n, map[int]int{2: 150, 3: 320, 4: 0}[n]))
	}
	done, err := s.load().Finish()
	// the refunded first step stays free; the remaining steps and the fee are charged
	if err != nil || done.CreditsUsed != 150+320+530 {
		t.Fatalf("finish %+v %v", done, err)
	}
	s.add(workflow.EventCompleted, done)
	if err := s.load().CheckResume(false); !errors.Is(err, workflow.ErrAlreadyComplete) {
		t.Errorf("resume completed: %v", err)
	}
	if err := queued(t, false).load().CheckResume(false); !errors.Is(err, workflow.ErrInvalidStatus) {
		t.Errorf("resume queued: %v", err)
	}
	for status, want := range map[string]string{"queued": "cancel", "executing": "force_cancel", "completed": "", "pending_approval": "cancel"} {
		if got := workflow.CancelAction(status); got != want {
			t.Errorf("CancelAction(%s) %q, want %q", status, got, want)
		}
	}
	c := queued(t, false)
	c.add(workflow.EventCancelled, workflow.Cancelled{From: "queued"})
	if v := c.load().View(false); v.Status != workflow.StatusCancelled || v.Error == nil {
		t.Errorf("cancelled %+v", v)
	}
}

// An interactive Synthesis step that fails follows the terminal step's
// retry ladder like a full run's (compressed, chunked, salvage), so a
// provider that keeps failing cannot make the worker retry it forever.
func TestInteractiveTerminalLadder(t *testing.T) {
	s := interactive(t)
	for n := 1; n <= 3; n++ {
		s.add(workflow.EventStepRequested, workflow.StepRequested{Step: n})
		s.add(workflow.EventStepCompleted, completed(n, 0))
	}
	s.add(workflow.EventStepRequested, workflow.StepRequested{Step: 4, Name: "Synthesis"})
	for attempt, strategy := range []string{"", workflow.StrategyCompressed, workflow.StrategyChunked, workflow.StrategySalvage} {
		n := s.load().Next()
		if n.Action != workflow.ActStep || n.Step.Step != 4 || n.Attempt != attempt+1 || n.Strategy != strategy {
			t.Fatalf("attempt %d: next %+v, want strategy %q", attempt+1, n, strategy)
		}
		s.add(workflow.EventStepStarted, workflow.StepStarted{Step: 4, Attempt: attempt + 1, Strategy: strategy})
		if strategy != workflow.StrategySalvage {
			s.add(workflow.EventTerminalRetrying, workflow.TerminalRetrying{StepIndex: 3, Attempt: attempt + 2})
		}
	}
	s.add(workflow.EventStepIncomplete, workflow.StepIncomplete{Step: 4, Reason: workflow.ReasonBudgetExhausted, Salvaged: true,
		Deliverable: &workflow.Deliverable{Title: "T"}})
	if wf := s.load(); wf.Status() != workflow.StatusExecuting || wf.Next().Action != workflow.ActReview {
		t.Fatalf("after salvage: %s next %v", wf.Status(), wf.Next().Action)
	}
}
