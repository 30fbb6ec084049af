package workflow_test

import (
	"fmt"
	"testing"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// takeoverSteps is a plan with a step of every kind.
var takeoverSteps = []workflow.PlannedStep{
	{Step: 1, Name: "Desk Research", Kind: workflow.KindResearch, Tier: 1, Credits: 200, PriorityClass: "must"},
	{Step: 2, Name: "SWOT Analysis", Kind: workflow.KindContent, Tier: 2, Credits: 150, PriorityClass: "should"},
	{Step: 3, Name: "Multi-Perspective Review (Standard)", Kind: workflow.KindReview, Tier: 1, Credits: 320, PriorityClass: "must"},
	{Step: 4, Name: "Classification Verification", Kind: workflow.KindProcess, Tier: 1, Credits: 90, PriorityClass: "must"},
	{Step: 5, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 530, PriorityClass: "must"},
}

// killedRun is one place a worker dies: between the StepStarted of a step
// (after what before does there: failures, chunks) and its outcome.
type killedRun struct {
	name  string
	step  int
	kills int // takeovers in a row at the step (1 unless set)
	// before records, at the step, what comes before the start that is
	// abandoned (failed attempts); it returns that start's strategy.
	before func(s *stream) string
	// startedBefore: before recorded the abandoned start itself (a chunk's)
	startedBefore bool
}

// killedRuns: a worker killed in every kind of step, in a chunk of a
// content step over its time budget, on each rung of the Synthesis
// step's retry ladder, and twice in a row.
var killedRuns = func() []killedRun {
	var out []killedRun
	for _, st := range takeoverSteps {
		out = append(out, killedRun{name: st.Kind, step: st.Step})
	}
	timeout := workflow.Failure{Cause: "deadline", TimedOut: true}
	failSynthesis := func(s *stream, n int) {
		for range n {
			wf := s.load()
			next := wf.Next()
			s.record(wf.StartStep(next))
			s.record(s.load().StepFailed(next, timeout).Events...)
		}
	}
	return append(out,
		killedRun{name: "content in a chunk", step: 2, startedBefore: true, before: func(s *stream) string {
			wf := s.load()
			next := wf.Next()
			s.record(wf.StartStep(next))
			if out := s.load().StepFailed(next, timeout); !out.RetryChunked {
				s.t.Fatalf("a content step over its time budget: %+v, want a try in parts", out)
			}
			for try := range 2 {
				s.record(s.load().StartChunk(next.Step, next.Attempt+1, 0, 2, try))
			}
			return ""
		}},
		killedRun{name: "content twice", step: 2, kills: 2},
		killedRun{name: "synthesis compressed", step: 5, before: func(s *stream) string {
			failSynthesis(s, 1)
			return workflow.StrategyCompressed
		}},
		killedRun{name: "synthesis chunked", step: 5, startedBefore: true, before: func(s *stream) string {
			failSynthesis(s, 2)
			wf := s.load()
			next := wf.Next()
			s.record(wf.StartStep(next), wf.StartChunk(next.Step, next.Attempt, 0, 2, 0))
			return workflow.StrategyChunked
		}},
		killedRun{name: "synthesis twice", step: 5, kills: 2},
	)
}()

// A step started again after a takeover is a new attempt, whatever its
// kind: its attempt number is past every earlier start of the step, so no
// two starts of a stream carry the same SSE id (step, attempt, chunk,
// retry), and the Synthesis step keeps the rung of its retry ladder (an
// abandoned start is no failure). Decision 129.
func TestTakeoverStartsANewAttempt(t *testing.T) {
	for _, k := range killedRuns {
		t.Run(k.name, func(t *testing.T) {
			s := &stream{t: t}
			s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: len(takeoverSteps), Credits: 1290, Steps: takeoverSteps})
			s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Delivery: workflow.Delivery{Method: "sse"}, Mode: workflow.ModeFull})
			s.record(s.load().Start("w1", true, 10)...)
			for n := 1; n <= len(takeoverSteps); n++ {
				if n == k.step {
					killAt(t, s, k)
				}
				wf := s.load()
				next := wf.Next()
				if next.Action != workflow.ActStep || next.Step.Step != n {
					t.Fatalf("step %d: next %+v", n, next)
				}
				s.record(wf.StartStep(next), completed5(n, wf.StepCharge(next.Step)))
			}
			wf := s.load()
			if next := wf.Next(); next.Action != workflow.ActReview {
				t.Fatalf("after the steps: next %v", next.Action)
			}
			score := 90
			s.record(wf.StartReview()...)
			s.record(s.load().Reviewed(workflow.Review{Score: &score, Summary: "ok"}))
			done, err := s.load().Finish()
			if err != nil {
				t.Fatal(err)
			}
			s.record(done)
			if st := s.load().Status(); st != workflow.StatusCompleted {
				t.Fatalf("status %s", st)
			}
			ids := map[string]int{}
			for _, e := range s.events {
				id := sseKey(t, e)
				if id == "" {
					continue
				}
				if ids[id]++; ids[id] > 1 {
					t.Errorf("two events with the SSE id %s (version %d); the stream: %s", id, e.Version, keys(t, s.events))
				}
			}
		})
	}
}

