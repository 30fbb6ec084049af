package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/org"
	"svc/domain/workspace"
	"svc/projections"
)

// workspaceRoutes registers spec B's workspace routes.
func (s *Server) workspaceRoutes(r *mux.Router) {
	r.Handle("/api/workspaces", s.platform("", s.listWorkspaces)).Methods(http.MethodGet).Name("workspaces.list")
	r.Handle("/api/workspaces", s.platform("", s.createWorkspace)).Methods(http.MethodPost).Name("workspaces.create")
	ws := func(path, method, name string, floor Role, h handlerFunc) {
		r.Handle("/api/workspaces/{id}"+path, s.inWorkspace(floor, h)).Methods(method).Name("workspaces." + name)
	}
	ws("", http.MethodGet, "get", "", s.getWorkspace)
	ws("", http.MethodPut, "rename", apikey.Admin, s.renameWorkspace)
	ws("", http.MethodDelete, "archive", apikey.Admin, s.archiveWorkspace)
	ws("/restore", http.MethodPost, "restore", apikey.Owner, s.restoreWorkspace)
	ws("/members", http.MethodGet, "members.list", "", s.listMembers)
	ws("/members", http.MethodPost, "members.add", apikey.Admin, s.addMember)
	ws("/members/{member_id}", http.MethodPatch, "members.role", apikey.Owner, s.changeMemberRole)
	ws("/members/{member_id}", http.MethodDelete, "members.remove", apikey.Admin, s.removeMember)
	ws("/api-keys", http.MethodGet, "keys.list", apikey.Member, s.listWorkspaceKeys)
	ws("/api-keys", http.MethodPost, "keys.create", apikey.Admin, s.createWorkspaceKey)
	ws("/api-keys/{key_id}", http.MethodDelete, "keys.revoke", apikey.Admin, s.revokeWorkspaceKey)
	ws("/invites", http.MethodPost, "invites.create", apikey.Admin, s.createInviteLink)
	ws("/invites", http.MethodGet, "invites.list", apikey.Admin, s.listInviteLinks)
	ws("/invites/{invite_id}", http.MethodDelete, "invites.revoke", apikey.Admin, s.revokeInvite)
	ws("/folders", http.MethodGet, "folders.list", "", s.listFolders)
	ws("/folders", http.MethodPost, "folders.create", apikey.Member, s.createFolder)
	ws("/folders/{folder_id}", http.MethodPatch, "folders.rename", apikey.Member, s.renameFolder)
	ws("/folders/{folder_id}", http.MethodDelete, "folders.delete", apikey.Member, s.deleteFolder)
	ws("/folders/{folder_id}/workflows", http.MethodPost, "folders.workflows.add", apikey.Member, s.moveWorkflows)
	ws("/folders/{folder_id}/workflows/{workflow_id}", http.MethodDelete, "folders.workflows.remove", apikey.Member, s.removeFromFolder)
	ws("/audit-log", http.MethodGet, "audit_log", apikey.Admin, s.auditLog)
	ws("/llm-policy", http.MethodGet, "llm_policy.get", "", s.getLLMPolicy)
	ws("/llm-policy", http.MethodPut, "llm_policy.set", apikey.Admin, s.putLLMPolicy)
	ws("/budget", http.MethodGet, "budget.get", "", s.getBudget)
	ws("/budget", http.MethodPut, "budget.set", apikey.Admin, s.putBudget)
	ws("/webhooks", http.MethodGet, "webhooks.list", apikey.Member, s.listWebhooks)
	ws("/webhooks", http.MethodPost, "webhooks.create", apikey.Admin, s.createWebhook)
	ws("/webhooks/{webhook_id}", http.MethodPatch, "webhooks.update", apikey.Admin, s.patchWebhook)
	ws("/webhooks/{webhook_id}", http.MethodDelete, "webhooks.delete", apikey.Admin, s.deleteWebhook)
	ws("/webhooks/{webhook_id}/test", http.MethodPost, "webhooks.test", apikey.Admin, s.testWebhook)
	ws("/webhooks/{webhook_id}/verify", http.MethodPost, "webhooks.verify", apikey.Member, s.verifyWebhook)
	ws("/webhooks/{webhook_id}/rotate-secret", http.MethodPost, "webhooks.rotate_secret", apikey.Admin, s.rotateWebhookSecret)
	ws("/webhooks/{webhook_id}/deliveries", http.MethodGet, "webhooks.deliveries", apikey.Member, s.listWebhookDeliveries)
	r.Handle("/api/invites/accept", s.handle(s.acceptInvite)).Methods(http.MethodPost).Name("invites.accept")
	r.Handle("/api/invites/preview", s.handle(s.previewInvite)).Methods(http.MethodPost).Name("invites.preview")
}

// workspaceBody is a workspace as spec B shows it.
type workspaceBody struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Slug        string     `json:"slug"`
	IsDefault   bool       `json:"is_default"`
	ArchivedAt  *time.Time `json:"archived_at"`
	CreatedAt   time.Time  `json:"created_at"`
	LLMPolicy   any        `json:"llm_policy"`
	Enforcement *string    `json:"enforcement_status"`
	AccountTier org.Tier   `json:"account_tier"`
	Budget      *wsBudget  `json:"budget,omitempty"` // budget.go
}

func workspaceOut(w projections.WorkspaceRow) workspaceBody {
	return workspaceBody{ID: w.ID, Name: w.Name, Slug: w.Slug, IsDefault: w.IsDefault, ArchivedAt: w.ArchivedAt,
		CreatedAt: w.CreatedAt, AccountTier: w.Tier,
		Budget: workspaceBudget(w.Budget)}
}

