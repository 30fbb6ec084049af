package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

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
		if _, err := s.queries.Workflow(r.Context(), p.OrgID, id); err != nil {
			return newError(http.StatusNotFound, "not_found", "Last-Event-ID names no workflow of your organization.")
		}
		return s.stream(w, r, id, marker)
	}
	var body executeBody
	if err := decodeBody(w, r, &body, false); err != nil {
		return err
	}
	cmd, err := s.executeCommand(r, &body)
	if err != nil {
		return err
	}
	if err := s.dailyExecutes(r, cmd.OrgID, cmd.Tier); err != nil {
		return err
	}
	res, err := s.commands.ExecuteWorkflow.Handle(r.Context(), cmd)
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
	out := executeResponse{runQueued: newRunQueued(res, workflow.StatusQueued, cmd.Delivery.Method), TaskType: res.Planned.TaskType,
		ValueClass: res.Planned.ValueClass, Plan: res.Planned.Plan, EstimatedCredits: res.Planned.Credits, PollURL: s.pollURL(id)}
	if cmd.Delivery.Method == "webhook" {
		out.WebhookURL, out.WebhookStatus, out.WebhookSecret = cmd.Delivery.WebhookURL, "registered", res.WebhookSecret
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// runQueued is what both of execute's JSON answers (polling or webhook,
// interactive) say about the queued run.
type runQueued struct {
	OK             bool               `json:"ok"`
	WorkflowID     string             `json:"workflow_id"`
	Status         string             `json:"status"`
	DeliveryMode   string             `json:"delivery_mode"`
	AvailableModes []string           `json:"available_modes"`
	Free           bool               `json:"free"`
	Warnings       []workflow.Warning `json:"warnings,omitempty"`
}

func newRunQueued(res commands.WorkflowQueued, status, deliveryMode string) runQueued {
	return runQueued{OK: true, WorkflowID: res.Planned.WorkflowID, Status: status, DeliveryMode: deliveryMode,
		AvailableModes: []string{"sse", "polling", "webhook", "interactive"}, Free: res.Queued.Free, Warnings: res.Queued.Warnings}
}

// executeResponse is the answer of POST /api/rigor/execute delivered by
// polling or webhook; the webhook fields are set for a webhook delivery
// (the secret only by the execute that registered the URL).
type executeResponse struct {
	runQueued
	TaskType         string          `json:"task_type"`
	ValueClass       string          `json:"value_class"`
	Plan             json.RawMessage `json:"plan"` // the Plan resource as planned
	EstimatedCredits int             `json:"estimated_credits"`
	PollURL          string          `json:"poll_url"`
	WebhookURL       string          `json:"webhook_url,omitempty"`
	WebhookStatus    string          `json:"webhook_status,omitempty"`
	WebhookSecret    string          `json:"webhook_secret,omitempty"`
}

// pollURL is the status URL of workflow id.
func (s *Server) pollURL(id string) string { return s.cfg.BaseURL + "/api/rigor/status/" + id }

// executeCommand validates the body and builds the command; a fresh
// execute (no workflow_id) carries the plan command too.
func (s *Server) executeCommand(r *http.Request, body *executeBody) (commands.ExecuteWorkflow, error) {
	p, _ := principalOf(r.Context())
	cmd := commands.ExecuteWorkflow{OrgID: p.OrgID, KeyID: p.KeyID, Tier: string(p.Tier), Delivery: workflow.Delivery{Method: "sse"}}
	switch body.Mode {
	case "", "full":
	case workflow.ModeInteractive:
		if !p.Tier.IsPaid() {
			return cmd, newError(http.StatusForbidden, "tier_required", "Interactive mode needs the Pro tier or above.").
				withFix("Upgrade the organization's tier, or execute with mode full.").withDetail("required_tier", "pro")
		}
		cmd.Mode = workflow.ModeInteractive
	default:
		return cmd, errInvalidField("mode", "must be full or interactive")
	}
	if len(body.WorkflowIDs) > 0 {
		return cmd, errInvalidField("workflow_ids", "workflow_ids is not available on this server yet")
	}
	if err := chainFields(body, &cmd); err != nil {
		return cmd, err
	}
	if body.Language != "" {
		tag, err := language.Parse(body.Language)
		if err != nil {
			return cmd, newError(http.StatusBadRequest, "invalid_language", "language "+strconv.Quote(body.Language)+" is not a BCP 47 code.").
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
			cmd.Delivery = workflow.Delivery{Method: "webhook", WebhookURL: d.WebhookURL}
			if err := commands.ValidateDelivery(cmd.Delivery); err != nil {
				return cmd, executeError(err)
			}
		default:
			return cmd, errInvalidField("delivery.method", "must be sse, polling or webhook")
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
			return cmd, errWorkflowNotFound(*body.WorkflowID)
		}
		cmd.WorkflowID = *body.WorkflowID
		return cmd, nil
	}
	if body.TaskDescription == nil {
		return cmd, errMissingField("task_description").withFix("Pass workflow_id of a stored plan, or task_description to plan and run in one call.")
	}
	prefs, perr := decodePreferences(body.Preferences)
	if perr != nil {
		return cmd, perr
	}
	req := planning.Request{Description: *body.TaskDescription, Preferences: prefs, Connections: body.Connections, SingleIntent: true}
	if body.TaskType != nil {
		req.TaskType = strings.TrimSpace(*body.TaskType)
	}
	if cmd.Context != nil {
		req.AdditionalContext = *cmd.Context
	}
	cmd.Plan = &commands.PlanWorkflow{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, KeyID: p.KeyID, Request: req, RawPreferences: body.Preferences}
	return cmd, nil
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
