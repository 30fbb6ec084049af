package commands

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"svc/domain/folder"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
)

// CreateFolder creates a folder in a workspace; its name must be free in
// the workspace (case-insensitively).
type CreateFolder struct {
	OrgID       string
	WorkspaceID string
	Name        string
}

// FolderCreated is the outcome of CreateFolder.
type FolderCreated struct {
	FolderID string
	Position event.Position
}

// FolderChanged is the outcome of the folder commands that answer with
// nothing but their position.
type FolderChanged struct {
	Position event.Position
}

// CreateFolderHandler handles CreateFolder.
type CreateFolderHandler struct{ repos *Repositories }

// NewCreateFolderHandler returns a handler over repos.
func NewCreateFolderHandler(repos *Repositories) CreateFolderHandler {
	return CreateFolderHandler{repos: must(repos)}
}

// Handle appends the name's reservation and FolderCreated in one
// transaction: of two creations racing for one name, the second's
// reservation conflicts, Run retries it and it finds the name taken.
func (h CreateFolderHandler) Handle(ctx context.Context, cmd CreateFolder) (FolderCreated, error) {
	id := uuid.NewString()
	created, err := folder.Create(id, cmd.OrgID, cmd.WorkspaceID, cmd.Name)
	if err != nil {
		return FolderCreated{}, err
	}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		if err := openWorkspace(tx, h.repos, cmd.OrgID, cmd.WorkspaceID); err != nil {
			return err
		}
		if err := reserveFolderName(tx, h.repos, id, cmd.WorkspaceID, created.Name); err != nil {
			return err
		}
		_, err := h.repos.Folders.Save(tx, id, folder.New(), created)
		return err
	})
	if err != nil {
		return FolderCreated{}, fmt.Errorf("create folder: %w", err)
	}
	return FolderCreated{FolderID: id, Position: pos}, nil
}

// openWorkspace checks that workspace wsID is orgID's and not archived:
// an archived workspace's folders are read-only.
func openWorkspace(tx *eventstore.Tx, repos *Repositories, orgID, wsID string) error {
	w, err := repos.Workspaces.LoadOwned(tx, orgID, wsID)
	if err != nil {
		return err
	}
	if w.Archived() {
		return workspace.ErrArchived
	}
	return nil
}

// loadFolder loads folder id of workspace wsID (of orgID) inside tx; a
// folder of another workspace, or a deleted one, is folder.ErrNotFound.
func loadFolder(tx *eventstore.Tx, repos *Repositories, orgID, wsID, id string) (*folder.Folder, error) {
	f, err := repos.Folders.LoadOwned(tx, orgID, id)
	if err != nil {
		return nil, err
	}
	if f.WorkspaceID() != wsID {
		return nil, folder.ErrNotFound
	}
	return f, nil
}

// reserveFolderName makes name folderID's in workspace wsID, or answers
// folder.ErrNameTaken.
func reserveFolderName(tx *eventstore.Tx, repos *Repositories, folderID, wsID, name string) error {
	key := folder.NameKey(wsID, name)
	n, err := repos.FolderNames.Load(tx, key)
	if err != nil {
		return err
	}
	data, err := n.Reserve(folderID, wsID)
	if err != nil {
		return err
	}
	_, err = repos.FolderNames.Save(tx, key, n, data...)
	return err
}

// releaseFolderName gives folderID's name in workspace wsID up.
func releaseFolderName(tx *eventstore.Tx, repos *Repositories, folderID, wsID, name string) error {
	key := folder.NameKey(wsID, name)
	n, err := repos.FolderNames.Load(tx, key)
	if err != nil {
		return err
	}
	_, err = repos.FolderNames.Save(tx, key, n, n.Release(folderID, wsID)...)
	return err
}
