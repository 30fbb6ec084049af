package commands

import (
	"context"
	"fmt"

	"svc/domain/workspace"
	"svc/eventstore/event"
)

// RenameWorkspace gives a workspace a new name; its slug stays.
type RenameWorkspace struct {
	OrgID       string
	WorkspaceID string
	Name        string
}

// WorkspaceChanged is the outcome of the workspace commands that answer
// with nothing but their position.
type WorkspaceChanged struct {
	Position event.Position
}

// RenameWorkspaceHandler handles RenameWorkspace.
type RenameWorkspaceHandler struct{ repos *Repositories }

// NewRenameWorkspaceHandler returns a handler over repos.
func NewRenameWorkspaceHandler(repos *Repositories) RenameWorkspaceHandler {
	return RenameWorkspaceHandler{repos: must(repos)}
}

// Handle appends WorkspaceRenamed.
func (h RenameWorkspaceHandler) Handle(ctx context.Context, cmd RenameWorkspace) (WorkspaceChanged, error) {
	_, pos, err := h.repos.Workspaces.Update(ctx, cmd.OrgID, cmd.WorkspaceID, func(w *workspace.Workspace) ([]event.Data, error) {
		renamed, err := w.Rename(cmd.Name)
		if err != nil || renamed.Name == renamed.From {
			return nil, err
		}
		return []event.Data{renamed}, nil
	})
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("rename workspace: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
