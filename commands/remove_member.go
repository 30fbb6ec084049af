package commands

import (
	"context"
	"fmt"

	"svc/domain/workspace"
	"svc/eventstore/event"
)

// RemoveMember removes a user from a workspace.
type RemoveMember struct {
	OrgID       string
	WorkspaceID string
	MemberID    string
}

// RemoveMemberHandler handles RemoveMember.
type RemoveMemberHandler struct{ repos *Repositories }

// NewRemoveMemberHandler returns a handler over repos.
func NewRemoveMemberHandler(repos *Repositories) RemoveMemberHandler {
	return RemoveMemberHandler{repos: must(repos)}
}

// Handle appends WorkspaceMemberRemoved.
func (h RemoveMemberHandler) Handle(ctx context.Context, cmd RemoveMember) (WorkspaceChanged, error) {
	_, pos, err := h.repos.Workspaces.Update(ctx, cmd.OrgID, cmd.WorkspaceID, func(w *workspace.Workspace) ([]event.Data, error) {
		removed, err := w.RemoveMember(cmd.MemberID)
		return []event.Data{removed}, err
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("remove member: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
