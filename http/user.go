package httpapi

import (
	"errors"
	"net/http"

	"svc/projections"
)

// meResponse is the answer of GET /api/user/me.
type meResponse struct {
	UserID      *string      `json:"user_id"` // null for an API key
	Email       *string      `json:"email"`
	DisplayName string       `json:"display_name"`
	Memberships []membership `json:"memberships"`
	// KeyID is set when an API key asked (docs/decisions.md).
	KeyID string `json:"key_id,omitempty"`
}

type membership struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Role          Role   `json:"role"`
}

// me is GET /api/user/me: a session's user and the workspaces they belong
// to; for an API key, the key's workspace and role.
func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	if p.UserID == "" {
		ws, err := s.queries.Workspace(ctx, p.WorkspaceID)
		if err != nil && !errors.Is(err, projections.ErrNotFound) {
			return err
		}
		writeJSON(w, http.StatusOK, meResponse{DisplayName: "API key " + p.KeyID, KeyID: p.KeyID,
			Memberships: []membership{{WorkspaceID: p.WorkspaceID, WorkspaceName: ws.Name, Role: p.Role}}})
		return nil
	}
	u, ms, err := s.queries.User(ctx, p.UserID)
	if err != nil {
		return err
	}
	out := meResponse{UserID: &u.UserID, Email: &u.Email, DisplayName: u.Name, Memberships: make([]membership, 0, len(ms))}
	for _, m := range ms {
		out.Memberships = append(out.Memberships, membership{WorkspaceID: m.WorkspaceID, WorkspaceName: m.WorkspaceName, Role: m.Role})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
