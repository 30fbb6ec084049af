package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/invite"
)

// inviteLink is an invite link as spec B shows it.
type inviteLink struct {
	InviteID      string    `json:"invite_id"`
	Token         string    `json:"token"`
	URL           string    `json:"url"`
	Role          Role      `json:"role"`
	ExpiresAt     time.Time `json:"expires_at"`
	MaxUses       *int      `json:"max_uses"`
	UsesRemaining *int      `json:"uses_remaining"`
	CreatedAt     time.Time `json:"created_at"`
}

type createLinkBody struct {
	Role          *string `json:"role"`
	MaxUses       *int    `json:"max_uses"`
	ExpiresInDays *int    `json:"expires_in_days"`
}

// createInviteLink is POST /api/workspaces/{id}/invites.
func (s *Server) createInviteLink(w http.ResponseWriter, r *http.Request) error {
	var body createLinkBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	role, err := assignableRole(body.Role)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	p, _ := principalOf(ctx)
	res, err := s.commands.CreateInvite.Handle(ctx, commands.CreateInvite{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Kind: invite.Link,
		Role: role, MaxUses: body.MaxUses, Days: body.ExpiresInDays, CreatedBy: p.Actor()})
	switch {
	case errors.Is(err, invite.ErrInvalidUses):
		return platformField("max_uses", "an integer from 1 to 10000, or absent for unlimited")
	case errors.Is(err, invite.ErrInvalidDays):
		return platformField("expires_in_days", "an integer from 1 to 365")
	case err != nil:
		return membershipError(err, a.ws.Tier)
	}
	writeJSON(w, http.StatusCreated, inviteLinkCreated{OK: true, InviteID: res.InviteID, Token: res.Token, URL: res.URL,
		Role: role, ExpiresAt: res.ExpiresAt, MaxUses: res.MaxUses})
	return nil
}

// listInviteLinks is GET /api/workspaces/{id}/invites: the links not
// revoked, expired and used-up ones included, newest first.
func (s *Server) listInviteLinks(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rows, err := s.queries.InviteLinks(ctx, workspaceOf(ctx).ws.ID)
	if err != nil {
		return err
	}
	out := make([]inviteLink, 0, len(rows))
	for _, row := range rows {
		raw, err := s.secrets.Open(row.TokenSealed)
		if err != nil {
			return err
		}
		l := inviteLink{InviteID: row.InviteID, Token: string(raw), URL: commands.InviteURL(s.cfg.BaseURL, string(raw)), Role: row.Role,
			ExpiresAt: row.ExpiresAt, MaxUses: row.MaxUses, CreatedAt: row.CreatedAt}
		if row.MaxUses != nil {
			left := max(*row.MaxUses-row.Uses, 0)
			l.UsesRemaining = &left
		}
		out = append(out, l)
	}
	writeJSON(w, http.StatusOK, inviteLinksResponse{OK: true, Invites: out})
	return nil
}

// revokeInvite is DELETE /api/workspaces/{id}/invites/{invite_id}.
func (s *Server) revokeInvite(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err := s.commands.RevokeInvite.Handle(ctx, commands.RevokeInvite{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, InviteID: mux.Vars(r)["invite_id"]})
	if errors.Is(err, invite.ErrNotFound) {
		return newError(http.StatusNotFound, "not_found", "No such invite in this workspace.")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, okResponse{OK: true})
	return nil
}

type acceptBody struct {
	Token *string `json:"token"`
}

// acceptInvite is POST /api/invites/accept (session): the signed-in user
// joins the invite's workspace.
func (s *Server) acceptInvite(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := s.sessionPrincipal(r)
	if err != nil {
		return err
	}
	if p == nil {
		return errNoSession
	}
	var body acceptBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if body.Token == nil || *body.Token == "" {
		return errMissingField("token")
	}
	ctx = withPrincipal(ctx, *p)
	res, err := s.commands.AcceptInvite.Handle(ctx, commands.AcceptInvite{Token: *body.Token, UserID: p.UserID})
	switch {
	case errors.Is(err, invite.ErrNotFound), errors.Is(err, invite.ErrExpired):
		return inviteError(err)
	case err != nil:
		return membershipError(err, "")
	}
	writeJSON(w, http.StatusOK, inviteAcceptedResponse{WorkspaceID: res.WorkspaceID, WorkspaceName: res.WorkspaceName, Role: res.Role})
	return nil
}
