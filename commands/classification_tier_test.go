package commands_test

import (
	"context"
	"strings"
	"testing"

	"svc/commands"
	"svc/domain/catalog"
	"svc/domain/planning"
)

// TestPlannedRecordsTheClassificationTier: every WorkflowPlanned names the
// tier that decided its type, and the workflows of a split each get their
// own ask with the description's shared context.
func TestPlannedRecordsTheClassificationTier(t *testing.T) {
	a := signup(t, "")
	repos := commands.NewRepositories(store)
	h := commands.NewPlanWorkflowHandler(repos, planning.NewPlanner(catalog.Default()))
	plan := func(req planning.Request) commands.WorkflowsPlanned {
		t.Helper()
		res, err := h.Handle(context.Background(), commands.PlanWorkflow{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, KeyID: a.KeyID, Request: req})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tier := func(id string) (string, string) {
		t.Helper()
		wf, err := repos.Workflows.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return wf.Planned().ClassificationTier, wf.Planned().Description
	}
	res := plan(planning.Request{Description: "We are a 40-person fintech. Write a press release about our Series B."})
	if got, _ := tier(res.Result.Plans[0].WorkflowID); got != planning.TierLexical {
		t.Fatalf("tier %q", got)
	}
	res = plan(planning.Request{Description: "anything at all", TaskType: "tag"})
	if got, _ := tier(res.Result.Plans[0].WorkflowID); got != planning.TierGiven {
		t.Fatalf("tier %q", got)
	}
	res = plan(planning.Request{Description: "We hire our first data engineer in May. Write the JD for the role, and separately draft a press release about our Series B."})
	if len(res.Result.Plans) != 2 {
		t.Fatalf("%d plans", len(res.Result.Plans))
	}
	for i, p := range res.Result.Plans {
		got, desc := tier(p.WorkflowID)
		if got != planning.TierLexical || !strings.Contains(desc, "We hire our first data engineer in May") || !strings.Contains(desc, res.Result.Groups[i].Intents[0].SourcePhrase) {
			t.Fatalf("workflow %d: tier %q, description %q", i, got, desc)
		}
	}
}
