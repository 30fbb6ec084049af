package commands

import (
	"context"
	"fmt"

	"svc/domain/invite"
	"svc/eventstore/event"
)

// RevokeInvite revokes an invite of a workspace.
type RevokeInvite struct {
	OrgID       string
	WorkspaceID string
	InviteID    string
}

// RevokeInviteHandler handles RevokeInvite.
type RevokeInviteHandler struct{ repos *Repositories }

// NewRevokeInviteHandler returns a handler over repos.
func NewRevokeInviteHandler(repos *Repositories) RevokeInviteHandler {
	return RevokeInviteHandler{repos: must(repos)}
}

// Handle appends InviteRevoked; an invite of another workspace, or a
// revoked one, is invite.ErrNotFound.
func (h RevokeInviteHandler) Handle(ctx context.Context, cmd RevokeInvite) (WorkspaceChanged, error) {
	_, pos, err := h.repos.Invites.Update(ctx, cmd.OrgID, cmd.InviteID, func(i *invite.Invite) ([]event.Data, error) {
		if i.WorkspaceID() != cmd.WorkspaceID {
			return nil, invite.ErrNotFound
		}
		r, err := i.Revoke()
		return []event.Data{r}, err
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("revoke invite: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
