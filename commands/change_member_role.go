package commands

import (
	"context"
	"fmt"

	"svc/domain/workspace"
	"svc/eventstore/event"
)

// ChangeMemberRole gives a workspace member another role.
type ChangeMemberRole struct {
	OrgID       string
	WorkspaceID string
	// ActorUserID is the user asking ("" for an API key).
	ActorUserID string
	MemberID    string
	Role        workspace.Role
}

// ChangeMemberRoleHandler handles ChangeMemberRole.
type ChangeMemberRoleHandler struct{ repos *Repositories }

// NewChangeMemberRoleHandler returns a handler over repos.
func NewChangeMemberRoleHandler(repos *Repositories) ChangeMemberRoleHandler {
	return ChangeMemberRoleHandler{repos: must(repos)}
}

// Handle appends WorkspaceMemberRoleChanged (nothing when the role is the
// member's already).
func (h ChangeMemberRoleHandler) Handle(ctx context.Context, cmd ChangeMemberRole) (WorkspaceChanged, error) {
	_, pos, err := h.repos.Workspaces.Update(ctx, cmd.OrgID, cmd.WorkspaceID, func(w *workspace.Workspace) ([]event.Data, error) {
		return w.ChangeRole(cmd.ActorUserID, cmd.MemberID, cmd.Role)
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("change member role: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
