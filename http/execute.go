package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
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
	if body.WorkflowIDs != nil {
		return s.executeMany(w, r, &body)
	}
	cmd, err := s.executeCommand(r, &body)
	if err != nil {
		return err
	}
	counted, err := s.countExecutes(r, cmd.OrgID, cmd.Tier, 1)
	if err != nil {
		return err
	}
	res, err := s.commands.ExecuteWorkflow.Handle(r.Context(), cmd)
	if err != nil {
		s.giveBack(r, counted, 1) // refused: not an execute of the day
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
	writeJSON(w, http.StatusOK, s.queuedAnswer(res, cmd.Delivery))
	return nil
}

// queuedAnswer is execute's answer for workflow res queued with delivery
// polling or webhook.
func (s *Server) queuedAnswer(res commands.WorkflowQueued, d workflow.Delivery) executeResponse {
	out := executeResponse{runQueued: newRunQueued(res, workflow.StatusQueued, d.Method), TaskType: res.Planned.TaskType,
		ValueClass: res.Planned.ValueClass, Plan: res.Planned.Plan, EstimatedCredits: res.Planned.Credits, PollURL: s.pollURL(res.Planned.WorkflowID)}
	if d.Method == "webhook" {
		out.WebhookURL, out.WebhookStatus, out.WebhookSecret = d.WebhookURL, "registered", res.WebhookSecret
	}
	return out
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
	if err := chainFields(body, &cmd); err != nil {
		return cmd, err
	}
	var err error
	if cmd.Language, err = executeLanguage(body.Language); err != nil {
		return cmd, err
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

// executeLanguage checks execute's language: "" or a BCP 47 code, which
// it returns in canonical form.
func executeLanguage(lang string) (string, error) {
	if lang == "" {
		return "", nil
	}
	tag, err := language.Parse(lang)
	if err != nil {
		return "", newError(http.StatusBadRequest, "invalid_language", "language "+strconv.Quote(lang)+" is not a BCP 47 code.").
			withFix("Use a code such as en, de, pt-BR or zh-Hant.")
	}
	return tag.String(), nil
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// dailyCount is what one execute request counted in its organization's
// daily window (dailyExecutes), so that it can give back the executes the
// command refused.
type dailyCount struct {
	orgID string
	// day is the UTC day (dailyExecutes' key) the counts went to; "" when
	// the day changed while counting, so the key is unknown and nothing
	// is given back.
	day string
}

// executeDay is the UTC day of t as dailyExecutes' key names it.
func executeDay(t time.Time) string { return t.UTC().Format("2006-01-02") }

// countExecutes counts n executes of the organization in the day's window
// (one dailyExecutes each) before the command runs, so two requests racing
// for the last place cannot both pass; the caller gives back the ones the
// command does not queue. When the allowance does not cover all n, those
// counted are given back at once and the 429 returned. Like dailyExecutes
// it degrades open when the limiter fails.
func (s *Server) countExecutes(r *http.Request, orgID, tier string, n int) (dailyCount, error) {
	day := executeDay(time.Now())
	settle := func() dailyCount {
		c := dailyCount{orgID: orgID}
		if executeDay(time.Now()) == day { // every count between went to day's key
			c.day = day
		}
		return c
	}
	for i := range n {
		if err := s.dailyExecutes(r, orgID, tier); err != nil {
			s.giveBack(r, settle(), i)
			return dailyCount{}, err
		}
	}
	return settle(), nil
}

// giveBack gives n of c's counts back to the daily window, when the
// limiter can (LimitUndoer). A limiter that failed while counting (the
// limit degraded open) may take back another request's count instead:
// degraded, the limit is not exact anyway. Failures are logged only.
func (s *Server) giveBack(r *http.Request, c dailyCount, n int) {
	u, ok := s.limiter.(LimitUndoer)
	if !ok || n <= 0 || c.day == "" {
		return
	}
	// the client may be gone already: the count is given back regardless
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 2*time.Second)
	defer cancel()
	key := "execute-day:" + c.orgID + ":" + c.day // dailyExecutes' key
	for range n {
		if err := u.Undo(ctx, key); err != nil {
			s.log.Warn("daily execute limit: a refused execute could not be given back", "error", err, "request_id", requestID(r.Context()))
			return
		}
	}
}

// executeMany is POST /api/rigor/execute with workflow_ids: a multi-intent
// plan's workflows (or any stored plans of the org) queued in one call,
// each as its own execute (decision 68). Every id must be a queueable plan
// of the caller's org or nothing is queued; then each is queued on its own
// and the limits may refuse some. The answer lists the queued workflows
// (each as execute answers one) and the refused ones with their error;
// when none is queued it is the first refusal. Each queued workflow counts
// as one execute of the day.
func (s *Server) executeMany(w http.ResponseWriter, r *http.Request, body *executeBody) error {
	cmd, err := s.executeManyCommand(r, body)
	if err != nil {
		return err
	}
	counted, err := s.countExecutes(r, cmd.OrgID, cmd.Tier, len(cmd.WorkflowIDs))
	if err != nil {
		return err
	}
	res, err := s.commands.ExecuteWorkflows.Handle(r.Context(), cmd)
	if err != nil {
		s.giveBack(r, counted, len(cmd.WorkflowIDs))
		return executeManyError(err)
	}
	s.giveBack(r, counted, len(res.Refused))
	out := executeManyResponse{OK: true, DeliveryMode: cmd.Delivery.Method,
		Workflows: make([]executeResponse, 0, len(res.Queued)), Refused: make([]refusedWorkflow, 0, len(res.Refused))}
	for _, q := range res.Queued {
		s.kicker.Kick(q.Planned.WorkflowID)
		out.Workflows = append(out.Workflows, s.queuedAnswer(q, cmd.Delivery))
		out.EstimatedCredits += q.Planned.Credits
	}
	for _, refused := range res.Refused {
		e := executeManyError(refused)
		var ae *apiError
		if !errors.As(e, &ae) || ae.Status >= 500 {
			s.log.ErrorContext(r.Context(), "execute of one of workflow_ids failed", "error", e.Error(), "workflow_id", refused.WorkflowID,
				"request_id", requestID(r.Context()))
		}
		if ae == nil {
			ae = errInternal
		}
		out.Refused = append(out.Refused, refusedWorkflow{WorkflowID: refused.WorkflowID,
			Error: errorEnvelope{Code: ae.Code, Message: ae.Message, RequestID: requestID(r.Context()), Fix: ae.Fix, Details: ae.Details}})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// executeManyResponse is the answer of POST /api/rigor/execute with
// workflow_ids when at least one workflow was queued.
type executeManyResponse struct {
	OK           bool   `json:"ok"`
	DeliveryMode string `json:"delivery_mode"`
	// Workflows are the queued workflows, in the request's order, each as
	// execute answers a workflow_id (polling or webhook).
	Workflows []executeResponse `json:"workflows"`
	// Refused are the workflows a limit refused, in the request's order.
	Refused []refusedWorkflow `json:"refused"`
	// EstimatedCredits is the sum of the queued workflows' estimates.
	EstimatedCredits int `json:"estimated_credits"`
}

// refusedWorkflow is one of workflow_ids that was not queued: Error is
// what execute would have answered for it alone.
type refusedWorkflow struct {
	WorkflowID string        `json:"workflow_id"`
	Error      errorEnvelope `json:"error"`
}

// executeManyCommand validates an execute with workflow_ids and builds the
// command. workflow_ids run stored plans in full mode, delivered by polling
// (the default here) or webhook; workflow_id, task_description,
// mode interactive, prior_workflow_id and context_fields do not go with
// them. task_type, preferences and available_mcp_connections are the
// stored plans' already, and ignored as for workflow_id.
func (s *Server) executeManyCommand(r *http.Request, body *executeBody) (commands.ExecuteWorkflows, error) {
	p, _ := principalOf(r.Context())
	cmd := commands.ExecuteWorkflows{OrgID: p.OrgID, KeyID: p.KeyID, Tier: string(p.Tier), WorkflowIDs: body.WorkflowIDs,
		Delivery: workflow.Delivery{Method: "polling"}}
	switch {
	case body.WorkflowID != nil:
		return cmd, errInvalidField("workflow_id", "pass workflow_id or workflow_ids, not both").
			withFix("Execute one stored plan with workflow_id, or several with workflow_ids.")
	case body.TaskDescription != nil:
		return cmd, errInvalidField("task_description", "workflow_ids executes stored plans; task_description plans a new one").
			withFix("Plan the description with POST /api/rigor/plan and pass its plan.plans[].workflow_id as workflow_ids.")
	case body.Mode == workflow.ModeInteractive:
		return cmd, errInvalidField("mode", "workflow_ids run in full mode; execute an interactive workflow alone, with workflow_id")
	case body.Mode != "" && body.Mode != "full":
		return cmd, errInvalidField("mode", "must be full or interactive")
	case strings.TrimSpace(body.PriorWorkflowID) != "":
		return cmd, errInvalidField("prior_workflow_id", "a chain continues one workflow; execute it alone, with workflow_id")
	case body.ContextFields != nil:
		return cmd, errInvalidField("context_fields", "context_fields needs prior_workflow_id, which workflow_ids do not take")
	}
	var err error
	if cmd.Language, err = executeLanguage(body.Language); err != nil {
		return cmd, err
	}
	if d := body.Delivery; d != nil {
		switch d.Method {
		case "", "polling":
		case "webhook":
			cmd.Delivery = workflow.Delivery{Method: "webhook", WebhookURL: d.WebhookURL}
		case "sse":
			return cmd, errInvalidField("delivery.method", "workflow_ids are delivered by polling or webhook, not one event stream").
				withFix("Pass delivery.method polling (the default with workflow_ids) or webhook.")
		default:
			return cmd, errInvalidField("delivery.method", "must be polling or webhook with workflow_ids")
		}
	}
	cmd.AgentID = truncateRunes(body.AgentID, agentIDMax)
	if body.Context != nil && body.Context.AdditionalContext != nil {
		cmd.Context = body.Context.AdditionalContext
	}
	if err := cmd.Validate(); err != nil {
		return cmd, executeManyError(err)
	}
	return cmd, nil
}

// executeManyError maps ExecuteWorkflows' refusals to spec A's codes: an
// error about one id is what execute answers for that id alone, with
// details.workflow_id naming it.
func executeManyError(err error) error {
	var one *commands.WorkflowRefusedError
	switch {
	case errors.Is(err, commands.ErrNoWorkflowIDs):
		return newError(http.StatusBadRequest, "no_workflow_ids", "workflow_ids is empty.").
			withFix("List the workflow ids of stored plans (POST /api/rigor/plan answers them under plan.plans[]).")
	case errors.Is(err, commands.ErrBulkLimit):
		return newError(http.StatusBadRequest, "bulk_limit_exceeded", fmt.Sprintf("At most %d workflow ids per request.", commands.BulkLimit)).
			withDetail("max", commands.BulkLimit)
	case errors.Is(err, commands.ErrSeveralDelivery):
		return errInvalidField("delivery.method", "must be polling or webhook with workflow_ids")
	case errors.As(err, &one) && errors.Is(err, commands.ErrRepeatedWorkflowID):
		return errInvalidField("workflow_ids", strconv.Quote(one.WorkflowID)+" is listed more than once").withDetail("workflow_id", one.WorkflowID)
	case errors.As(err, &one):
		e := executeError(one.Err)
		var ae *apiError
		if errors.As(e, &ae) {
			named := *ae // a copy: never touch a shared error value
			named.Details = map[string]any{"workflow_id": one.WorkflowID}
			for k, v := range ae.Details {
				named.Details[k] = v
			}
			if w, ok := e.(*wrapped); ok {
				return &wrapped{&named, w.cause}
			}
			return &named
		}
		return e
	}
	return executeError(err)
}
