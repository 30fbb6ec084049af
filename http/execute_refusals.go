package httpapi

import (
	"errors"
	"net/http"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/planning"
	"svc/domain/workflow"
)

// dailyExecutes applies the per-org daily execute limit (UTC day). Like the
// per-minute limit it degrades open when the store fails.
func (s *Server) dailyExecutes(r *http.Request, orgID, tier string) error {
	now := time.Now().UTC()
	limit := workflow.DailyLimit(tier)
	d, err := s.limiter.Allow(r.Context(), "execute-day:"+orgID+":"+now.Format("2006-01-02"), limit, 24*time.Hour)
	if err != nil {
		s.log.Warn("daily execute limit unavailable; letting the request through", "error", err)
		return nil
	}
	if d.Allowed {
		return nil
	}
	retry := int(now.Truncate(24*time.Hour).Add(24*time.Hour).Sub(now).Seconds()) + 1
	return newError(http.StatusTooManyRequests, "rate_limit_exceeded", "The organization has used its executes for today (UTC).").
		withFix("Retry after midnight UTC.").withDetail("limit", limit).withDetail("retry_after", retry).withRetryAfter(retry)
}

// executeError maps the command's refusals to spec A's codes.
func executeError(err error) error {
	var (
		dup     *commands.DuplicateTaskError
		limit   *commands.ConcurrentLimitError
		credits *commands.InsufficientCreditsError
	)
	var overBudget *credit.BudgetExceededError
	if e := chainError(err); e != nil {
		return e
	}
	if e := modelPolicyError(err); e != nil { // llm_policy.go
		return e
	}
	var (
		vague    *planning.VagueError
		field    *planning.FieldError
		delivery *commands.DeliveryError
	)
	switch {
	case errors.As(err, &delivery):
		return newError(http.StatusBadRequest, delivery.Code, delivery.Error()).
			withFix("Webhook delivery needs an absolute https:// URL in delivery.webhook_url.")
	case errors.Is(err, planning.ErrInvalidDescription), errors.As(err, &vague), errors.As(err, &field):
		return planError(err) // a fresh execute's plan
	case errors.Is(err, workflow.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such workflow in your organization.")
	case errors.Is(err, commands.ErrForeignWorkflow):
		return newError(http.StatusForbidden, "forbidden", "The workflow belongs to another organization.")
	case errors.Is(err, workflow.ErrNoPlan):
		return newError(http.StatusBadRequest, "no_plan", "The workflow has no plan to execute.").withFix("Plan it first with POST /api/rigor/plan.")
	case errors.Is(err, workflow.ErrHasProgress):
		return newError(http.StatusConflict, "workflow_has_progress", "The workflow already has step results.").withFix("Use POST /api/rigor/resume.")
	case errors.Is(err, workflow.ErrNotQueueable):
		return newError(http.StatusConflict, "invalid_status", "The workflow was already executed.").withFix("Poll its status, or plan again.")
	case errors.As(err, &dup):
		return newError(http.StatusConflict, "duplicate_task", "The same task was submitted in the last 5 minutes.").
			withFix("Poll the existing workflow, or change the description.").withDetail("existing_workflow_id", dup.ExistingID)
	case errors.As(err, &limit):
		active := limit.Active
		if active == nil {
			active = []string{}
		}
		return newError(http.StatusTooManyRequests, "concurrent_limit_exceeded", "The organization's active workflows are at its tier's limit.").
			withFix("Wait for a workflow to finish, or upgrade the tier.").
			withDetail("active_count", len(active)).withDetail("limit", limit.Limit).withDetail("active_workflows", active)
	case errors.As(err, &overBudget): // budget.go
		return errBudgetExceeded(overBudget)
	case errors.As(err, &credits):
		return newError(http.StatusPaymentRequired, "insufficient_credits", "The balance does not cover the plan's estimate.").
			withFix("Top up credits, or plan with a lower rigor_level or fewer frameworks.").
			withDetail("required_credits", credits.Required).withDetail("balance", credits.Balance)
	}
	return &wrapped{newError(http.StatusInternalServerError, "queue_failed", "The workflow could not be queued; nothing was charged. Retry, and quote the request_id if it persists."), err}
}
