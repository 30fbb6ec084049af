package commands_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

type plainSealer struct{}

func (plainSealer) Seal(p []byte) string { return string(p) }

func executor() commands.ExecuteWorkflowHandler {
	return commands.NewExecuteWorkflowHandler(commands.NewRepositories(store), commands.NewPlanWorkflowHandler(commands.NewRepositories(store), planning.NewPlanner(catalog.Default())), plainSealer{}, func() string { return "secret" })
}

var chainSteps = []workflow.PlannedStep{
	{Step: 1, Name: "SWOT Analysis", Kind: workflow.KindContent, Tier: 2, Credits: 5},
	{Step: 2, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 5},
}

// planned is a plan of org for a fresh execute (or to store).
func planned(orgID, desc string) workflow.Planned {
	return workflow.Planned{WorkflowID: workflow.NewID(), OrgID: orgID, WorkspaceID: orgID, TaskType: "swot_analysis", Description: desc,
		Title: "T " + desc, TotalSteps: len(chainSteps), Credits: 10, Execution: "standard", Steps: chainSteps,
		Preferences: []byte("{}"), ContextPersisted: true}
}

// priorRun appends a workflow of org that ended with status (completed
// with deliverable body, or queued and left running) at link depth.
func priorRun(t *testing.T, orgID, status, body string, depth int, prior string) string {
	t.Helper()
	p := planned(orgID, "prior run "+workflow.NewID())
	m := event.Metadata{OrgID: orgID}
	events := []event.New{
		{Data: p, Metadata: m},
		{Data: workflow.Queued{WorkflowID: p.WorkflowID, OrgID: orgID, Mode: "full", Context: "prior context",
			PriorWorkflowID: prior, ChainDepth: depth}, Metadata: m},
	}
	if status == workflow.StatusCompleted {
		events = append(events,
			event.New{Data: workflow.Started{Worker: "t"}, Metadata: m},
			event.New{Data: workflow.StepCompleted{Step: 1, Name: "SWOT Analysis", Kind: workflow.KindContent, Summary: "strengths listed"}, Metadata: m},
			event.New{Data: workflow.Completed{Deliverable: &workflow.Deliverable{Title: "Prior deliverable",
				Sections: []workflow.Section{{Heading: "Findings", Content: body}}}}, Metadata: m})
	}
	if _, err := store.Append(context.Background(), workflow.Stream(p.WorkflowID), event.NewStream, events...); err != nil {
		t.Fatal(err)
	}
	return p.WorkflowID
}

func queuedOf(t *testing.T, id string) workflow.Queued {
	t.Helper()
	wf, err := workflow.Load(mustLoad(t, workflow.Stream(id)))
	if err != nil || wf.Queued() == nil {
		t.Fatalf("workflow %s: %v", id, err)
	}
	return *wf.Queued()
}

func TestExecuteChained(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	h := executor()
	prior := priorRun(t, a.OrgID, workflow.StatusCompleted, "market share grew 4%", 0, "")

	// fresh execute, default fields
	fresh := planned(a.OrgID, "fresh chained run")
	res, err := h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: storePlan(t, fresh), Delivery: workflow.Delivery{Method: "polling"},
		PriorWorkflowID: prior})
	if err != nil {
		t.Fatal(err)
	}
	q := queuedOf(t, res.Planned.WorkflowID)
	if q.PriorWorkflowID != prior || q.ChainDepth != 2 || strings.Join(q.ContextFields, ",") != "deliverable,step_summaries" ||
		!strings.Contains(q.Inherited, "market share grew 4%") || !strings.Contains(q.Inherited, "strengths listed") || len(q.Warnings) != 0 {
		t.Fatalf("queued %+v", q)
	}
	wf, _ := workflow.Load(mustLoad(t, workflow.Stream(res.Planned.WorkflowID)))
	if v := wf.View(false); v.PriorWorkflowID != prior {
		t.Errorf("view prior_workflow_id %q", v.PriorWorkflowID)
	}

	// stored plan asking for direct execution: one warning per reason
	stored := planned(a.OrgID, "stored chained run")
	stored.Preferences = []byte(`{"execution":"direct"}`)
	if _, err := store.Append(ctx, workflow.Stream(stored.WorkflowID), event.NewStream,
		event.New{Data: stored, Metadata: event.Metadata{OrgID: a.OrgID}}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: stored.WorkflowID, Delivery: workflow.Delivery{Method: "polling"},
		PriorWorkflowID: res.Planned.WorkflowID, ContextFields: []string{"task_description"}})
	if !errors.Is(err, workflow.ErrPriorNotTerminal) {
		t.Fatalf("prior still queued: %v", err)
	}
	_, err = h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: stored.WorkflowID, Delivery: workflow.Delivery{Method: "polling"},
		PriorWorkflowID: prior, ContextFields: []string{"task_description", "quality_review"}})
	if err != nil {
		t.Fatal(err)
	}
	q = queuedOf(t, stored.WorkflowID)
	if q.ChainDepth != 2 || strings.Join(q.ContextFields, ",") != "task_description,quality_review" || strings.Contains(q.Inherited, "market share") ||
		!strings.Contains(q.Inherited, "prior run ") || !strings.Contains(q.Inherited, "### Quality review\n(none)") {
		t.Fatalf("stored: queued %+v", q)
	}
	if len(q.Warnings) != 2 || q.Warnings[0].Code != "direct_execution_not_eligible" || !strings.Contains(q.Warnings[0].Message, "prior_workflow_id") ||
		!strings.Contains(q.Warnings[1].Message, "context_fields") {
		t.Fatalf("warnings %+v", q.Warnings)
	}
}

