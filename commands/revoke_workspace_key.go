package commands

import (
	"context"
	"fmt"

	"svc/domain/apikey"
	"svc/eventstore"
)

// RevokeWorkspaceKey revokes an API key of a workspace.
type RevokeWorkspaceKey struct {
	OrgID       string
	WorkspaceID string
	KeyID       string
}

// RevokeWorkspaceKeyHandler handles RevokeWorkspaceKey.
type RevokeWorkspaceKeyHandler struct{ repos *Repositories }

// NewRevokeWorkspaceKeyHandler returns a handler over repos.
func NewRevokeWorkspaceKeyHandler(repos *Repositories) RevokeWorkspaceKeyHandler {
	return RevokeWorkspaceKeyHandler{repos: must(repos)}
}

// Handle appends ApiKeyRevoked and WorkspaceKeyDetached in one
// transaction; a key of another workspace, or a revoked one, is
// apikey.ErrNotFound.
func (h RevokeWorkspaceKeyHandler) Handle(ctx context.Context, cmd RevokeWorkspaceKey) (WorkspaceChanged, error) {
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		k, err := h.repos.Keys.LoadOwned(tx, cmd.OrgID, cmd.KeyID)
		if err != nil {
			return err
		}
		if k.WorkspaceID() != cmd.WorkspaceID {
			return apikey.ErrNotFound
		}
		revoked, err := k.Revoke()
		if err != nil {
			return apikey.ErrNotFound
		}
		w, err := h.repos.Workspaces.LoadOwned(tx, cmd.OrgID, cmd.WorkspaceID)
		if err != nil {
			return err
		}
		if _, err := h.repos.Keys.Save(tx, cmd.KeyID, k, revoked); err != nil {
			return err
		}
		_, err = h.repos.Workspaces.Save(tx, cmd.WorkspaceID, w, w.DetachKey(cmd.KeyID))
		return err
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("revoke workspace key: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
