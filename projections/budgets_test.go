package projections_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore/event"
	"svc/projections"
)

// The budgets read model counts what the ledger counts against a budget:
// charges naming the workspace and the current month, less the refunds
// given back to that month; a charge of an earlier month, one of another
// workspace and one naming none do not count. The workspace resource
// carries the budget on Team and up only. A rebuild equals the live model.
func TestBudgetsReadModel(t *testing.T) {
	ctx := context.Background()
	ps := []projections.Projection{projections.Organizations{}, projections.Workspaces{}, projections.Budgets{}}
	r := newRunner(t, ps)
	repos := commands.NewRepositories(store)
	a, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: "budgets-" + time.Now().Format("150405.000000") + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: a.OrgID, Tier: org.Team, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	budget := int64(1000)
	if _, err := commands.NewSetWorkspaceBudgetHandler(repos).Handle(ctx, commands.SetWorkspaceBudget{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, Budget: &budget}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	month, before := credit.MonthOf(now), credit.MonthOf(credit.MonthStart(now).Add(-time.Hour))
	charge := func(c credit.Charged) {
		t.Helper()
		c.OrgID = a.OrgID
		if _, err := commands.NewChargeCreditsHandler(repos).Handle(ctx, commands.ChargeCredits{Charge: c}); err != nil {
			t.Fatal(err)
		}
	}
	charge(credit.Charged{Amount: 300, Reason: "workflow_step", WorkflowID: "wr_a", Step: 1, WorkspaceID: a.WorkspaceID, Month: month})
	charge(credit.Charged{Amount: 270, Reason: "enhance_llm", WorkspaceID: a.WorkspaceID, Month: month})
	charge(credit.Charged{Amount: 200, Reason: "workflow_step", WorkflowID: "wr_b", Step: 1, WorkspaceID: a.WorkspaceID, Month: before})
	charge(credit.Charged{Amount: 50, Reason: "workflow_step", WorkflowID: "wr_c", Step: 1, WorkspaceID: "another", Month: month})
	charge(credit.Charged{Amount: 40, Reason: "enhance_llm"})
	if _, _, err := repos.Ledgers.Update(ctx, a.OrgID, a.OrgID, func(l *credit.Ledger) ([]event.Data, error) {
		r, err := l.Refund("wr_a", 100, "workflow_failed")
		return []event.Data{r}, err
	}); err != nil {
		t.Fatal(err)
	}
	catchUp(t, r)

	q := projections.NewQueries(store, repos.Workflows, nil, quiet)
	b, err := q.WorkspaceBudget(ctx, a.WorkspaceID, now)
	if err != nil || b.Monthly == nil || *b.Monthly != 1000 || b.Spent != 470 || b.Remaining() != 530 || b.Month != month ||
		!b.ResetAt.Equal(credit.NextMonth(now)) {
		t.Fatalf("budget %+v %v", b, err)
	}
	if l := ledgerOf(t, a.OrgID); l.SpentIn(a.WorkspaceID, month) != b.Spent {
		t.Fatalf("the ledger counts %d, the read model %d", l.SpentIn(a.WorkspaceID, month), b.Spent)
	}
	if none, err := q.WorkspaceBudget(ctx, "nothing", now); err != nil || none.Monthly != nil || none.Spent != 0 {
		t.Fatalf("a workspace without a budget: %+v %v", none, err)
	}
	w, err := q.Workspace(ctx, a.WorkspaceID)
	if err != nil || w.Budget == nil || w.Budget.Spent != 470 {
		t.Fatalf("workspace %+v %v", w, err)
	}
	if _, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: a.OrgID, Tier: org.Pro, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	catchUp(t, r)
	if w, err := q.Workspace(ctx, a.WorkspaceID); err != nil || w.Budget != nil {
		t.Fatalf("a pro workspace shows a budget: %+v %v", w.Budget, err)
	}

	live := dump(t, ps)
	for _, p := range ps {
		if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(3)).Rebuild(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live["workspace_spend"], rebuilt["workspace_spend"])
	}
}

func ledgerOf(t *testing.T, orgID string) *credit.Ledger {
	t.Helper()
	l, err := commands.NewRepositories(store).Ledgers.Get(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
