package commands

import (
	"context"
	"fmt"

	"svc/domain/workspace"
)

// ArchiveWorkspace archives a workspace (DELETE /api/workspaces/{id});
// archiving an archived one changes nothing.
type ArchiveWorkspace struct {
	OrgID       string
	WorkspaceID string
}

// ArchiveWorkspaceHandler handles ArchiveWorkspace.
type ArchiveWorkspaceHandler struct{ repos *Repositories }

// NewArchiveWorkspaceHandler returns a handler over repos.
func NewArchiveWorkspaceHandler(repos *Repositories) ArchiveWorkspaceHandler {
	return ArchiveWorkspaceHandler{repos: must(repos)}
}

// Handle appends WorkspaceArchived.
func (h ArchiveWorkspaceHandler) Handle(ctx context.Context, cmd ArchiveWorkspace) (WorkspaceChanged, error) {
	_, pos, err := h.repos.Workspaces.Update(ctx, cmd.OrgID, cmd.WorkspaceID, (*workspace.Workspace).Archive)
	if err != nil {
		return WorkspaceChanged{}, fmt.Errorf("archive workspace: %w", err)
	}
	return WorkspaceChanged{Position: pos}, nil
}
