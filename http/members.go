package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/invite"
	"svc/domain/org"
	"svc/domain/user"
	"svc/domain/workspace"
)

// memberBody is a member as spec B shows it: a user or an API key.
type memberBody struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Email     string    `json:"email,omitempty"`
	Name      string    `json:"name,omitempty"`
	KeyPrefix string    `json:"key_prefix,omitempty"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// listMembers is GET /api/workspaces/{id}/members.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rows, err := s.queries.Members(ctx, workspaceOf(ctx).ws.ID)
	if err != nil {
		return err
	}
	out := make([]memberBody, 0, len(rows))
	for _, m := range rows {
		out = append(out, memberBody{ID: m.ID, Type: m.Type, Email: m.Email, Name: m.Name, KeyPrefix: m.KeyPrefix, Role: m.Role, CreatedAt: m.CreatedAt})
	}
	writeJSON(w, http.StatusOK, membersResponse{Members: out})
	return nil
}

type addMemberBody struct {
	Email *string `json:"email"`
	Role  *string `json:"role"`
}

// inviteBody is the answer of POST .../members: an email invite, or, for
// a user who has an account, their membership (status "added", no
// invite).
type inviteBody struct {
	InviteID  *string    `json:"invite_id"`
	Email     string     `json:"email"`
	Role      Role       `json:"role"`
	ExpiresAt *time.Time `json:"expires_at"`
	Status    string     `json:"status"` // "invited" or "added"
	MemberID  string     `json:"member_id,omitempty"`
}

// assignableRole reads a body's role: viewer, member or admin.
func assignableRole(v *string) (Role, error) {
	if v == nil || *v == "" {
		return "", errMissingField("role")
	}
	role, err := workspace.AssignableRole(*v)
	if err != nil {
		return "", platformField("role", "viewer, member or admin")
	}
	return role, nil
}

// membershipError maps the membership rules' refusals.
func membershipError(err error, tier org.Tier) error {
	switch {
	case errors.Is(err, workspace.ErrAlreadyMember), errors.Is(err, invite.ErrAlreadyMember):
		return newError(http.StatusConflict, "already_member", "This user is already a member of the workspace.")
	case errors.Is(err, workspace.ErrMemberLimit):
		e := newError(http.StatusPaymentRequired, "member_limit_reached", "The workspace has as many members as its plan allows.").
			withFix("Upgrade the plan with POST /api/billing/subscribe.")
		if tier != "" { // unknown to an invitee accepting: no limit rather than a wrong one
			e = e.withDetail("limit", workspace.LimitOf(tier).Members)
		}
		return e
	case errors.Is(err, workspace.ErrMemberNotFound):
		return newError(http.StatusNotFound, "not_found", "No such member in this workspace.")
	case errors.Is(err, workspace.ErrCannotDemoteSelf):
		return newError(http.StatusBadRequest, "cannot_demote_self", "You cannot lower your own role.")
	case errors.Is(err, workspace.ErrLastOwner):
		return newError(http.StatusBadRequest, "cannot_remove_last_owner", "The workspace's last owner cannot be removed or demoted.")
	case errors.Is(err, workspace.ErrArchived):
		return newError(http.StatusBadRequest, "invalid_body", "The workspace is archived; restore it first.")
	}
	return err
}

// addMember is POST /api/workspaces/{id}/members: a user with an account
// joins at once; anyone else gets an email invite.
func (s *Server) addMember(w http.ResponseWriter, r *http.Request) error {
	var body addMemberBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if body.Email == nil || strings.TrimSpace(*body.Email) == "" {
		return errMissingField("email")
	}
	email := strings.TrimSpace(*body.Email)
	if org.ValidateEmail(email) != nil {
		return platformField("email", "not a valid email address")
	}
	role, err := assignableRole(body.Role)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := workspaceOf(ctx)
	joined, err := s.commands.AddMember.Handle(ctx, commands.AddMember{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Email: email, Role: role})
	if err == nil {
		writeJSON(w, http.StatusCreated, inviteBody{Email: joined.Email, Role: role, Status: "added", MemberID: joined.UserID})
		return nil
	}
	if !errors.Is(err, user.ErrNotFound) {
		return membershipError(err, a.ws.Tier)
	}
	p, _ := principalOf(ctx)
	inv, err := s.commands.CreateInvite.Handle(ctx, commands.CreateInvite{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, Kind: invite.Email,
		Email: email, Role: role, CreatedBy: p.Actor()})
	if err != nil {
		return membershipError(err, a.ws.Tier)
	}
	writeJSON(w, http.StatusCreated, inviteBody{InviteID: &inv.InviteID, Email: org.NormalizeEmail(email), Role: role,
		ExpiresAt: &inv.ExpiresAt, Status: "invited"})
	return nil
}

type roleBody struct {
	Role *string `json:"role"`
}

// changeMemberRole is PATCH /api/workspaces/{id}/members/{member_id}.
func (s *Server) changeMemberRole(w http.ResponseWriter, r *http.Request) error {
	var body roleBody
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
	memberID := mux.Vars(r)["member_id"]
	_, err = s.commands.ChangeMemberRole.Handle(ctx, commands.ChangeMemberRole{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID,
		ActorUserID: p.UserID, MemberID: memberID, Role: role})
	if err != nil {
		return membershipError(err, a.ws.Tier)
	}
	writeJSON(w, http.StatusOK, memberRoleResponse{MemberID: memberID, Role: role})
	return nil
}

// removeMember is DELETE /api/workspaces/{id}/members/{member_id}.
func (s *Server) removeMember(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := workspaceOf(ctx)
	_, err := s.commands.RemoveMember.Handle(ctx, commands.RemoveMember{OrgID: a.ws.OrgID, WorkspaceID: a.ws.ID, MemberID: mux.Vars(r)["member_id"]})
	if err != nil {
		return membershipError(err, a.ws.Tier)
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true})
	return nil
}
