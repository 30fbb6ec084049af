package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// feedSteps is a plan with a step of every kind.
var feedSteps = []workflow.PlannedStep{
	{Step: 1, Name: "Desk Research", Kind: workflow.KindResearch, Tier: 1, Credits: 200, PriorityClass: "must"},
	{Step: 2, Name: "SWOT Analysis", Kind: workflow.KindContent, Tier: 2, Credits: 150},
	{Step: 3, Name: "Multi-Perspective Review (Standard)", Kind: workflow.KindReview, Tier: 1, Credits: 320},
	{Step: 4, Name: "Classification Verification", Kind: workflow.KindProcess, Tier: 1, Credits: 90},
	{Step: 5, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 530},
}

// feedStream is a workflow stream built from decided data.
type feedStream struct {
	t      *testing.T
	events []event.Event
}

func (s *feedStream) record(data ...event.Data) {
	for _, d := range data {
		b, err := json.Marshal(d)
		if err != nil {
			s.t.Fatal(err)
		}
		s.events = append(s.events, event.Event{StreamID: "workflow-wr_x", Version: int64(len(s.events)), Type: d.EventType(), Data: b,
			RecordedAt: time.Date(2026, 11, 21, 10, 0, len(s.events), 0, time.UTC)})
	}
}

func (s *feedStream) load() *workflow.Workflow {
	s.t.Helper()
	wf, err := workflow.Load(s.events)
	if err != nil {
		s.t.Fatal(err)
	}
	return wf
}

// markers feeds events to a stream's sseFeed and returns the markers of
// the events it gives, in order.
func markers(t *testing.T, events []event.Event) []string {
	t.Helper()
	f := &sseFeed{}
	var out []string
	for _, e := range events {
		got, err := f.add(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			out = append(out, g.marker)
		}
	}
	return out
}

// A worker killed between the StepStarted of a step of each kind and its
// outcome: the step started again by the worker that takes the run over
// is a new attempt, so the stream's ids are unique as they are, with no
// version suffix (decision 129); a stream recorded before that, which
// repeated the attempt, still gets unique ids from the suffix (decision
// 75).
func TestSSEIdsUniqueAfterTakeovers(t *testing.T) {
	for _, killed := range feedSteps {
		t.Run(killed.Kind, func(t *testing.T) {
			s := &feedStream{t: t}
			s.record(workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: len(feedSteps), Credits: 1290, Steps: feedSteps},
				workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Delivery: workflow.Delivery{Method: "sse"}, Mode: workflow.ModeFull})
			s.record(s.load().Start("w1", true, 10)...)
			for _, st := range feedSteps {
				if st.Step == killed.Step {
					wf := s.load()
					s.record(wf.StartStep(wf.Next())) // the worker dies here
					s.record(s.load().TakeOver("w2")...)
				}
				wf := s.load()
				next := wf.Next()
				res := workflow.Result{Summary: "done", Sections: []workflow.Section{{Heading: "H", Content: "C"}}}
				if st.Kind == workflow.KindSynthesis {
					res.Deliverable = &workflow.Deliverable{Title: "T", Sections: []workflow.Section{{Heading: "S", Content: "x"}}}
				}
				s.record(wf.StartStep(next), wf.StepSucceeded(next.Step, next.Strategy, res))
			}
			wf := s.load()
			s.record(wf.StartReview()...)
			score := 90
			s.record(s.load().Reviewed(workflow.Review{Score: &score, Summary: "ok"}))
			done, err := s.load().Finish()
			if err != nil {
				t.Fatal(err)
			}
			s.record(done)

			ms := markers(t, s.events)
			seen := map[string]bool{}
			for _, m := range ms {
				if seen[m] || strings.Contains(m, ".v") {
					t.Errorf("marker %s repeated or suffixed: %v", m, ms)
				}
				seen[m] = true
			}
			for _, want := range []string{fmt.Sprintf("step-%d.started.a1", killed.Step), fmt.Sprintf("step-%d.started.a2", killed.Step)} {
				if !seen[want] {
					t.Errorf("no marker %s (the killed start, then the new attempt): %v", want, ms)
				}
			}
		})
	}

	// a stream of before decision 129: the Synthesis step started twice as
	// attempt 1
	s := &feedStream{t: t}
	s.record(workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TotalSteps: 1, Steps: feedSteps[4:5]},
		workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Delivery: workflow.Delivery{Method: "sse"}, Mode: workflow.ModeFull},
		workflow.Started{Worker: "w1"}, workflow.StepStarted{Step: 1, Name: "Synthesis", Attempt: 1},
		workflow.Started{Worker: "w2", Resumed: true}, workflow.StepStarted{Step: 1, Name: "Synthesis", Attempt: 1})
	if got := strings.Join(markers(t, s.events), " "); got != "started step-1.started.a1 step-1.started.a1.v5" {
		t.Errorf("markers of a stream that repeats an attempt: %s", got)
	}
}