// killAt records what comes before the killed start at k.step, the start
// and its takeover (k.kills times), and checks what Next decides after
// each takeover.
func killAt(t *testing.T, s *stream, k killedRun) {
	t.Helper()
	strategy := ""
	if k.before != nil {
		strategy = k.before(s)
	}
	for i := range max(k.kills, 1) {
		if i > 0 || !k.startedBefore {
			wf := s.load()
			next := wf.Next()
			if next.Action != workflow.ActStep || next.Step.Step != k.step || next.Strategy != strategy {
				t.Fatalf("before kill %d: next %+v, want step %d with strategy %q", i+1, next, k.step, strategy)
			}
			s.record(wf.StartStep(next))
		}
		failed := s.load().View(false).TerminalStepAttempts
		// the worker dies here, before the outcome: another takes the run
		// over
		take := s.load().TakeOver("w2")
		if len(take) != 1 {
			t.Fatalf("take over at step %d: %+v", k.step, take)
		}
		s.record(take...)
		wf := s.load()
		next := wf.Next()
		last := 0
		for _, e := range s.events {
			var d workflow.StepStarted
			if e.Type == workflow.EventStepStarted && e.Decode(&d) == nil && d.Step == k.step {
				last = max(last, d.Attempt)
			}
		}
		if next.Action != workflow.ActStep || next.Step.Step != k.step || next.Attempt <= last {
			t.Fatalf("after takeover %d: next %+v, want step %d at an attempt past %d (the abandoned start's)", i+1, next, k.step, last)
		}
		if next.Strategy != strategy {
			t.Fatalf("after takeover %d: strategy %q, want %q (the rung of the start abandoned)", i+1, next.Strategy, strategy)
		}
		if got := wf.View(false).TerminalStepAttempts; got != failed {
			t.Fatalf("terminal_step_attempts %d after takeover %d, want %d (failed attempts only)", got, i+1, failed)
		}
	}
}

// completed5 is step n of takeoverSteps completed.
func completed5(n, credits int) workflow.StepCompleted {
	st := takeoverSteps[n-1]
	c := workflow.StepCompleted{Step: n, Name: st.Name, Kind: st.Kind, Summary: "done", Credits: credits,
		Sections: []workflow.Section{{Heading: "H", Content: "C"}}}
	if st.Kind == workflow.KindSynthesis {
		c.Deliverable = &workflow.Deliverable{Title: "T", Sections: []workflow.Section{{Heading: "Summary", Content: "x"}}}
	}
	return c
}

// sseKey is what the SSE id of a step's start or retry is made of
// (decision 40), "" for the other events.
func sseKey(t *testing.T, e event.Event) string {
	t.Helper()
	switch e.Type {
	case workflow.EventStepStarted:
		var d workflow.StepStarted
		if err := e.Decode(&d); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("step-%d.started.a%d", d.Step, d.Attempt)
		if d.Chunk != nil {
			id += fmt.Sprintf(".c%d", d.Chunk.Index)
		}
		if d.Retry > 0 {
			id += fmt.Sprintf(".r%d", d.Retry)
		}
		return id
	case workflow.EventTerminalRetrying:
		var d workflow.TerminalRetrying
		if err := e.Decode(&d); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("step-%d.retry.a%d", d.StepIndex+1, d.Attempt)
	}
	return ""
}

// keys lists the events of a stream with their SSE keys, for messages.
func keys(t *testing.T, events []event.Event) string {
	out := ""
	for _, e := range events {
		out += fmt.Sprintf("\n  v%d %s %s", e.Version, e.Type, sseKey(t, e))
	}
	return out
}
