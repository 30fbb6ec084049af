package notification

import (
	"fmt"

	"svc/domain/credit"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Notification types of thresholds crossed (decided with state the
// caller keeps: Balance and Budget).
const (
	TypeLowBalance     = "low_balance"
	TypeBudgetWarning  = "budget_warning"  // 80 % of a workspace's monthly budget
	TypeBudgetExceeded = "budget_exceeded" // 100 %
)

// LowBalanceCredits is the low balance threshold: an organization whose
// credits fall below it is told once, and again only after its credits
// were back at or above it. 1,000 credits is one USD.
const LowBalanceCredits = 1000

// ThresholdEventTypes are the event types Balance and Budget read.
func ThresholdEventTypes() []string {
	return []string{credit.EventGranted, credit.EventCharged, credit.EventRefunded, workspace.EventBudgetSet}
}

// Balance is what an organization's credits (granted less charged plus
// refunded; what running workflows hold in reservation is not taken off)
// are, and whether it was told they are low.
type Balance struct {
	Credits int64
	Low     bool
}

// Apply folds a ledger event into b and returns the low balance notice
// the change gives (ok false for none): the credits falling below
// LowBalanceCredits from at or above it, or while not yet told.
func (b *Balance) Apply(d event.Data) (Notice, bool) {
	switch d := d.(type) {
	case credit.Granted:
		b.Credits += d.Amount
	case credit.Charged:
		b.Credits -= d.Amount
	case credit.Refunded:
		b.Credits += d.Amount
	default:
		return Notice{}, false
	}
	if b.Credits >= LowBalanceCredits {
		b.Low = false
		return Notice{}, false
	}
	if b.Low {
		return Notice{}, false
	}
	b.Low = true
	org := orgOf(d)
	return Notice{Type: TypeLowBalance, OrgID: org, Title: "Low balance",
		Body:      fmt.Sprintf("Your organization has %d credits left. Buy credits or turn on auto-reload so workflows keep running.", max(b.Credits, 0)),
		ActionURL: "/settings/billing", ActionLabel: "Buy credits",
		Metadata: map[string]any{"balance": b.Credits, "threshold": LowBalanceCredits}}, true
}

// orgOf is the organization a ledger event names.
func orgOf(d event.Data) string {
	switch d := d.(type) {
	case credit.Granted:
		return d.OrgID
	case credit.Charged:
		return d.OrgID
	case credit.Refunded:
		return d.OrgID
	}
	return ""
}

// Budget is a workspace's monthly credit budget (0: none) and, for its
// latest month, the spend and the highest threshold told (0, 80 or 100).
type Budget struct {
	Limit    int64
	Month    string
	Spent    int64
	Notified int
}

// SetLimit applies a new budget: the thresholds are told again against it.
func (b *Budget) SetLimit(limit *int64) {
	b.Limit, b.Notified = 0, 0
	if limit != nil && *limit > 0 {
		b.Limit = *limit
	}
}

// Spend counts n credits (negative for a refund) of month and returns the
// notice of the highest threshold the spend reaches for the first time in
// the month (ok false for none): 80 % (budget_warning), 100 %
// (budget_exceeded). A later month starts the count again; an earlier one
// has ended and counts nothing.
func (b *Budget) Spend(orgID, workspaceID, month string, n int64) (Notice, bool) {
	switch {
	case month == "" || month < b.Month:
		return Notice{}, false
	case month > b.Month:
		b.Month, b.Spent, b.Notified = month, 0, 0
	}
	b.Spent = max(b.Spent+n, 0)
	if b.Limit <= 0 {
		return Notice{}, false
	}
	level := 0
	switch {
	case b.Spent >= b.Limit:
		level = 100
	case b.Spent*5 >= b.Limit*4:
		level = 80
	}
	if level <= b.Notified {
		return Notice{}, false
	}
	b.Notified = level
	pct := b.Spent * 100 / b.Limit
	nb := Notice{OrgID: orgID, ActionURL: "/workspaces/" + workspaceID + "/budget", ActionLabel: "Review budget",
		Metadata: map[string]any{"workspace_id": workspaceID, "month": month, "threshold_pct": level,
			"monthly_credit_budget": b.Limit, "spent": b.Spent, "utilization_pct": pct}}
	if level == 100 {
		nb.Type, nb.Title = TypeBudgetExceeded, "Workspace budget used up"
		nb.Body = fmt.Sprintf("A workspace has used %d of its %d-credit monthly budget. New workflows there are refused until it resets or is raised.",
			b.Spent, b.Limit)
	} else {
		nb.Type, nb.Title = TypeBudgetWarning, "Workspace budget at 80 %"
		nb.Body = fmt.Sprintf("A workspace has used %d of its %d-credit monthly budget (%d %%).", b.Spent, b.Limit, pct)
	}
	return nb, true
}
