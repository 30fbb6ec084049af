package httpapi_test

import (
	"context"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/workflow"
)

// budgetWorkspace is an organization on the Team tier (made through the
// commands: no signup limit) with its owner key and default workspace.
func budgetWorkspace(t *testing.T, f *fixture) (key, wsID string) {
	t.Helper()
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	a, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Email: "budget-" + workflow.NewID() + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	tier, err := commands.NewChangeTierHandler(repos).Handle(ctx, commands.ChangeTier{OrgID: a.OrgID, Tier: org.Team, Source: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, tier.Position); err != nil {
		t.Fatal(err)
	}
	waitKey(t, f, a.Key.Raw)
	return a.Key.Raw, a.WorkspaceID
}

// budgetWalks are TestEveryWriteIsReadBack's walks of the budget route: a
// budget set or removed is read back from the budget, the workspace
// resource and the workspace list.
func budgetWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	key, wsID := budgetWorkspace(t, f)
	ws := "/api/workspaces/" + wsID
	readBack := func(t *testing.T, want any) {
		t.Helper()
		code, body := f.call(t, "GET", ws+"/budget", key, nil)
		if code != 200 || body["monthly_credit_budget"] != want || body["current_month_spend"] != 0.0 {
			t.Fatalf("budget read back: %d %v, want %v", code, body, want)
		}
		_, one := f.call(t, "GET", ws, key, nil)
		_, list := f.call(t, "GET", "/api/workspaces", key, nil)
		listed := ids(list, "workspaces", "id")[wsID].(map[string]any)
		for _, w := range []map[string]any{one, listed} {
			b, shown := w["budget"].(map[string]any)
			switch {
			case want == nil && w["budget"] != nil:
				t.Fatalf("removed budget still shown: %v", w)
			case want != nil && (!shown || b["monthly_credit_budget"] != want || b["budget_remaining"] != want || b["monthly_credits_used"] != 0.0):
				t.Fatalf("workspace %v, want budget %v", w, want)
			}
		}
	}
	return map[string]func(t *testing.T){
		"PUT workspaces.budget.set": func(t *testing.T) {
			for _, v := range []any{5000.0, 7000.0, nil} {
				code, body := f.call(t, "PUT", ws+"/budget", key, map[string]any{"monthly_credit_budget": v})
				if code != 200 || body["monthly_credit_budget"] != v || body["workspace_id"] != wsID {
					t.Fatalf("put %v: %d %v", v, code, body)
				}
				readBack(t, v)
			}
		},
	}
}
