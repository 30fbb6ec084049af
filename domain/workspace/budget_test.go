package workspace_test

import (
	"errors"
	"testing"

	"svc/domain/org"
	"svc/domain/workspace"
)

func ptr(v int64) *int64 { return &v }

func TestSetBudget(t *testing.T) {
	created, _ := workspace.Create("w", "o", "Team", "team", false)
	w := fold(t, created)
	for _, tier := range []org.Tier{org.Free, org.Pro} {
		if _, err := w.SetBudget(tier, ptr(100)); !errors.Is(err, workspace.ErrTierRequired) || !errors.Is(err, workspace.ErrBudgetTier) {
			t.Fatalf("%s: %v", tier, err)
		}
	}
	for _, bad := range []int64{0, -1, workspace.MaxBudget + 1} {
		if _, err := w.SetBudget(org.Team, ptr(bad)); !errors.Is(err, workspace.ErrInvalidBudget) {
			t.Fatalf("budget %d: %v", bad, err)
		}
	}
	if d, err := w.SetBudget(org.Team, nil); err != nil || len(d) != 0 {
		t.Fatalf("removing no budget: %v %v", d, err)
	}
	set, err := w.SetBudget(org.Enterprise, ptr(5000))
	if err != nil || len(set) != 1 {
		t.Fatalf("set: %v %v", set, err)
	}
	if b := set[0].(workspace.BudgetSet); b.WorkspaceID != "w" || b.OrgID != "o" || *b.MonthlyCreditBudget != 5000 || b.From != nil {
		t.Fatalf("event %+v", b)
	}
	w = fold(t, created, set[0])
	if w.Budget() != 5000 {
		t.Fatalf("budget %d", w.Budget())
	}
	if d, err := w.SetBudget(org.Team, ptr(5000)); err != nil || len(d) != 0 {
		t.Fatalf("the same budget again: %v %v", d, err)
	}
	removed, err := w.SetBudget(org.Team, nil)
	if err != nil || len(removed) != 1 || removed[0].(workspace.BudgetSet).MonthlyCreditBudget != nil || *removed[0].(workspace.BudgetSet).From != 5000 {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if w = fold(t, created, set[0], removed[0]); w.Budget() != 0 {
		t.Fatalf("budget after removal %d", w.Budget())
	}
	archived, _ := w.Archive()
	w = fold(t, created, archived[0])
	if _, err := w.SetBudget(org.Team, ptr(10)); !errors.Is(err, workspace.ErrArchived) {
		t.Fatalf("archived: %v", err)
	}
}