func TestExecuteChainRefusals(t *testing.T) {
	ctx := context.Background()
	a, b := signup(t, ""), signup(t, "")
	h := executor()
	deep := ""
	for depth := 1; depth <= workflow.MaxChainDepth; depth++ {
		deep = priorRun(t, a.OrgID, workflow.StatusCompleted, "link", depth, deep)
	}
	huge := priorRun(t, a.OrgID, workflow.StatusCompleted, strings.Repeat("evidence ", 15_000), 0, "")
	cases := []struct {
		name   string
		prior  string
		fields []string
		want   error
	}{
		{"unknown prior", workflow.NewID(), nil, workflow.ErrPriorNotFound},
		{"prior of another org", priorRun(t, b.OrgID, workflow.StatusCompleted, "theirs", 0, ""), nil, workflow.ErrPriorNotFound},
		{"prior still queued", priorRun(t, a.OrgID, workflow.StatusQueued, "", 0, ""), nil, workflow.ErrPriorNotTerminal},
		{"eleventh link", deep, nil, workflow.ErrChainDepth},
		{"deliverable too large", huge, []string{"deliverable"}, workflow.ErrContextTooLarge},
		{"unknown field", deep, []string{"everything"}, commands.ErrUnknownContextField},
		{"fields without prior", "", []string{"deliverable"}, commands.ErrContextFieldsWithoutPrior},
	}
	before := countOrgEvents(t, a.OrgID)
	for _, c := range cases {
		fresh := planned(a.OrgID, "refused "+c.name)
		_, err := h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: storePlan(t, fresh), Delivery: workflow.Delivery{Method: "polling"},
			PriorWorkflowID: c.prior, ContextFields: c.fields})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if events := mustLoad(t, workflow.Stream(fresh.WorkflowID)); len(events) != 1 {
			t.Errorf("%s: the refused workflow has %d events beyond its plan", c.name, len(events)-1)
		}
	}
	var large *workflow.ContextTooLargeError
	fresh := planned(a.OrgID, "refused large again")
	if _, err := h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: storePlan(t, fresh), PriorWorkflowID: huge}); !errors.As(err, &large) ||
		large.Estimated <= workflow.MaxInheritedTokens || large.Max != workflow.MaxInheritedTokens {
		t.Errorf("context too large: %v", err)
	}
	if after := countOrgEvents(t, a.OrgID); after != before {
		t.Errorf("refused executes appended %d events", after-before)
	}
	// the tenth link's own prior is fine: the chain may reach 10 links
	fresh = planned(a.OrgID, "tenth link")
	nine := queuedOf(t, deep).PriorWorkflowID
	res, err := h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, Tier: "enterprise", WorkflowID: storePlan(t, fresh), PriorWorkflowID: nine, ContextFields: []string{}})
	if err != nil || queuedOf(t, res.Planned.WorkflowID).ChainDepth != workflow.MaxChainDepth || queuedOf(t, res.Planned.WorkflowID).Inherited != "" {
		t.Fatalf("link 10: %v", err)
	}
}

// storePlan appends p's WorkflowPlanned and returns its workflow id.
func storePlan(t *testing.T, p workflow.Planned) string {
	t.Helper()
	if _, err := store.Append(context.Background(), workflow.Stream(p.WorkflowID), event.NewStream, event.New{Data: p}); err != nil {
		t.Fatal(err)
	}
	return p.WorkflowID
}
