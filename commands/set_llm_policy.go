package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"svc/domain/org"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// SetLLMPolicy sets or removes (AllowedModels nil) the models plans and
// runs of a workspace may use (Team and Enterprise only).
type SetLLMPolicy struct {
	OrgID         string
	WorkspaceID   string
	AllowedModels []string
}

// SetLLMPolicyHandler handles SetLLMPolicy.
type SetLLMPolicyHandler struct {
	repos  *Repositories
	models planning.Models
}

// NewSetLLMPolicyHandler returns a handler over repos accepting the models
// plans route to.
func NewSetLLMPolicyHandler(repos *Repositories, models planning.Models) SetLLMPolicyHandler {
	return SetLLMPolicyHandler{repos: must(repos), models: models}
}

// Handle reads the organization's tier and appends WorkspaceLLMPolicySet
// (nothing when the policy is unchanged): workspace.ErrPolicyTier below
// Team, workspace.ErrNoModels, workspace.ErrTooManyModels,
// *workspace.UnknownModelsError, workspace.ErrArchived.
func (h SetLLMPolicyHandler) Handle(ctx context.Context, cmd SetLLMPolicy) (WorkspaceChanged, error) {
	pos, err := setWorkspaceSetting(ctx, h.repos, cmd.OrgID, cmd.WorkspaceID, func(w *workspace.Workspace, t org.Tier) ([]event.Data, error) {
		return w.SetLLMPolicy(t, cmd.AllowedModels, h.models.Known())
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("set llm policy: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}

// enforcedPolicy is the allowed models of w's llm policy when an
// organization of tier enforces it, nil otherwise (no policy, or a tier
// below Team: the policy waits for an upgrade).
func enforcedPolicy(w *workspace.Workspace, tier org.Tier) []string {
	if !workspace.PoliciesAllowed(tier) {
		return nil
	}
	return w.LLMPolicy()
}

// policyRouting is how the llm policy of the plan's workspace routes its
// steps (routingIn).
func (h PlanWorkflowHandler) policyRouting(ctx context.Context, cmd PlanWorkflow) (*planning.Routing, error) {
	return routingIn(ctx, h.repos, h.planner.Models(), cmd.OrgID, cmd.WorkspaceID)
}

// routingIn is how the llm policy of workspace wsID of organization orgID
// routes calls over models: nil without an enforced policy; a
// *planning.ModelNotAllowedError when none of the allowed models is
// available.
func routingIn(ctx context.Context, repos *Repositories, models planning.Models, orgID, wsID string) (*planning.Routing, error) {
	if wsID == "" {
		return nil, nil
	}
	w, err := repos.Workspaces.GetOwned(ctx, orgID, wsID)
	if errors.Is(err, workspace.ErrNotFound) { // a key from before workspaces had streams
		return nil, nil
	}
	if err != nil || w.LLMPolicy() == nil {
		return nil, err
	}
	o, err := repos.Orgs.Get(ctx, orgID)
	if err != nil {
		return nil, err
	}
	allowed := enforcedPolicy(w, o.Tier())
	if allowed == nil {
		return nil, nil
	}
	return models.Route(allowed)
}

// modelRouting records r on a planned workflow (nil for none).
func modelRouting(r *planning.Routing) *workflow.ModelRouting {
	if r == nil {
		return nil
	}
	return &workflow.ModelRouting{Tier1: r.For(1).Model, Tier2: r.For(2).Model}
}

// recheckPolicy refuses, at execute, a stored plan that would call a model
// the llm policy of its workspace does not allow now (the policy changed
// since the plan, or was set after it): a *planning.ModelNotAllowedError
// naming them. The org's tier is the caller's.
func (h ExecuteWorkflowHandler) recheckPolicy(tx *eventstore.Tx, tier string, planned workflow.Planned) error {
	if planned.WorkspaceID == "" {
		return nil
	}
	w, err := h.repos.Workspaces.LoadOwned(tx, planned.OrgID, planned.WorkspaceID)
	if errors.Is(err, workspace.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	allowed := enforcedPolicy(w, org.Tier(tier))
	if allowed == nil {
		return nil
	}
	models := h.planner.planner.Models()
	var disallowed []string
	for _, m := range planned.UsedModels(models.Default) {
		if !slices.Contains(allowed, m) {
			disallowed = append(disallowed, m)
		}
	}
	if len(disallowed) > 0 {
		return &planning.ModelNotAllowedError{Allowed: allowed, Available: models.Known(), Disallowed: disallowed}
	}
	return nil
}

// EnhanceOption configures an EnhanceTaskHandler.
type EnhanceOption func(*EnhanceTaskHandler)

// WithEnhanceModels routes enhance's llm tier under the caller's workspace
// llm policy over models (default: none known, so a workspace with a
// policy is refused with *planning.ModelNotAllowedError).
func WithEnhanceModels(models planning.Models) EnhanceOption {
	return func(h *EnhanceTaskHandler) { h.models = models }
}
