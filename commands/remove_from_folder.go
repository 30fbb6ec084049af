package commands

import (
	"context"
	"fmt"

	"svc/domain/folder"
	"svc/domain/workflow"
	"svc/eventstore"
)

// RemoveFromFolder takes a workflow out of the folder it is in: it is in
// no folder then.
type RemoveFromFolder struct {
	OrgID       string
	WorkspaceID string
	FolderID    string
	WorkflowID  string
}

// RemoveFromFolderHandler handles RemoveFromFolder.
type RemoveFromFolderHandler struct{ repos *Repositories }

// NewRemoveFromFolderHandler returns a handler over repos.
func NewRemoveFromFolderHandler(repos *Repositories) RemoveFromFolderHandler {
	return RemoveFromFolderHandler{repos: must(repos)}
}

// Handle appends FolderWorkflowRemoved to the workflow's assignment
// stream; a workflow that is not in the folder is folder.ErrNotInFolder.
func (h RemoveFromFolderHandler) Handle(ctx context.Context, cmd RemoveFromFolder) (FolderChanged, error) {
	if !workflow.ValidID(cmd.WorkflowID) {
		return FolderChanged{}, folder.ErrNotInFolder
	}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		f, err := loadFolder(tx, h.repos, cmd.OrgID, cmd.WorkspaceID, cmd.FolderID)
		if err != nil {
			return err
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		a, err := h.repos.FolderAssignments.Load(tx, cmd.WorkflowID)
		if err != nil {
			return err
		}
		removed, err := a.Remove(f, cmd.WorkflowID)
		if err != nil {
			return err
		}
		_, err = h.repos.FolderAssignments.Save(tx, cmd.WorkflowID, a, removed)
		return err
	})
	if err != nil {
		return FolderChanged{}, fmt.Errorf("remove workflow from folder: %w", err)
	}
	return FolderChanged{Position: pos}, nil
}
