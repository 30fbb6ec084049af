package commands

import (
	"context"
	"fmt"

	"svc/domain/org"
	"svc/domain/workspace"
	"svc/eventstore"
)

// RestoreWorkspace makes an archived workspace active again (Team and
// Enterprise only).
type RestoreWorkspace struct {
	OrgID       string
	WorkspaceID string
}

// RestoreWorkspaceHandler handles RestoreWorkspace.
type RestoreWorkspaceHandler struct{ repos *Repositories }

// NewRestoreWorkspaceHandler returns a handler over repos.
func NewRestoreWorkspaceHandler(repos *Repositories) RestoreWorkspaceHandler {
	return RestoreWorkspaceHandler{repos: must(repos)}
}

// Handle checks the tier and appends WorkspaceRestored.
func (h RestoreWorkspaceHandler) Handle(ctx context.Context, cmd RestoreWorkspace) (WorkspaceChanged, error) {
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		o, err := h.repos.Orgs.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		if t := o.Tier(); t != org.Team && t != org.Enterprise {
			return workspace.ErrTierRequired
		}
		w, err := h.repos.Workspaces.LoadOwned(tx, cmd.OrgID, cmd.WorkspaceID)
		if err != nil {
			return err
		}
		restored, err := w.Restore()
		if err != nil {
			return err
		}
		_, err = h.repos.Workspaces.Save(tx, cmd.WorkspaceID, w, restored)
		return err
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("restore workspace: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
