package commands_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// budgetOrg is an org on tier whose first run is used, its default
// workspace's budget set to budget (0: none).
func budgetOrg(t *testing.T, tier org.Tier, budget int64) commands.OrganizationCreated {
	t.Helper()
	ctx := context.Background()
	a := signup(t, "")
	claimFreeRun(t, a.OrgID)
	repos := commands.NewRepositories(store)
	if _, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: a.OrgID, Tier: tier, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	if budget > 0 {
		if _, err := commands.NewSetWorkspaceBudgetHandler(repos).Handle(ctx, commands.SetWorkspaceBudget{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, Budget: &budget}); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// workspacePlan stores a plan of a's default workspace costing credits.
func workspacePlan(t *testing.T, a commands.OrganizationCreated, credits int) string {
	t.Helper()
	p := pricedPlan(a.OrgID, "budget run "+workflow.NewID(), credits)
	p.WorkspaceID = a.WorkspaceID
	return storePlan(t, p)
}

// 12 executes at once against a budget that fits exactly 3 of them (the
// balance fits 4): 3 are accepted, 9 refused with the budget's error, and
// what the accepted runs hold is exactly the budget. The executes reserve
// under the org's lock, so two racing for the last credits cannot both
// pass.
func TestConcurrentExecutesStayWithinTheWorkspaceBudget(t *testing.T) {
	const (
		n        = 12
		estimate = 600
		fit      = 3
	)
	ctx := context.Background()
	a := budgetOrg(t, org.Team, fit*estimate)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = workspacePlan(t, a, estimate)
	}
	h := executor()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted []string
		refused  []*credit.BudgetExceededError
	)
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: string(org.Team), WorkflowID: id,
				Delivery: workflow.Delivery{Method: "polling"}})
			mu.Lock()
			defer mu.Unlock()
			var over *credit.BudgetExceededError
			switch {
			case err == nil:
				accepted = append(accepted, id)
			case errors.As(err, &over):
				refused = append(refused, over)
			default:
				t.Errorf("execute %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	if len(accepted) != fit || len(refused) != n-fit {
		t.Fatalf("%d accepted, %d refused; want %d and %d", len(accepted), len(refused), fit, n-fit)
	}
	for _, r := range refused {
		if r.Budget != fit*estimate || r.Estimated != estimate || r.Remaining >= estimate || r.Used != 0 || r.WorkspaceID != a.WorkspaceID {
			t.Errorf("refusal %+v", *r)
		}
	}
	l := ledgerOf(t, a.OrgID)
	if l.HeldIn(a.WorkspaceID) != fit*estimate || l.Reserved() != fit*estimate {
		t.Fatalf("the workspace holds %d (org %d), want %d", l.HeldIn(a.WorkspaceID), l.Reserved(), fit*estimate)
	}
	queued := 0
	for _, id := range ids {
		if statusOf(t, id) == workflow.StatusQueued {
			queued++
		}
	}
	if queued != fit {
		t.Fatalf("%d queued, want %d", queued, fit)
	}
}

