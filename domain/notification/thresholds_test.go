package notification_test

import (
	"testing"

	"svc/domain/credit"
	"svc/domain/notification"
	"svc/eventstore/event"
)

func TestLowBalance(t *testing.T) {
	var b notification.Balance
	steps := []struct {
		d    event.Data
		want bool
	}{
		{credit.Granted{OrgID: "o", Amount: 2500}, false},
		{credit.Charged{OrgID: "o", Amount: 1400}, false}, // 1,100
		{credit.Charged{OrgID: "o", Amount: 200}, true},   // 900: below
		{credit.Charged{OrgID: "o", Amount: 100}, false},  // told already
		{credit.Refunded{OrgID: "o", Amount: 50}, false},  // 850
		{credit.Granted{OrgID: "o", Amount: 5000}, false}, // 5,850: armed again
		{credit.Charged{OrgID: "o", Amount: 5000}, true},  // 850
		{credit.Reserved{OrgID: "o", Amount: 100}, false},
	}
	for i, s := range steps {
		n, ok := b.Apply(s.d)
		if ok != s.want {
			t.Fatalf("step %d (%T): notice %v, want %v (balance %+v)", i, s.d, ok, s.want, b)
		}
		if ok && (n.Type != notification.TypeLowBalance || n.OrgID != "o" || n.Title == "" || n.Body == "" || n.ActionURL == "" ||
			n.Metadata["balance"] != int64(850) && n.Metadata["balance"] != int64(900)) {
			t.Fatalf("step %d: %+v", i, n)
		}
	}
}

func TestBudgetThresholds(t *testing.T) {
	var b notification.Budget
	limit := int64(1000)
	if _, ok := b.Spend("o", "w", "2026-11", 900); ok {
		t.Fatal("a notice without a budget")
	}
	b.SetLimit(&limit) // 900 spent already: told at the next charge
	type step struct {
		month string
		n     int64
		want  string
	}
	for i, s := range []step{
		{"2026-11", 10, notification.TypeBudgetWarning},
		{"2026-11", 50, ""},
		{"2026-11", 40, notification.TypeBudgetExceeded}, // 1,000
		{"2026-11", 10, ""},
		{"2026-10", 5000, ""},                              // an ended month counts nothing
		{"2026-12", 1200, notification.TypeBudgetExceeded}, // straight to 100 %: one notice
		{"2026-12", -500, ""},
	} {
		n, ok := b.Spend("o", "w", s.month, s.n)
		if ok != (s.want != "") || n.Type != s.want {
			t.Fatalf("step %d: %+v %v, want %q (budget %+v)", i, n, ok, s.want, b)
		}
		if ok && (n.OrgID != "o" || n.ActionURL != "/workspaces/w/budget" || n.Metadata["workspace_id"] != "w") {
			t.Fatalf("step %d: %+v", i, n)
		}
	}
	// a new budget is watched again
	higher := int64(2000)
	b.SetLimit(&higher) // 700 of 2,000 spent
	if n, ok := b.Spend("o", "w", "2026-12", 900); !ok || n.Type != notification.TypeBudgetWarning {
		t.Fatalf("after raising the budget: %+v %v", n, ok)
	}
	b.SetLimit(nil)
	if _, ok := b.Spend("o", "w", "2026-12", 5000); ok {
		t.Fatal("a notice after the budget was removed")
	}
}
