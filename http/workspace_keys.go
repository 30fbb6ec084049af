package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/workspace"
)

// workspaceKey is an API key as a workspace lists it.
type workspaceKeyBody struct {
	KeyID      string     `json:"key_id"`
	Prefix     string     `json:"prefix"`
	Label      string     `json:"label"`
	Role       Role       `json:"role"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	CreatedBy  string     `json:"created_by"`
}

// listWorkspaceKeys is GET /api/workspaces/{id}/api-keys.
func (s *Server) listWorkspaceKeys(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rows, err := s.queries.WorkspaceKeys(ctx, workspaceOf(ctx).ws.ID)
	if err != nil {
		return err
	}
	out := make([]workspaceKeyBody, 0, len(rows))
	for _, k := range rows {
		out = append(out, workspaceKeyBody{KeyID: k.KeyID, Prefix: k.Prefix, Label: k.Label, Role: k.Role, CreatedAt: k.CreatedAt,
			LastUsedAt: k.LastUsedAt, CreatedBy: k.CreatedBy})
	}
	writeJSON(w, http.StatusOK, workspaceKeysResponse{APIKeys: out})
	return nil
}

type createWorkspaceKeyBody struct {
	Label *string `json:"label"`
	Role  *string `json:"role"`
}

// createWorkspaceKey is POST /api/workspaces/{id}/api-keys: the raw key is
// in this answer only. role (optional, default member) may not exceed the
// caller's.
func (s *Server) createWorkspaceKey(w http.ResponseWriter, r *http.Request) error {
	var body createWorkspaceKeyBody
	if err := platformBody(w, r, &body, true); err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	p, _ := principalOf(ctx)
	role := apikey.Member
	if body.Role != nil && *body.Role != "" {
		parsed, err := apikey.ParseRole(*body.Role)
		if err != nil {
			return platformField("role", "viewer, member, admin or owner")
		}
		if !a.role.AtLeast(parsed) {
			return forbidden(parsed, a.role)
		}
		role = parsed
	}
	label := ""
	if body.Label != nil {
		label = strings.TrimSpace(*body.Label)
		if utf8.RuneCountInString(label) > 100 {
			return platformField("label", "at most 100 characters")
		}
	}
	res, err := s.commands.CreateWorkspaceKey.Handle(ctx, commands.CreateWorkspaceKey{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		Label: label, Role: role, CreatedBy: p.Actor()})
	switch {
	case errors.Is(err, workspace.ErrKeyLimit):
		return newError(http.StatusPaymentRequired, "key_limit_reached", "The workspace has as many API keys as your plan allows.").
			withDetail("limit", workspace.LimitOf(a.ws.Tier).Keys).withFix("Revoke a key you no longer use, or upgrade your plan.")
	case err != nil:
		return membershipError(err, a.ws.Tier)
	}
	writeJSON(w, http.StatusCreated, workspaceKeyCreated{KeyID: res.KeyID, Key: res.Key.Raw, Prefix: res.Key.Prefix, Label: res.Label,
		Role: role, CreatedAt: res.CreatedAt})
	return nil
}

// revokeWorkspaceKey is DELETE /api/workspaces/{id}/api-keys/{key_id}: the
// key is refused from the next request on, by every instance.
func (s *Server) revokeWorkspaceKey(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err := s.commands.RevokeWorkspaceKey.Handle(ctx, commands.RevokeWorkspaceKey{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		KeyID: mux.Vars(r)["key_id"]})
	if errors.Is(err, apikey.ErrNotFound) {
		return newError(http.StatusNotFound, "not_found", "No such API key in this workspace.")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true})
	return nil
}
