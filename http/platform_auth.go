package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"svc/domain/apikey"
	"svc/eventstore/event"
	"svc/projections"
)

// platform guards a spec B route that takes an API key (x-api-key) or a
// session (the session cookie): 401 unauthorized without either, 403
// forbidden below floor ("" for any role). The caller's principal is in
// the request's context (principalOf); a session's principal is its user
// in the user's own organization.
func (s *Server) platform(floor Role, h handlerFunc) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.caller(r)
		if err != nil {
			return err
		}
		if p == nil {
			return newError(http.StatusUnauthorized, "unauthorized", "Sign in, or send your API key in the x-api-key header.")
		}
		if floor != "" && !p.Role.AtLeast(floor) {
			return forbidden(floor, p.Role)
		}
		return h(w, r.WithContext(withPrincipal(r.Context(), *p)))
	})
}

// forbidden is spec B's answer to a role below floor.
func forbidden(floor, have Role) error {
	return newError(http.StatusForbidden, "forbidden",
		"This operation needs the "+string(floor)+" role or above; you have "+string(have)+".").
		withDetail("required_role", string(floor)).withDetail("role", string(have))
}

// caller resolves the request's API key or, without one, its session (a
// dashboard sub-request's session acting in the workspace its page names);
// nil when neither is present and valid.
func (s *Server) caller(r *http.Request) (*projections.Principal, error) {
	if raw := r.Header.Get("x-api-key"); raw != "" {
		return s.principal(r.Context(), raw)
	}
	if ws, ok := r.Context().Value(dashboardKey{}).(string); ok {
		return s.dashboardPrincipal(r, ws)
	}
	return s.sessionPrincipal(r)
}

// withPrincipal records p as the request's caller, and as the actor of
// the events its commands append.
func withPrincipal(ctx context.Context, p projections.Principal) context.Context {
	ctx = context.WithValue(ctx, keyPrincipal, p)
	return event.WithMetadata(ctx, event.Metadata{OrgID: p.OrgID, Actor: p.Actor(), RequestID: requestID(ctx)})
}

// workspaceAccess is a workspace route's workspace and the caller's role
// in it.
type workspaceAccess struct {
	ws   projections.WorkspaceRow
	role Role
}

type workspaceKey struct{}

func workspaceOf(ctx context.Context) workspaceAccess {
	a, _ := ctx.Value(workspaceKey{}).(workspaceAccess)
	return a
}

// errWorkspaceNotFound reveals nothing of a workspace the caller may not
// see, whether it exists or not.
func errWorkspaceNotFound() *apiError {
	return newError(http.StatusNotFound, "not_found", "No such workspace.")
}

// inWorkspace guards /api/workspaces/{id}/...: the caller (key or session),
// then the workspace {id} and the caller's role in it, at least floor. A
// workspace of another organization the caller is not a member of is 404;
// one of the caller's organization they may not act in is 403 forbidden.
func (s *Server) inWorkspace(floor Role, h handlerFunc) http.Handler {
	return s.platform("", func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		p, _ := principalOf(ctx)
		id := mux.Vars(r)["id"]
		if uuid.Validate(id) != nil {
			return errWorkspaceNotFound()
		}
		ws, err := s.queries.Workspace(ctx, id)
		if errors.Is(err, projections.ErrNotFound) {
			return errWorkspaceNotFound()
		}
		if err != nil {
			return err
		}
		role, err := s.roleIn(ctx, p, ws)
		if err != nil {
			return err
		}
		switch {
		case role == "" && ws.OrgID != p.OrgID:
			return errWorkspaceNotFound()
		case role == "":
			return newError(http.StatusForbidden, "forbidden", "You are not a member of this workspace.")
		case floor != "" && !role.AtLeast(floor):
			return forbidden(floor, role)
		}
		ctx = context.WithValue(ctx, workspaceKey{}, workspaceAccess{ws: ws, role: role})
		m := event.MetadataFrom(ctx)
		m.OrgID = ws.OrgID
		return h(w, r.WithContext(event.WithMetadata(ctx, m)))
	})
}

// roleIn is p's role in ws: a key's role in its own workspace, an owner
// key's in every workspace of its organization; a user's membership's, or
// owner in every workspace of the organization whose default workspace
// they own. "" when none.
func (s *Server) roleIn(ctx context.Context, p projections.Principal, ws projections.WorkspaceRow) (Role, error) {
	if p.KeyID != "" {
		switch {
		case ws.OrgID != p.OrgID:
			return "", nil
		case ws.ID == p.WorkspaceID:
			return p.Role, nil
		case p.Role == apikey.Owner:
			return apikey.Owner, nil
		}
		return "", nil
	}
	role, err := s.queries.MemberRole(ctx, ws.ID, p.UserID)
	if err != nil || role != "" {
		return role, err
	}
	if ws.OrgID == p.OrgID && p.Role == apikey.Owner {
		return apikey.Owner, nil
	}
	return "", nil
}
