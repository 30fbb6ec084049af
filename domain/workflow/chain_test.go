package workflow_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"svc/domain/workflow"
)

// finished is a completed run of the four test steps, with additional
// context, a deliverable of content and a review.
func finished(t *testing.T, content string) *workflow.Workflow {
	s := &stream{t: t}
	s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", Title: "T", TaskType: "swot", Description: "the task",
		AdditionalContext: "plan ctx", TotalSteps: 4, Credits: 1200, Steps: steps})
	s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org", Context: "run ctx", Delivery: workflow.Delivery{Method: "polling"}})
	s.add(workflow.EventStarted, workflow.Started{Worker: "w"})
	for i := 1; i <= 4; i++ {
		s.add(workflow.EventStepCompleted, completed(i, 0))
	}
	score := 88
	s.add(workflow.EventReviewed, workflow.Reviewed{Score: &score, Summary: "solid", PathTo100: []string{"add figures"}})
	s.add(workflow.EventCompleted, workflow.Completed{Deliverable: &workflow.Deliverable{Title: "Final", Sections: []workflow.Section{{Heading: "Body", Content: content}}}})
	return s.load()
}

func TestExtendInherits(t *testing.T) {
	wf := finished(t, "the body")
	l, err := wf.Extend("org", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.PriorWorkflowID != "wr_x" || l.Depth != 2 || strings.Join(l.Fields, ",") != "deliverable,step_summaries" {
		t.Fatalf("link %+v", l)
	}
	for _, want := range []string{"Prior workflow wr_x (swot, completed): T", "### Deliverable\nTitle: Final\n#### Body\nthe body", "- Step 2, SWOT Analysis: done"} {
		if !strings.Contains(l.Inherited, want) {
			t.Errorf("inherited text lacks %q:\n%s", want, l.Inherited)
		}
	}
	if strings.Contains(l.Inherited, "the task") || strings.Contains(l.Inherited, "Quality review") {
		t.Errorf("default fields inherited more:\n%s", l.Inherited)
	}

	// every field, given out of order and twice, renders in vocabulary order
	l, err = wf.Extend("org", []string{"quality_review", "additional_context", "task_description", "deliverable", "step_summaries", "deliverable"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.Fields, ",") != strings.Join(workflow.ContextFields, ",") {
		t.Errorf("fields %v", l.Fields)
	}
	order := []string{"### Task description\nthe task", "### Additional context\nrun ctx", "### Deliverable", "### Step summaries", "### Quality review\nScore: 88/100. solid\n- add figures"}
	last := -1
	for _, want := range order {
		i := strings.Index(l.Inherited, want)
		if i <= last {
			t.Fatalf("%q at %d (after %d):\n%s", want, i, last, l.Inherited)
		}
		last = i
	}

	// an explicit empty list links without inheriting
	if l, err := wf.Extend("org", []string{}); err != nil || l.Inherited != "" || len(l.Fields) != 0 || l.Depth != 2 {
		t.Fatalf("empty fields: %+v %v", l, err)
	}
}

func TestExtendRefusals(t *testing.T) {
	if _, err := finished(t, "x").Extend("other", nil); !errors.Is(err, workflow.ErrPriorNotFound) {
		t.Errorf("foreign org: %v", err)
	}
	var nt *workflow.PriorNotTerminalError
	if _, err := queued(t, false).load().Extend("org", nil); !errors.As(err, &nt) || nt.Status != workflow.StatusQueued || !errors.Is(err, workflow.ErrPriorNotTerminal) {
		t.Errorf("queued prior: %v", err)
	}

	// a prior at link 10 cannot be extended; at link 9 it can
	for depth, ok := range map[int]bool{9: true, 10: false} {
		s := &stream{t: t}
		s.add(workflow.EventPlanned, workflow.Planned{WorkflowID: "wr_x", OrgID: "org", TotalSteps: 4, Steps: steps})
		s.add(workflow.EventQueued, workflow.Queued{WorkflowID: "wr_x", OrgID: "org", PriorWorkflowID: "wr_y", ChainDepth: depth})
		s.add(workflow.EventFailed, workflow.Failed{Code: "provider_exhausted", Error: "e"})
		l, err := s.load().Extend("org", nil)
		if ok && (err != nil || l.Depth != depth+1) {
			t.Errorf("prior at link %d: %+v %v", depth, l, err)
		}
		if !ok && !errors.Is(err, workflow.ErrChainDepth) {
			t.Errorf("prior at link %d: %v, want ErrChainDepth", depth, err)
		}
	}

	// the size limit counts the rendered text
	var large *workflow.ContextTooLargeError
	_, err := finished(t, strings.Repeat("word ", 30_000)).Extend("org", nil)
	if !errors.As(err, &large) || large.Max != workflow.MaxInheritedTokens || large.Estimated <= workflow.MaxInheritedTokens {
		t.Fatalf("large deliverable: %v", err)
	}
	if _, err := finished(t, strings.Repeat("word ", 30_000)).Extend("org", []string{"step_summaries"}); err != nil {
		t.Fatalf("summaries only: %v", err)
	}
	if n := workflow.EstimateTokens("abcde"); n != 2 {
		t.Errorf("EstimateTokens(5 chars) = %d", n)
	}
}

func TestLineage(t *testing.T) {
	views := map[string]workflow.View{}
	prior := ""
	for i := 1; i <= 11; i++ {
		id := fmt.Sprintf("wr_%d", i)
		views[id] = workflow.View{WorkflowID: id, PriorWorkflowID: prior, TotalSteps: i}
		prior = id
	}
	get := func(id string) (workflow.View, error) {
		v, ok := views[id]
		if !ok {
			return workflow.View{}, workflow.ErrNotFound
		}
		return v, nil
	}
	chain, err := workflow.Lineage("wr_3", get)
	if err != nil || len(chain) != 3 || chain[0].WorkflowID != "wr_1" || chain[2].WorkflowID != "wr_3" {
		t.Fatalf("lineage of wr_3: %v %v", chain, err)
	}
	if chain, err := workflow.Lineage("wr_10", get); err != nil || len(chain) != 10 {
		t.Fatalf("lineage of a 10-link chain: %d links, %v", len(chain), err)
	}
	if _, err := workflow.Lineage("wr_11", get); !errors.Is(err, workflow.ErrChainDepth) {
		t.Fatalf("11 links: %v", err)
	}
	if _, err := workflow.Lineage("wr_none", get); !errors.Is(err, workflow.ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
}
