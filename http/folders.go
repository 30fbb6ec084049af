package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/folder"
	"svc/domain/workspace"
	"svc/projections"
)

// folderBody is a folder as spec B shows it.
type folderBody struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

func folderOut(f projections.FolderRow) folderBody {
	return folderBody{ID: f.ID, Name: f.Name, CreatedAt: f.CreatedAt.UTC()}
}

// folderError maps the folder rules' refusals.
func folderError(err error) error {
	var we folder.WorkflowError
	switch {
	case errors.Is(err, folder.ErrNameRequired):
		return errMissingField("name")
	case errors.Is(err, folder.ErrNameTooLong):
		return platformField("name", "at most 100 characters").withDetail("max", folder.MaxName)
	case errors.Is(err, folder.ErrNameTaken):
		return newError(http.StatusConflict, "folder_name_taken", "A folder of this workspace already has this name.").
			withFix("Pick another name; names are compared without regard to case.")
	case errors.Is(err, folder.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such folder in this workspace.")
	case errors.As(err, &we):
		return newError(http.StatusNotFound, "not_found", "No such workflow in this workspace.").withDetail("workflow_id", we.WorkflowID)
	case errors.Is(err, folder.ErrNotInFolder):
		return newError(http.StatusNotFound, "not_found", "This workflow is not in this folder.")
	case errors.Is(err, commands.ErrMoveCount):
		return platformField("workflow_ids", "1 to 100 workflow ids").withDetail("max", folder.MaxMove)
	case errors.Is(err, workspace.ErrArchived):
		return newError(http.StatusBadRequest, "invalid_body", "The workspace is archived; restore it first.")
	}
	return err
}

// listFolders is GET /api/workspaces/{id}/folders.
func (s *Server) listFolders(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rows, err := s.queries.Folders(ctx, workspaceOf(ctx).ws.ID)
	if err != nil {
		return err
	}
	out := make([]folderBody, 0, len(rows))
	for _, f := range rows {
		out = append(out, folderOut(f))
	}
	writeJSON(w, http.StatusOK, foldersResponse{Folders: out})
	return nil
}

// readFolder answers folder id of the request's workspace with status.
func (s *Server) readFolder(w http.ResponseWriter, r *http.Request, id string, status int) error {
	ctx := r.Context()
	f, err := s.queries.Folder(ctx, workspaceOf(ctx).ws.ID, id)
	if err != nil {
		return err
	}
	writeJSON(w, status, folderOut(f))
	return nil
}

// createFolder is POST /api/workspaces/{id}/folders: 201 and the folder.
func (s *Server) createFolder(w http.ResponseWriter, r *http.Request) error {
	name, err := requiredName(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	res, err := s.commands.CreateFolder.Handle(ctx, commands.CreateFolder{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Name: name})
	if err != nil {
		return folderError(err)
	}
	return s.readFolder(w, r, res.FolderID, http.StatusCreated)
}

// renameFolder is PATCH /api/workspaces/{id}/folders/{folder_id}: the
// renamed folder.
func (s *Server) renameFolder(w http.ResponseWriter, r *http.Request) error {
	name, err := requiredName(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	id := mux.Vars(r)["folder_id"]
	if _, err := s.commands.RenameFolder.Handle(ctx, commands.RenameFolder{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, FolderID: id, Name: name}); err != nil {
		return folderError(err)
	}
	return s.readFolder(w, r, id, http.StatusOK)
}

// deleteFolder is DELETE /api/workspaces/{id}/folders/{folder_id}: its
// workflows are in no folder after it.
func (s *Server) deleteFolder(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err := s.commands.DeleteFolder.Handle(ctx, commands.DeleteFolder{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, FolderID: mux.Vars(r)["folder_id"]})
	if err != nil {
		return folderError(err)
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true})
	return nil
}

type moveBody struct {
	WorkflowIDs []string `json:"workflow_ids"`
}

// moveWorkflows is POST /api/workspaces/{id}/folders/{folder_id}/workflows:
// the workflows (of the workspace) are in the folder after it, out of the
// one each was in.
func (s *Server) moveWorkflows(w http.ResponseWriter, r *http.Request) error {
	var body moveBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if body.WorkflowIDs == nil {
		return errMissingField("workflow_ids")
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	id := mux.Vars(r)["folder_id"]
	res, err := s.commands.MoveWorkflows.Handle(ctx, commands.MoveWorkflows{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, FolderID: id,
		WorkflowIDs: body.WorkflowIDs})
	if err != nil {
		return folderError(err)
	}
	writeJSON(w, http.StatusOK, folderWorkflowsResponse{FolderID: id, WorkflowIDs: res.WorkflowIDs})
	return nil
}

// removeFromFolder is DELETE
// /api/workspaces/{id}/folders/{folder_id}/workflows/{workflow_id}: the
// workflow is in no folder after it.
func (s *Server) removeFromFolder(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	vars := mux.Vars(r)
	_, err := s.commands.RemoveFromFolder.Handle(ctx, commands.RemoveFromFolder{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		FolderID: vars["folder_id"], WorkflowID: vars["workflow_id"]})
	if err != nil {
		return folderError(err)
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true})
	return nil
}
