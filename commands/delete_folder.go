package commands

import (
	"context"
	"fmt"

	"svc/eventstore"
)

// DeleteFolder deletes a folder: its name is free again and its workflows
// are in no folder.
type DeleteFolder struct {
	OrgID       string
	WorkspaceID string
	FolderID    string
}

// DeleteFolderHandler handles DeleteFolder.
type DeleteFolderHandler struct{ repos *Repositories }

// NewDeleteFolderHandler returns a handler over repos.
func NewDeleteFolderHandler(repos *Repositories) DeleteFolderHandler {
	return DeleteFolderHandler{repos: must(repos)}
}

// Handle appends FolderDeleted and the name's release in one transaction.
// The workflows' assignment streams are left as they are: a deleted folder
// holds nothing, so the read model takes its workflows out (one event,
// whatever the folder held).
func (h DeleteFolderHandler) Handle(ctx context.Context, cmd DeleteFolder) (FolderChanged, error) {
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		f, err := loadFolder(tx, h.repos, cmd.OrgID, cmd.WorkspaceID, cmd.FolderID)
		if err != nil {
			return err
		}
		deleted, err := f.Delete()
		if err != nil {
			return err
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		if err := releaseFolderName(tx, h.repos, f.ID(), f.WorkspaceID(), f.Name()); err != nil {
			return err
		}
		_, err = h.repos.Folders.Save(tx, f.ID(), f, deleted)
		return err
	})
	if err != nil {
		return FolderChanged{}, fmt.Errorf("delete folder: %w", err)
	}
	return FolderChanged{Position: pos}, nil
}
