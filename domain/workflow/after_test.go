package workflow_test

import (
	"reflect"
	"testing"
	"time"

	"svc/domain/workflow"
)

// After folds decided events into a copy: the workflow itself is left as
// it was, and the copy decides what the workflow will once the events are
// recorded.
func TestAfterLeavesTheWorkflow(t *testing.T) {
	s := queued(t, false)
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	s.add(workflow.EventStepStarted, workflow.StepStarted{Step: 1, Name: steps[0].Name, Attempt: 1})
	wf := s.load()
	before := wf.View(true)
	res := completed(1, wf.StepCharge(steps[0]))
	after, err := wf.After(time.Now(), res)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(wf.View(true), before) || wf.Version() != 3 {
		t.Fatalf("After changed the workflow: version %d", wf.Version())
	}
	if n := wf.Next(); n.Action != workflow.ActStep || n.Step.Step != 1 || n.Attempt != 2 {
		t.Fatalf("workflow next %+v", n)
	}
	n := after.Next()
	if n.Action != workflow.ActStep || n.Step.Step != 2 || n.Attempt != 1 || after.Version() != 4 {
		t.Fatalf("after next %+v at version %d", n, after.Version())
	}
	// the copy folds on without touching the original's steps or calls
	if _, err := after.After(time.Now(), after.StartStep(n), completed(2, 150)); err != nil {
		t.Fatal(err)
	}
	if c := after.Clone(); c.Next().Step.Step != 2 || len(wf.View(true).CompletedStepSummaries) != 0 {
		t.Fatal("a clone shares state")
	}
	// and agrees with a fold of the recorded events
	s.add(workflow.EventStepCompleted, res)
	if got, want := after.View(true), s.load().View(true); !reflect.DeepEqual(got.Status, want.Status) || got.CreditsLive != want.CreditsLive {
		t.Fatalf("after %+v, fold %+v", got, want)
	}
}
