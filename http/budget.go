package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/workspace"
	"svc/projections"
)

// budgetBody is GET /api/workspaces/{id}/budget.
type budgetBody struct {
	WorkspaceID         string    `json:"workspace_id"`
	MonthlyCreditBudget *int64    `json:"monthly_credit_budget"`
	CurrentMonthSpend   int64     `json:"current_month_spend"`
	UtilizationPct      float64   `json:"budget_utilization_pct"`
	ResetAt             time.Time `json:"reset_at"`
}

// budgetSetBody is PUT /api/workspaces/{id}/budget's answer.
type budgetSetBody struct {
	WorkspaceID         string `json:"workspace_id"`
	MonthlyCreditBudget *int64 `json:"monthly_credit_budget"`
}

// wsBudget is the workspace resource's budget field.
type wsBudget struct {
	MonthlyCreditBudget int64     `json:"monthly_credit_budget"`
	MonthlyCreditsUsed  int64     `json:"monthly_credits_used"`
	BudgetRemaining     int64     `json:"budget_remaining"`
	BudgetResetAt       time.Time `json:"budget_reset_at"`
}

// workspaceBudget is the budget field of a workspace resource: nil unless
// it has a budget and its tier has budgets (the read model says which).
func workspaceBudget(b *projections.BudgetRow) *wsBudget {
	if b == nil || b.Monthly == nil {
		return nil
	}
	return &wsBudget{MonthlyCreditBudget: *b.Monthly, MonthlyCreditsUsed: b.Spent, BudgetRemaining: b.Remaining(),
		BudgetResetAt: b.ResetAt}
}

// utilization is spent as a percentage of budget, to two decimals (0
// without a budget; above 100 when runs cost more than they reserved).
func utilization(spent int64, budget *int64) float64 {
	if budget == nil || *budget <= 0 {
		return 0
	}
	return math.Round(float64(spent)*10000/float64(*budget)) / 100
}

// getBudget is GET /api/workspaces/{id}/budget (any role). Below the Team
// tier a budget is neither enforced nor shown: monthly_credit_budget null.
func (s *Server) getBudget(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	b, err := s.queries.WorkspaceBudget(ctx, a.ws.ID, time.Now())
	if err != nil {
		return err
	}
	if !workspace.BudgetsAllowed(a.ws.Tier) {
		b.Monthly = nil
	}
	writeJSON(w, http.StatusOK, budgetBody{WorkspaceID: a.ws.ID, MonthlyCreditBudget: b.Monthly, CurrentMonthSpend: b.Spent,
		UtilizationPct: utilization(b.Spent, b.Monthly), ResetAt: b.ResetAt})
	return nil
}

// budgetPutBody is PUT /api/workspaces/{id}/budget's body, read raw so
// that null (no limit) and a missing field differ.
type budgetPutBody struct {
	MonthlyCreditBudget json.RawMessage `json:"monthly_credit_budget"`
}

// putBudget is PUT /api/workspaces/{id}/budget (admin; Team and
// Enterprise): monthly_credit_budget is a positive integer, or null to
// remove the limit.
func (s *Server) putBudget(w http.ResponseWriter, r *http.Request) error {
	var body budgetPutBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	budget, err := budgetValue(body.MonthlyCreditBudget)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err = s.commands.SetWorkspaceBudget.Handle(ctx, commands.SetWorkspaceBudget{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Budget: budget})
	switch {
	case errors.Is(err, workspace.ErrTierRequired):
		return errTierRequired("Workspace budgets need the Team or Enterprise plan.")
	case errors.Is(err, workspace.ErrInvalidBudget):
		return errBudgetField()
	case errors.Is(err, workspace.ErrArchived):
		return newError(http.StatusBadRequest, "invalid_body", "The workspace is archived; restore it first.")
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, budgetSetBody{WorkspaceID: a.ws.ID, MonthlyCreditBudget: budget})
	return nil
}

func errBudgetField() *apiError {
	return platformField("monthly_credit_budget", "a positive integer of credits, or null for no limit").
		withDetail("min", 1).withDetail("max", int64(workspace.MaxBudget))
}

// budgetValue reads monthly_credit_budget: absent is missing_field, null
// no limit, anything but a positive integer literal invalid_body.
func budgetValue(raw json.RawMessage) (*int64, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case raw == nil:
		return nil, errMissingField("monthly_credit_budget")
	case string(raw) == "null":
		return nil, nil
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || v <= 0 || v > workspace.MaxBudget {
		return nil, errBudgetField()
	}
	return &v, nil
}

// errBudgetExceeded is execute's and resume's 402 for a run the
// workspace's monthly budget does not cover: used is what counts against
// the budget this month (the workspace's charges and what its open runs
// hold, reserved), remaining what is left of it, estimated what the run
// needs.
func errBudgetExceeded(e *credit.BudgetExceededError) *apiError {
	return newError(http.StatusPaymentRequired, "workspace_budget_exceeded", "The plan's estimate exceeds what is left of the workspace's monthly credit budget.").
		withFix("Raise the budget with PUT /api/workspaces/{id}/budget, or wait until it resets at the start of the next UTC month.").
		withDetail("budget", e.Budget).withDetail("used", e.Used+e.Reserved).withDetail("reserved", e.Reserved).
		withDetail("estimated", e.Estimated).withDetail("remaining", e.Remaining).
		withDetail("workspace_id", e.WorkspaceID).withDetail("reset_at", credit.NextMonth(time.Now()))
}
