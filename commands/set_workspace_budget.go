package commands

import (
	"context"
	"fmt"

	"svc/eventstore"
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
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		o, err := h.repos.Orgs.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		w, err := h.repos.Workspaces.LoadOwned(tx, cmd.OrgID, cmd.WorkspaceID)
		if err != nil {
			return err
		}
		set, err := w.SetBudget(o.Tier(), cmd.Budget)
		if err != nil {
			return err
		}
		_, err = h.repos.Workspaces.Save(tx, cmd.WorkspaceID, w, set...)
		return err
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("set workspace budget: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
