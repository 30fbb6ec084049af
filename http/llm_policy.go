package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"svc/commands"
	"svc/domain/planning"
	"svc/domain/workspace"
	"svc/projections"
)

// Enforcement statuses of a workspace's llm policy (null without one).
const (
	// enforced: plans and runs of the workspace use only allowed models.
	enforced = "enforced"
	// blocked: none of the allowed models is available (the service's
	// configuration changed), so plans and executes of the workspace are
	// refused with 422 model_not_allowed until an admin changes the policy.
	blocked = "blocked"
)

// llmPolicyBody is GET and PUT /api/workspaces/{id}/llm-policy's answer;
// available_models (beyond spec B) lists the names a policy may allow.
type llmPolicyBody struct {
	WorkspaceID       string     `json:"workspace_id"`
	AllowedModels     []string   `json:"allowed_models"`
	EnforcementStatus *string    `json:"enforcement_status"`
	UpdatedAt         *time.Time `json:"updated_at"`
	AvailableModels   []string   `json:"available_models"`
}

// wsLLMPolicy is the workspace resource's llm_policy field.
type wsLLMPolicy struct {
	AllowedModels []string  `json:"allowed_models"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// enforcement is the enforcement_status of a policy allowing allowed (nil
// without a policy).
func (s *Server) enforcement(allowed []string) *string {
	if allowed == nil {
		return nil
	}
	st := enforced
	if _, err := s.commands.Models.Route(allowed); err != nil {
		st = blocked
	}
	return &st
}

// policyOut is the answer of the llm-policy routes for p (allowed_models
// [] without a policy).
func (s *Server) policyOut(p projections.LLMPolicyRow) llmPolicyBody {
	out := llmPolicyBody{WorkspaceID: p.WorkspaceID, AllowedModels: []string{}, EnforcementStatus: s.enforcement(p.AllowedModels),
		AvailableModels: s.commands.Models.Known()}
	if p.AllowedModels != nil {
		out.AllowedModels = p.AllowedModels
	}
	if p.UpdatedAt != nil {
		t := p.UpdatedAt.UTC()
		out.UpdatedAt = &t
	}
	return out
}

// withLLMPolicies fills the llm_policy and enforcement_status of out, the
// resources of rows (same order): null below the Team tier, where a
// policy is neither enforced nor shown.
func (s *Server) withLLMPolicies(ctx context.Context, rows []projections.WorkspaceRow, out []workspaceBody) error {
	var ids []string
	for _, w := range rows {
		if workspace.PoliciesAllowed(w.Tier) {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	policies, err := s.queries.LLMPolicies(ctx, ids)
	if err != nil {
		return err
	}
	for i, w := range rows {
		p, ok := policies[w.ID]
		if !ok || p.AllowedModels == nil || !workspace.PoliciesAllowed(w.Tier) {
			continue
		}
		out[i].LLMPolicy = wsLLMPolicy{AllowedModels: p.AllowedModels, UpdatedAt: p.UpdatedAt.UTC()}
		out[i].Enforcement = s.enforcement(p.AllowedModels)
	}
	return nil
}

// workspaceWithPolicy is workspaceOut with the workspace's llm policy.
func (s *Server) workspaceWithPolicy(ctx context.Context, row projections.WorkspaceRow) (workspaceBody, error) {
	out := []workspaceBody{workspaceOut(row)}
	err := s.withLLMPolicies(ctx, []projections.WorkspaceRow{row}, out)
	return out[0], err
}

func errPolicyTier() *apiError {
	return errTierRequired("Model policies need the Team or Enterprise plan.").withDetail("required_tier", "team")
}

// getLLMPolicy is GET /api/workspaces/{id}/llm-policy (any role; Team and
// Enterprise).
func (s *Server) getLLMPolicy(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	if !workspace.PoliciesAllowed(a.ws.Tier) {
		return errPolicyTier()
	}
	p, err := s.queries.LLMPolicy(ctx, a.ws.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.policyOut(p))
	return nil
}

// llmPolicyPutBody is PUT /api/workspaces/{id}/llm-policy's body, read
// raw so that null (no policy) and a missing field differ.
type llmPolicyPutBody struct {
	AllowedModels json.RawMessage `json:"allowed_models"`
}

// putLLMPolicy is PUT /api/workspaces/{id}/llm-policy (admin; Team and
// Enterprise): allowed_models is a list of available model names, or null
// to remove the policy. The answer is the policy as GET shows it.
func (s *Server) putLLMPolicy(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	if !workspace.PoliciesAllowed(a.ws.Tier) {
		return errPolicyTier()
	}
	var body llmPolicyPutBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	raw := bytes.TrimSpace(body.AllowedModels)
	cmd := commands.SetLLMPolicy{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID}
	switch {
	case raw == nil:
		return errMissingField("allowed_models").withFix("Send allowed_models: a list of model names, or null to remove the policy.")
	case string(raw) != "null":
		if err := json.Unmarshal(raw, &cmd.AllowedModels); err != nil {
			return s.errAllowedModels("a list of model names (strings), or null to remove the policy")
		}
		if cmd.AllowedModels == nil {
			cmd.AllowedModels = []string{}
		}
	}
	_, err := s.commands.SetLLMPolicy.Handle(ctx, cmd)
	var unknown *workspace.UnknownModelsError
	switch {
	case errors.Is(err, workspace.ErrTierRequired):
		return errPolicyTier()
	case errors.Is(err, workspace.ErrNoModels):
		return s.errAllowedModels("at least one model; null removes the policy")
	case errors.Is(err, workspace.ErrTooManyModels):
		return s.errAllowedModels("at most 50 models").withDetail("max", workspace.MaxAllowedModels)
	case errors.As(err, &unknown):
		return s.errAllowedModels("unknown models: only available_models can be allowed").withDetail("unknown_models", unknown.Unknown)
	case errors.Is(err, workspace.ErrArchived):
		return newError(http.StatusBadRequest, "invalid_body", "The workspace is archived; restore it first.")
	case err != nil:
		return err
	}
	p, err := s.queries.LLMPolicy(ctx, a.ws.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.policyOut(p))
	return nil
}

// errAllowedModels is the 400 invalid_body of a refused allowed_models,
// listing the models a policy may allow.
func (s *Server) errAllowedModels(why string) *apiError {
	return platformField("allowed_models", why).withDetail("available_models", s.commands.Models.Known())
}

// modelPolicyError maps plan's and execute's refusal under a workspace's
// llm policy: 422 model_not_allowed (nil for any other error).
func modelPolicyError(err error) *apiError {
	var e *planning.ModelNotAllowedError
	if !errors.As(err, &e) {
		return nil
	}
	if len(e.Disallowed) > 0 {
		return newError(http.StatusUnprocessableEntity, "model_not_allowed",
			"The plan uses models the workspace's llm policy does not allow now: "+strings.Join(e.Disallowed, ", ")+".").
			withFix("Plan again: a new plan uses only the allowed models.").
			withDetail("disallowed_models", e.Disallowed).withDetail("allowed_models", e.Allowed).withDetail("available_models", nonNil(e.Available))
	}
	return newError(http.StatusUnprocessableEntity, "model_not_allowed",
		"None of the models the workspace's llm policy allows ("+strings.Join(e.Allowed, ", ")+") is available, so nothing can be planned or run in it.").
		withFix("Ask an admin to allow one of available_models with PUT /api/workspaces/{id}/llm-policy, or to remove the policy.").
		withDetail("allowed_models", e.Allowed).withDetail("available_models", nonNil(e.Available))
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