// What the workspace's runs were charged this month counts like what they
// hold; a settled run's leftover comes back to the budget; removing the
// budget lifts the limit, and a tier without budgets does not enforce
// one set before a downgrade.
func TestWorkspaceBudgetCountsSpendAndFollowsTheTier(t *testing.T) {
	ctx := context.Background()
	a := budgetOrg(t, org.Enterprise, 1000)
	repos := commands.NewRepositories(store)
	execute := func(id string, tier org.Tier) error {
		_, err := executor().Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: string(tier), WorkflowID: id,
			Delivery: workflow.Delivery{Method: "polling"}})
		return err
	}
	first := workspacePlan(t, a, 700)
	if err := execute(first, org.Enterprise); err != nil {
		t.Fatal(err)
	}
	// a step of the run is charged (the worker names the workspace and the
	// month), the rest released at its end
	charge := credit.Charged{OrgID: a.OrgID, Amount: 600, Reason: "workflow_step", WorkflowID: first, Step: 1,
		WorkspaceID: a.WorkspaceID, Month: credit.MonthOf(time.Now())}
	if _, err := commands.NewChargeCreditsHandler(repos).Handle(ctx, commands.ChargeCredits{Charge: charge}); err != nil {
		t.Fatal(err)
	}
	second := workspacePlan(t, a, 500)
	var over *credit.BudgetExceededError
	if err := execute(second, org.Enterprise); !errors.As(err, &over) || over.Used != 600 || over.Reserved != 100 || over.Remaining != 300 {
		t.Fatalf("over budget: %v", err)
	}
	ledgerDecide(t, a.OrgID, credit.Settlement{WorkflowID: first, Reason: workflow.EventCompleted})
	if err := execute(second, org.Enterprise); !errors.As(err, &over) || over.Used != 600 || over.Reserved != 0 || over.Remaining != 400 {
		t.Fatalf("after the settlement: %v", err)
	}
	small := workspacePlan(t, a, 400)
	if err := execute(small, org.Enterprise); err != nil {
		t.Fatalf("exactly what is left: %v", err)
	}
	// no budget: no limit
	if _, err := commands.NewSetWorkspaceBudgetHandler(repos).Handle(ctx, commands.SetWorkspaceBudget{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID}); err != nil {
		t.Fatal(err)
	}
	if err := execute(second, org.Enterprise); err != nil {
		t.Fatalf("without a budget: %v", err)
	}
	// a budget is set on Team and up only, and a Pro org's is not enforced
	b := int64(1)
	if _, err := commands.NewSetWorkspaceBudgetHandler(repos).Handle(ctx, commands.SetWorkspaceBudget{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, Budget: &b}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewCancelWorkflowsHandler(repos).Handle(ctx, commands.CancelWorkflows{OrgID: a.OrgID, IDs: []string{first, second, small}, Confirm: true}); err != nil {
		t.Fatal(err) // the pro tier's concurrent limit is 3
	}
	if _, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: a.OrgID, Tier: org.Pro, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewSetWorkspaceBudgetHandler(repos).Handle(ctx, commands.SetWorkspaceBudget{OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, Budget: &b}); !errors.Is(err, workspace.ErrTierRequired) {
		t.Fatalf("a budget on pro: %v", err)
	}
	if err := execute(workspacePlan(t, a, 100), org.Pro); err != nil {
		t.Fatalf("a pro org's budget was enforced: %v", err)
	}
	l := ledgerOf(t, a.OrgID)
	if l.HeldIn(a.WorkspaceID) != 100 || l.SpentIn(a.WorkspaceID, credit.MonthOf(time.Now())) != 600 {
		t.Fatalf("held %d, spent %d", l.HeldIn(a.WorkspaceID), l.SpentIn(a.WorkspaceID, credit.MonthOf(time.Now())))
	}
}

// A resume reserves what remains against the budget too: a timed-out
// interactive run released its reservation, another run took most of the
// budget meanwhile.
func TestResumeIsCheckedAgainstTheWorkspaceBudget(t *testing.T) {
	ctx := context.Background()
	a := budgetOrg(t, org.Team, 1000)
	repos := commands.NewRepositories(store)
	id := workspacePlan(t, a, 800)
	if _, err := executor().Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "team", WorkflowID: id,
		Mode: workflow.ModeInteractive, Delivery: workflow.Delivery{Method: "polling"}}); err != nil {
		t.Fatal(err)
	}
	expired := commands.NewStepWorkflowHandler(repos, time.Nanosecond)
	time.Sleep(time.Millisecond)
	if _, err := expired.Handle(ctx, commands.StepWorkflow{OrgID: a.OrgID, WorkflowID: id, Action: commands.StepNext}); !errors.Is(err, workflow.ErrSessionExpired) {
		t.Fatalf("step past the idle limit: %v", err)
	}
	other := workspacePlan(t, a, 500)
	if _, err := executor().Handle(ctx, commands.ExecuteWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "team", WorkflowID: other,
		Delivery: workflow.Delivery{Method: "polling"}}); err != nil {
		t.Fatal(err)
	}
	resume := commands.NewResumeWorkflowHandler(repos)
	_, err := resume.Handle(ctx, commands.ResumeWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "team", WorkflowID: id})
	var over *credit.BudgetExceededError
	if !errors.As(err, &over) || over.Estimated != 800 || over.Remaining != 500 || over.Reserved != 500 {
		t.Fatalf("resume over budget: %v", err)
	}
	if st := statusOf(t, id); st != workflow.StatusTimedOut {
		t.Fatalf("a refused resume changed the workflow: %s", st)
	}
	if _, err := commands.NewCancelWorkflowsHandler(repos).Handle(ctx, commands.CancelWorkflows{OrgID: a.OrgID, IDs: []string{other}, Confirm: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := resume.Handle(ctx, commands.ResumeWorkflow{OrgID: a.OrgID, KeyID: a.KeyID, Tier: "team", WorkflowID: id}); err != nil {
		t.Fatalf("resume within the budget: %v", err)
	}
	if l := ledgerOf(t, a.OrgID); l.HeldIn(a.WorkspaceID) != 800 {
		t.Fatalf("held %d", l.HeldIn(a.WorkspaceID))
	}
}

// ledgerDecide settles s on org's ledger.
func ledgerDecide(t *testing.T, orgID string, s credit.Settlement) {
	t.Helper()
	if _, _, err := commands.NewRepositories(store).Ledgers.Update(context.Background(), orgID, orgID, func(l *credit.Ledger) ([]event.Data, error) {
		res, err := l.Settle(s)
		return res.Events, err
	}); err != nil {
		t.Fatal(err)
	}
}
