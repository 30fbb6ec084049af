package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"svc/commands"
	"svc/domain/planning"
)

var planFields = map[string]bool{"task_description": true, "task_type": true, "available_mcp_connections": true, "preferences": true, "context": true}

type planBody struct {
	TaskDescription *string               `json:"task_description"`
	TaskType        *string               `json:"task_type"`
	Connections     []planning.Connection `json:"available_mcp_connections"`
	Preferences     json.RawMessage       `json:"preferences"`
	Context         *struct {
		AdditionalContext string `json:"additional_context"`
	} `json:"context"`
}

type prefsBody struct {
	RigorLevel         string            `json:"rigor_level"`
	ToolScope          string            `json:"tool_scope"`
	ModelPreference    string            `json:"model_preference"`
	MaxBudgetUSD       *float64          `json:"max_budget_usd"`
	SkipFrameworks     []string          `json:"skip_frameworks"`
	OnlyFrameworks     []string          `json:"only_frameworks"`
	AddFrameworks      []json.RawMessage `json:"add_frameworks"`
	RequireApproval    bool              `json:"require_approval"`
	ApprovalBeforeStep []int             `json:"approval_before_step"`
	Execution          string            `json:"execution"`
	OutputContract     json.RawMessage   `json:"output_contract"`
}

// decodePreferences turns the preferences object into planning terms.
func decodePreferences(raw json.RawMessage) (planning.Preferences, *apiError) {
	var out planning.Preferences
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return out, nil
	}
	var p prefsBody
	if err := json.Unmarshal(raw, &p); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return out, errInvalidField("preferences."+typeErr.Field, "expected "+typeErr.Type.String()+", got "+typeErr.Value)
		}
		return out, errInvalidField("preferences", "must be an object")
	}
	out = planning.Preferences{RigorLevel: p.RigorLevel, ToolScope: p.ToolScope, ModelPreference: p.ModelPreference,
		MaxBudgetUSD: p.MaxBudgetUSD, SkipFrameworks: p.SkipFrameworks, OnlyFrameworks: p.OnlyFrameworks,
		RequireApproval: p.RequireApproval, ApprovalBeforeStep: p.ApprovalBeforeStep, Execution: p.Execution}
	if len(p.OutputContract) > 0 && string(p.OutputContract) != "null" {
		out.OutputContract = p.OutputContract
	}
	for i, a := range p.AddFrameworks {
		var name string
		if json.Unmarshal(a, &name) == nil {
			out.AddFrameworks = append(out.AddFrameworks, planning.AddFramework{Name: name})
			continue
		}
		var obj struct {
			Name       string `json:"name"`
			BeforeStep *int   `json:"before_step"`
		}
		if err := json.Unmarshal(a, &obj); err != nil || obj.Name == "" {
			return out, errInvalidField(fmt.Sprintf("preferences.add_frameworks[%d]", i), "a framework name or {name, before_step}")
		}
		add := planning.AddFramework{Name: obj.Name}
		if obj.BeforeStep != nil {
			if *obj.BeforeStep < 1 {
				return out, errInvalidField(fmt.Sprintf("preferences.add_frameworks[%d].before_step", i), "a step number from 1")
			}
			add.BeforeStep = *obj.BeforeStep
		}
		out.AddFrameworks = append(out.AddFrameworks, add)
	}
	return out, nil
}

