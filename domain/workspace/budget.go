package workspace

import (
	"errors"
	"fmt"

	"svc/domain/org"
	"svc/eventstore/event"
)

// MaxBudget bounds a monthly credit budget (a billion USD of credits).
const MaxBudget = 1_000_000_000_000

// Budget errors.
var (
	// ErrBudgetTier is a budget set below the Team tier; it matches
	// ErrTierRequired.
	ErrBudgetTier = fmt.Errorf("workspace budgets need the team or enterprise tier: %w", ErrTierRequired)
	// ErrInvalidBudget is a budget that is not a positive integer of at
	// most MaxBudget.
	ErrInvalidBudget = errors.New("monthly_credit_budget must be a positive integer or null")
)

// BudgetsAllowed reports whether tier has workspace budgets: Team and
// Enterprise. A budget set on such a tier is not enforced nor shown after
// a downgrade, and applies again after an upgrade.
func BudgetsAllowed(t org.Tier) bool { return t == org.Team || t == org.Enterprise }

// Budget is the workspace's monthly credit budget, 0 for none (whether the
// tier enforces it is BudgetsAllowed's).
func (w *Workspace) Budget() int64 { return w.budget }

// SetBudget decides the workspace's monthly credit budget on an
// organization of tier: monthly nil removes it. Setting what is set
// already decides nothing.
func (w *Workspace) SetBudget(tier org.Tier, monthly *int64) ([]event.Data, error) {
	if !BudgetsAllowed(tier) {
		return nil, ErrBudgetTier
	}
	if monthly != nil && (*monthly <= 0 || *monthly > MaxBudget) {
		return nil, ErrInvalidBudget
	}
	if w.archived {
		return nil, ErrArchived
	}
	var from *int64
	if w.budget > 0 {
		b := w.budget
		from = &b
	}
	switch {
	case monthly == nil && from == nil, monthly != nil && from != nil && *monthly == *from:
		return nil, nil
	}
	var to *int64
	if monthly != nil {
		v := *monthly
		to = &v
	}
	return []event.Data{BudgetSet{WorkspaceID: w.id, OrgID: w.orgID, MonthlyCreditBudget: to, From: from}}, nil
}
