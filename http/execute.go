package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"

	"svc/adapters/webhook"
	"svc/commands"
	"svc/domain/planning"
	"svc/domain/workflow"
)

// agentIDMax is spec A's agent_id length; longer labels are truncated.
const agentIDMax = 100

type executeBody struct {
	WorkflowID      *string         `json:"workflow_id"`
	TaskDescription *string         `json:"task_description"`
	TaskType        *string         `json:"task_type"`
	Preferences     json.RawMessage `json:"preferences"`
	Context         *struct {
		AdditionalContext *string `json:"additional_context"`
	} `json:"context"`
	Delivery *struct {
		Method     string `json:"method"`
		WebhookURL string `json:"webhook_url"`
	} `json:"delivery"`
	Mode            string                `json:"mode"`
	Language        string                `json:"language"`
	PriorWorkflowID string                `json:"prior_workflow_id"`
	ContextFields   []string              `json:"context_fields"`
	AgentID         string                `json:"agent_id"`
	WorkflowIDs     []string              `json:"workflow_ids"`
	Connections     []planning.Connection `json:"available_mcp_connections"`
}

// execute is POST /api/rigor/execute.
func (s *Server) execute(w http.ResponseWriter, r *http.Request) error {
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		// a reconnecting SSE client: replay, never a second run
		id, marker, _ := strings.Cut(last, ":")
		p, _ := principalOf(r.Context())
		if _, err := s.loadWorkflow(r.Context(), p.OrgID, id); err != nil {
			return newError(http.StatusNotFound, "not_found", "Last-Event-ID names no workflow of your organization.")
		}
		return s.stream(w, r, id, marker)
	}
	var body executeBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	cmd, fresh, err := s.executeCommand(r, &body)
	if err != nil {
		return err
	}
	if err := s.dailyExecutes(r, cmd.OrgID, cmd.Tier); err != nil {
		return err
	}
	res, err := s.executeWorkflow.Handle(r.Context(), cmd)
	if err != nil {
		return executeError(err)
	}
	id := res.Planned.WorkflowID
	s.kicker.Kick(id)

	if cmd.Delivery.Method == "sse" {
		return s.stream(w, r, id, "")
	}
	if cmd.Mode == workflow.ModeInteractive {
		writeJSON(w, http.StatusOK, interactiveStarted(res))
		return nil
	}
	var plan any = res.Planned.Plan
	if fresh {
		plan = res.Plan
	}
	out := map[string]any{"ok": true, "workflow_id": id, "status": workflow.StatusQueued,
		"task_type": res.Planned.TaskType, "value_class": res.Planned.ValueClass, "plan": plan,
		"estimated_credits": res.Planned.Credits, "poll_url": s.cfg.BaseURL + "/api/rigor/status/" + id,
		"delivery_mode": cmd.Delivery.Method, "available_modes": []string{"sse", "polling", "webhook", "interactive"},
		"free": res.Queued.Free}
	if len(res.Queued.Warnings) > 0 {
		out["warnings"] = res.Queued.Warnings
	}
	if cmd.Delivery.Method == "webhook" {
		out["webhook_url"] = cmd.Delivery.WebhookURL
		out["webhook_status"] = "registered"
		if res.WebhookSecret != "" {
			out["webhook_secret"] = res.WebhookSecret
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// executeCommand validates the body and builds the command; for a fresh
// execute it also plans (the plan is returned for the response).
func (s *Server) executeCommand(r *http.Request, body *executeBody) (commands.ExecuteWorkflow, bool, error) {
	p, _ := principalOf(r.Context())
	cmd := commands.ExecuteWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, Tier: string(p.Tier), Delivery: workflow.Delivery{Method: "sse"}}
	switch body.Mode {
	case "", "full":
	case workflow.ModeInteractive:
		if !p.Tier.IsPaid() {
			return cmd, false, newError(http.StatusForbidden, "tier_required", "Interactive mode needs the Pro tier or above.").
				withFix("Upgrade the organization's tier, or execute with mode full.").withDetail("required_tier", "pro")
		}
		cmd.Mode = workflow.ModeInteractive
	default:
		return cmd, false, errInvalidField("mode", "must be full or interactive")
	}
	if len(body.WorkflowIDs) > 0 {
		return cmd, false, errInvalidField("workflow_ids", "workflow_ids is not available on this server yet")
	}
	if err := chainFields(body, &cmd); err != nil {
		return cmd, false, err
	}
	if body.Language != "" {
		tag, err := language.Parse(body.Language)
		if err != nil {
			return cmd, false, newError(http.StatusBadRequest, "invalid_language", "language "+strconv.Quote(body.Language)+" is not a BCP 47 code.").
				withFix("Use a code such as en, de, pt-BR or zh-Hant.")
		}
		cmd.Language = tag.String()
	}
	if d := body.Delivery; d != nil {
		switch d.Method {
		case "", "sse":
		case "polling":
			cmd.Delivery.Method = "polling"
		case "webhook":
			if err := webhook.ValidateURL(d.WebhookURL); err != nil {
				return cmd, false, newError(http.StatusBadRequest, webhook.Code(err), "delivery.webhook_url: "+err.Error()).
					withFix("Webhook delivery needs an absolute https:// URL in delivery.webhook_url.")
			}
			cmd.Delivery = workflow.Delivery{Method: "webhook", WebhookURL: d.WebhookURL}
		default:
			return cmd, false, errInvalidField("delivery.method", "must be sse, polling or webhook")
		}
	}
	if cmd.Mode == workflow.ModeInteractive {
		// driven by POST /step and read by polling: no stream, no webhook
		cmd.Delivery = workflow.Delivery{Method: workflow.ModeInteractive}
	}
	cmd.AgentID = truncateRunes(body.AgentID, agentIDMax)
	if body.Context != nil && body.Context.AdditionalContext != nil {
		cmd.Context = body.Context.AdditionalContext
	}
	if body.WorkflowID != nil {
		if !workflow.ValidID(*body.WorkflowID) {
			return cmd, false, errWorkflowNotFound(*body.WorkflowID)
		}
		cmd.WorkflowID = *body.WorkflowID
		return cmd, false, nil
	}
	if body.TaskDescription == nil {
		return cmd, false, errMissingField("task_description").withFix("Pass workflow_id of a stored plan, or task_description to plan and run in one call.")
	}
	prefs, perr := decodePreferences(body.Preferences)
	if perr != nil {
		return cmd, false, perr
	}
	req := planning.Request{Description: *body.TaskDescription, Preferences: prefs, Connections: body.Connections, SingleIntent: true}
	if body.TaskType != nil {
		req.TaskType = strings.TrimSpace(*body.TaskType)
	}
	if cmd.Context != nil {
		req.AdditionalContext = *cmd.Context
	}
	cmd.Plan = &commands.PlanWorkflow{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, KeyID: p.KeyID, Request: req, RawPreferences: body.Preferences}
	return cmd, true, nil
}

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
	if e := chainError(err); e != nil {
		return e
	}
	var (
		vague *planning.VagueError
		field *planning.FieldError
	)
	switch {
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
	case errors.As(err, &credits):
		return newError(http.StatusPaymentRequired, "insufficient_credits", "The balance does not cover the plan's estimate.").
			withFix("Top up credits, or plan with a lower rigor_level or fewer frameworks.").
			withDetail("required_credits", credits.Required).withDetail("balance", credits.Balance)
	}
	return &wrapped{newError(http.StatusInternalServerError, "queue_failed", "The workflow could not be queued; nothing was charged. Retry, and quote the request_id if it persists."), err}
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