// plan is POST /api/rigor/plan.
func (s *Server) plan(w http.ResponseWriter, r *http.Request) error {
	var raw json.RawMessage
	if err := decodeBody(w, r, &raw, false); err != nil {
		return err
	}
	var fields map[string]json.RawMessage // for the unknown_field warnings
	if err := json.Unmarshal(raw, &fields); err != nil {
		return newError(http.StatusBadRequest, "invalid_body", "The request body must be a JSON object.")
	}
	var body planBody
	if err := json.Unmarshal(raw, &body); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return errInvalidField(typeErr.Field, "expected "+typeErr.Type.String()+", got "+typeErr.Value)
		}
		return newError(http.StatusBadRequest, "invalid_body", "The request body does not match the plan request.")
	}
	if body.TaskDescription == nil {
		return errMissingField("task_description")
	}
	prefs, perr := decodePreferences(body.Preferences)
	if perr != nil {
		return perr
	}
	var unknown []string
	for k := range fields {
		if !planFields[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)

	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.PlanTimeout)
	defer cancel()
	p, _ := principalOf(ctx)
	req := planning.Request{Description: *body.TaskDescription, Preferences: prefs, Connections: body.Connections}
	if body.TaskType != nil {
		req.TaskType = strings.TrimSpace(*body.TaskType)
	}
	if body.Context != nil {
		req.AdditionalContext = body.Context.AdditionalContext
	}
	res, err := s.commands.PlanWorkflow.Handle(ctx, commands.PlanWorkflow{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, KeyID: p.KeyID,
		Request: req, RawPreferences: body.Preferences})
	if err != nil {
		return planError(err)
	}
	s.metrics.classified(res.Result.Tier)
	// No wait for the projection: status reads a workflow the projection
	// has not reached yet from its stream.

	warnings := []planning.Warning{}
	for _, k := range unknown {
		warnings = append(warnings, planning.Warning{Code: "unknown_field",
			Message:    fmt.Sprintf("Unrecognised field %q was not used.", k),
			Suggestion: "Check the spelling; the plan request takes task_description, task_type, available_mcp_connections, preferences and context."})
	}
	if len(res.Result.Plans) == 1 {
		plan := res.Result.Plans[0]
		plan.Warnings = append(warnings, plan.Warnings...)
		writeJSON(w, http.StatusOK, planResponse{OK: true, GeneratedTitle: res.Result.Title, Plan: plan})
		return nil
	}
	credits := 0
	for _, pl := range res.Result.Plans {
		credits += pl.Cost.Credits
	}
	writeJSON(w, http.StatusOK, multiPlanResponse{OK: true, GeneratedTitle: res.Result.Title, Plan: intentPlans{
		Plans:        res.Result.Plans,
		TotalCost:    planCost{Credits: credits, USD: float64(credits) / 1000},
		IntentGroups: res.Result.Groups,
		Info:         []string{fmt.Sprintf("The description holds %d independent intents: one workflow each.", len(res.Result.Plans))},
		Warnings:     warnings,
	}})
	return nil
}

// planResponse is the answer of POST /api/rigor/plan for one intent.
type planResponse struct {
	OK             bool          `json:"ok"`
	GeneratedTitle string        `json:"generated_title"`
	Plan           planning.Plan `json:"plan"`
}

// multiPlanResponse is the answer of POST /api/rigor/plan for a
// description of several intents: one plan (and workflow) each.
type multiPlanResponse struct {
	OK             bool        `json:"ok"`
	GeneratedTitle string      `json:"generated_title"`
	Plan           intentPlans `json:"plan"`
}

// intentPlans are the plans of a multi-intent description.
type intentPlans struct {
	Plans        []planning.Plan        `json:"plans"`
	TotalCost    planCost               `json:"total_cost"`
	IntentGroups []planning.IntentGroup `json:"intent_groups"`
	Info         []string               `json:"info"`
	Warnings     []planning.Warning     `json:"warnings"`
}

// planCost is a cost in credits and US dollars.
type planCost struct {
	Credits int     `json:"credits"`
	USD     float64 `json:"usd"`
}

func planError(err error) error {
	var vague *planning.VagueError
	var field *planning.FieldError
	if e := modelPolicyError(err); e != nil { // llm_policy.go
		return e
	}
	switch {
	case errors.Is(err, planning.ErrInvalidDescription):
		return newError(http.StatusBadRequest, "invalid_task_description", "Describe the task in at least 2 words.").
			withFix("Say what you want produced, for whom and about what: \"compare our pricing with three competitors\".")
	case errors.As(err, &vague):
		return newError(http.StatusBadRequest, "vague_task_description", "The task description is too vague to plan.").
			withFix("Name the deliverable, its subject and audience, or pass task_type (see GET /api/rigor/task-types). POST /api/rigor/enhance scores a description and suggests what to add.").
			withDetail("classification_confidence", vague.Classification.Confidence).
			withDetail("classified_as", vague.Classification.TaskType)
	case errors.As(err, &field):
		return newError(http.StatusBadRequest, field.Code, "Field "+field.Field+" is invalid: "+field.Reason).withDetail("field", field.Field)
	case errors.Is(err, context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, "plan_timeout", "Planning took longer than 25 seconds; nothing was saved.").withFix("Retry; shorten the description or pass task_type.")
	}
	return &wrapped{newError(http.StatusInternalServerError, "plan_error", "The plan could not be built. Retry, and quote the request_id if it persists."), err}
}

// wrapped answers with its apiError and logs the cause.
type wrapped struct {
	*apiError
	cause error
}

func (w *wrapped) Unwrap() error { return w.apiError }

func (w *wrapped) Error() string { return w.apiError.Error() + ": " + w.cause.Error() }
