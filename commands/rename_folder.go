package commands

import (
	"context"
	"fmt"

	"svc/eventstore"
)

// RenameFolder gives a folder a new name, free in its workspace; a change
// of case only keeps the name's reservation.
type RenameFolder struct {
	OrgID       string
	WorkspaceID string
	FolderID    string
	Name        string
}

// RenameFolderHandler handles RenameFolder.
type RenameFolderHandler struct{ repos *Repositories }

// NewRenameFolderHandler returns a handler over repos.
func NewRenameFolderHandler(repos *Repositories) RenameFolderHandler {
	return RenameFolderHandler{repos: must(repos)}
}

// Handle appends FolderRenamed with the new name's reservation and the
// old one's release, in one transaction.
func (h RenameFolderHandler) Handle(ctx context.Context, cmd RenameFolder) (FolderChanged, error) {
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		f, err := loadFolder(tx, h.repos, cmd.OrgID, cmd.WorkspaceID, cmd.FolderID)
		if err != nil {
			return err
		}
		renamed, reserve, err := f.Rename(cmd.Name)
		if err != nil || len(renamed) == 0 {
			return err
		}
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		if reserve {
			if err := reserveFolderName(tx, h.repos, f.ID(), f.WorkspaceID(), cmd.Name); err != nil {
				return err
			}
			if err := releaseFolderName(tx, h.repos, f.ID(), f.WorkspaceID(), f.Name()); err != nil {
				return err
			}
		}
		_, err = h.repos.Folders.Save(tx, f.ID(), f, renamed...)
		return err
	})
	if err != nil {
		return FolderChanged{}, fmt.Errorf("rename folder: %w", err)
	}
	return FolderChanged{Position: pos}, nil
}
