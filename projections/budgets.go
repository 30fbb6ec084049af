package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Budgets is the read model of workspace budgets: each workspace's
// monthly credit budget (workspace_budgets, from WorkspaceBudgetSet) and
// what its charges cost per UTC month, net of refunds (workspace_spend,
// from the charges and refunds that name a workspace and a month). It
// counts exactly what the ledger counts against a budget
// (domain/credit/budget.go), so the spend a budget shows is the spend it
// is enforced on; what open runs hold in reservation is not spend.
type Budgets struct{}

// Name implements Projection.
func (Budgets) Name() string { return "budgets" }

// Tables implements Projection.
func (Budgets) Tables() []Table {
	return []Table{
		{
			Name: "workspace_budgets",
			DDL: `workspace_id text PRIMARY KEY,
				org_id uuid NOT NULL,
				monthly_credit_budget bigint,
				updated_at timestamptz NOT NULL`,
		},
		{
			Name: "workspace_spend",
			DDL: `workspace_id text NOT NULL,
				month text NOT NULL,
				org_id uuid NOT NULL,
				credits bigint NOT NULL,
				PRIMARY KEY (workspace_id, month)`,
			Storage: "fillfactor = 70",
		},
	}
}

// EventTypes implements Projection.
func (Budgets) EventTypes() []string {
	return []string{workspace.EventBudgetSet, credit.EventCharged, credit.EventRefunded}
}

type spendKey struct{ workspace, month string }

// Apply implements Projection.
func (Budgets) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	b := &pgx.Batch{}
	spend := map[spendKey]int64{}
	orgs := map[spendKey]string{}
	var order []spendKey
	add := func(ws, month, org string, n int64) {
		if ws == "" || month == "" {
			return
		}
		k := spendKey{ws, month}
		if _, ok := orgs[k]; !ok {
			order = append(order, k)
			orgs[k] = org
		}
		spend[k] += n
	}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case workspace.BudgetSet:
			b.Queue(`INSERT INTO `+t.Of("workspace_budgets")+` (workspace_id, org_id, monthly_credit_budget, updated_at)
				VALUES ($1, $2, $3, $4)
				ON CONFLICT (workspace_id) DO UPDATE SET monthly_credit_budget = excluded.monthly_credit_budget, updated_at = excluded.updated_at`,
				d.WorkspaceID, d.OrgID, d.MonthlyCreditBudget, e.RecordedAt)
		case credit.Charged:
			add(d.WorkspaceID, d.Month, d.OrgID, d.Amount)
		case credit.Refunded:
			add(d.WorkspaceID, d.Month, d.OrgID, -d.Amount)
		}
	}
	for _, k := range order {
		b.Queue(`INSERT INTO `+t.Of("workspace_spend")+` AS s (workspace_id, month, org_id, credits) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, month) DO UPDATE SET credits = s.credits + excluded.credits`,
			k.workspace, k.month, orgs[k], spend[k])
	}
	return sendBatch(ctx, tx, b)
}

// BudgetRow is a workspace's budget as the read model has it in a month.
type BudgetRow struct {
	// Monthly is the monthly credit budget; nil for none.
	Monthly *int64
	// Spent is what the workspace's charges cost in the month, net of the
	// refunds given back to it (never below zero).
	Spent int64
	// Month is the UTC month ("2006-01"); ResetAt the start of the next.
	Month   string
	ResetAt time.Time
}

// Remaining is what is left of the budget (never below zero); 0 without one.
func (b BudgetRow) Remaining() int64 {
	if b.Monthly == nil {
		return 0
	}
	return max(*b.Monthly-b.Spent, 0)
}

// WorkspaceBudget is workspace wsID's budget and spend in the UTC month of
// now (a workspace without either has a row with neither).
func (q *Queries) WorkspaceBudget(ctx context.Context, wsID string, now time.Time) (BudgetRow, error) {
	rows, err := q.WorkspaceBudgets(ctx, []string{wsID}, now)
	if err != nil {
		return BudgetRow{}, err
	}
	return rows[wsID], nil
}

// WorkspaceBudgets is WorkspaceBudget of several workspaces, by id (every
// id has a row).
func (q *Queries) WorkspaceBudgets(ctx context.Context, ids []string, now time.Time) (map[string]BudgetRow, error) {
	month := credit.MonthOf(now)
	out := make(map[string]BudgetRow, len(ids))
	for _, id := range ids {
		out[id] = BudgetRow{Month: month, ResetAt: credit.NextMonth(now)}
	}
	rows, err := q.store.Pool().Query(ctx, `SELECT w.id, b.monthly_credit_budget, coalesce(s.credits, 0)
		FROM unnest($1::text[]) AS w(id)
		LEFT JOIN workspace_budgets b ON b.workspace_id = w.id
		LEFT JOIN workspace_spend s ON s.workspace_id = w.id AND s.month = $2
		WHERE b.workspace_id IS NOT NULL OR s.workspace_id IS NOT NULL`, ids, month)
	if err != nil {
		return nil, fmt.Errorf("workspace budgets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id      string
			monthly *int64
			spent   int64
		)
		if err := rows.Scan(&id, &monthly, &spent); err != nil {
			return nil, fmt.Errorf("workspace budgets: %w", err)
		}
		r := out[id]
		r.Monthly, r.Spent = monthly, max(spent, 0)
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("workspace budgets: %w", err)
	}
	return out, nil
}

// withBudgets gives each of rows whose organization's tier has budgets,
// and which has one, its budget in the current month (the workspace
// resource's budget field).
func (q *Queries) withBudgets(ctx context.Context, rows []WorkspaceRow) error {
	var ids []string
	for _, w := range rows {
		if workspace.BudgetsAllowed(w.Tier) {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	budgets, err := q.WorkspaceBudgets(ctx, ids, time.Now())
	if err != nil {
		return err
	}
	for i, w := range rows {
		if b, ok := budgets[w.ID]; ok && b.Monthly != nil {
			rows[i].Budget = &b
		}
	}
	return nil
}
