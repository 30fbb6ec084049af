package commands

import (
	"context"
	"fmt"

	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// SetWorkspaceBudget sets or removes (Budget nil) a workspace's monthly
// credit budget (Team and Enterprise only).
type SetWorkspaceBudget struct {
	OrgID       string
	WorkspaceID string
	Budget      *int64
}

// SetWorkspaceBudgetHandler handles SetWorkspaceBudget.
type SetWorkspaceBudgetHandler struct{ repos *Repositories }

// NewSetWorkspaceBudgetHandler returns a handler over repos.
func NewSetWorkspaceBudgetHandler(repos *Repositories) SetWorkspaceBudgetHandler {
	return SetWorkspaceBudgetHandler{repos: must(repos)}
}

// Handle reads the organization's tier and appends WorkspaceBudgetSet
// (nothing when the budget is unchanged): workspace.ErrBudgetTier below
// Team, workspace.ErrInvalidBudget, workspace.ErrArchived.
func (h SetWorkspaceBudgetHandler) Handle(ctx context.Context, cmd SetWorkspaceBudget) (WorkspaceChanged, error) {
	pos, err := setWorkspaceSetting(ctx, h.repos, cmd.OrgID, cmd.WorkspaceID, func(w *workspace.Workspace, t org.Tier) ([]event.Data, error) {
		return w.SetBudget(t, cmd.Budget)
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("set workspace budget: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}

// setWorkspaceSetting appends what decide makes of workspace wsID given
// its organization's current tier, in one transaction: the settings that
// need a tier (budget, model policy).
func setWorkspaceSetting(ctx context.Context, repos *Repositories, orgID, wsID string,
	decide func(*workspace.Workspace, org.Tier) ([]event.Data, error)) (event.Position, error) {
	return repos.Store.Run(ctx, orgTx(orgID), func(tx *eventstore.Tx) error {
		o, err := repos.Orgs.Load(tx, orgID)
		if err != nil {
			return err
		}
		w, err := repos.Workspaces.LoadOwned(tx, orgID, wsID)
		if err != nil {
			return err
		}
		data, err := decide(w, o.Tier())
		if err != nil {
			return err
		}
		_, err = repos.Workspaces.Save(tx, wsID, w, data...)
		return err
	})
}