// listWorkspaces is GET /api/workspaces: the workspaces the caller may
// see, archived ones only with include_archived=true.
func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	include := false
	switch v := r.URL.Query().Get("include_archived"); v {
	case "", "false":
	case "true":
		include = true
	default:
		return platformField("include_archived", "true or false")
	}
	var rows []projections.WorkspaceRow
	var err error
	switch {
	case p.KeyID != "" && p.Role == apikey.Owner, p.UserID != "" && p.Role == apikey.Owner:
		rows, err = s.queries.Workspaces(ctx, projections.WorkspaceFilter{OrgID: p.OrgID, IncludeArchived: include})
	case p.KeyID != "":
		rows, err = s.queries.Workspaces(ctx, projections.WorkspaceFilter{OrgID: p.OrgID, OnlyID: p.WorkspaceID, IncludeArchived: include})
	}
	if err != nil {
		return err
	}
	if p.UserID != "" { // and the workspaces of other organizations they joined
		joined, err := s.queries.Workspaces(ctx, projections.WorkspaceFilter{MemberID: p.UserID, IncludeArchived: include})
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, w := range rows {
			seen[w.ID] = true
		}
		for _, w := range joined {
			if !seen[w.ID] {
				rows = append(rows, w)
			}
		}
	}
	out := make([]workspaceBody, 0, len(rows))
	for _, row := range rows {
		out = append(out, workspaceOut(row))
	}
	if err := s.withLLMPolicies(ctx, rows, out); err != nil { // llm_policy.go
		return err
	}
	writeJSON(w, http.StatusOK, workspacesResponse{Workspaces: out})
	return nil
}

type nameBody struct {
	Name *string `json:"name"`
}

// requiredName decodes a body {name} whose name is required (its rules are
// the command's).
func requiredName(w http.ResponseWriter, r *http.Request) (string, error) {
	var body nameBody
	if err := platformBody(w, r, &body, false); err != nil {
		return "", err
	}
	if body.Name == nil {
		return "", errMissingField("name")
	}
	return *body.Name, nil
}

// workspaceNameError maps a name the domain refused.
func workspaceNameError(err error) error {
	switch {
	case errors.Is(err, workspace.ErrNameRequired):
		return errMissingField("name")
	case errors.Is(err, workspace.ErrNameTooLong):
		return platformField("name", "at most 100 characters")
	}
	return err
}

// createWorkspace is POST /api/workspaces (Team and Enterprise).
func (s *Server) createWorkspace(w http.ResponseWriter, r *http.Request) error {
	name, err := requiredName(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	cmd := commands.CreateWorkspace{OrgID: p.OrgID, Name: name}
	if p.UserID != "" {
		u, _, err := s.queries.User(ctx, p.UserID)
		if err != nil {
			return err
		}
		cmd.UserID, cmd.Email, cmd.DisplayName = u.UserID, u.Email, u.Name
	}
	res, err := s.commands.CreateWorkspace.Handle(ctx, cmd)
	switch {
	case errors.Is(err, workspace.ErrTierRequired):
		return errTierRequired("Workspaces need the Team or Enterprise plan.")
	case errors.Is(err, workspace.ErrWorkspaceLimit):
		return newError(http.StatusForbidden, "workspace_limit_reached", "Your plan's workspace limit is reached.").
			withDetail("limit", workspace.LimitOf(p.Tier).Workspaces)
	case err != nil:
		return workspaceNameError(err)
	}
	row, err := s.queries.Workspace(ctx, res.WorkspaceID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, workspaceOut(row))
	return nil
}

func errTierRequired(msg string) *apiError {
	return newError(http.StatusForbidden, "tier_required", msg).withFix("Upgrade your plan with POST /api/billing/subscribe.")
}

// getWorkspace is GET /api/workspaces/{id}.
func (s *Server) getWorkspace(w http.ResponseWriter, r *http.Request) error {
	out, err := s.workspaceWithPolicy(r.Context(), workspaceOf(r.Context()).ws)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// renameWorkspace is PUT /api/workspaces/{id}.
func (s *Server) renameWorkspace(w http.ResponseWriter, r *http.Request) error {
	name, err := requiredName(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	if _, err := s.commands.RenameWorkspace.Handle(ctx, commands.RenameWorkspace{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Name: name}); err != nil {
		return workspaceNameError(err)
	}
	row, err := s.queries.Workspace(ctx, a.ws.ID)
	if err != nil {
		return err
	}
	out, err := s.workspaceWithPolicy(ctx, row)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// archiveWorkspace is DELETE /api/workspaces/{id}: it archives.
func (s *Server) archiveWorkspace(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err := s.commands.ArchiveWorkspace.Handle(ctx, commands.ArchiveWorkspace{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID})
	if errors.Is(err, workspace.ErrDefault) {
		return newError(http.StatusForbidden, "forbidden", "The default workspace cannot be archived.")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true})
	return nil
}

// restoreWorkspace is POST /api/workspaces/{id}/restore.
func (s *Server) restoreWorkspace(w http.ResponseWriter, r *http.Request) error {
	if err := noBody(w, r); err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err := s.commands.RestoreWorkspace.Handle(ctx, commands.RestoreWorkspace{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID})
	switch {
	case errors.Is(err, workspace.ErrTierRequired):
		return errTierRequired("Restoring a workspace needs the Team or Enterprise plan.")
	case errors.Is(err, workspace.ErrNotArchived):
		return newError(http.StatusBadRequest, "not_archived", "This workspace is not archived.")
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, restoreResponse{OK: true, WorkspaceID: a.ws.ID, Status: "active"})
	return nil
}
