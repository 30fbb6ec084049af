package httpapi

import (
	"errors"
	"net/http"
	"time"

	"svc/domain/invite"
	"svc/domain/workspace"
	"svc/projections"
)

// Invite previews (beyond spec B; docs/decisions.md): what an invite's
// token offers, read from the invites read model without using it.

// Preview limits: previews per client IP in a sliding window. Only
// refusals count (a preview that answers gives its count back), so page
// reloads never reach it and guessing tokens does.
const (
	invitePreviewsPerIP    = 20
	invitePreviewWindow    = 15 * time.Minute
	invitePreviewLimitText = "Too many invitation checks from this address; wait before retrying."
)

// invitePreviewBody is the body of POST /api/invites/preview: the token,
// in the body so it stays out of URLs and access logs.
type invitePreviewBody struct {
	Token *string `json:"token"`
}

// invitePreviewResponse is the answer of POST /api/invites/preview.
type invitePreviewResponse struct {
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Role          Role   `json:"role"`
	// Kind is link (anyone with the token) or email (one use, by the
	// account of the address it was sent to).
	Kind string `json:"kind"`
	// InvitedBy is the inviting user's name, else their email; null for
	// an invite an API key created or a user no longer known.
	InvitedBy *string   `json:"invited_by"`
	ExpiresAt time.Time `json:"expires_at"`
}

// inviteError maps an invite's refusal of its token: accept's and the
// preview's invite_not_found and invite_expired.
func inviteError(err error) error {
	switch {
	case errors.Is(err, invite.ErrNotFound), errors.Is(err, projections.ErrNotFound):
		return newError(http.StatusNotFound, "invite_not_found", "This invitation does not exist, was revoked or is used up.")
	case errors.Is(err, invite.ErrExpired):
		return newError(http.StatusGone, "invite_expired", "This invitation has expired.").withFix("Ask a workspace admin for a new one.")
	}
	return err
}

// previewInvite is POST /api/invites/preview (no credentials): the
// workspace, role, inviter and expiry an invite's token offers, refused
// where accepting it would be refused for anyone (revoked, used up,
// expired, the workspace archived or full), with accept's codes. It writes
// nothing; an unknown token learns only invite_not_found.
func (s *Server) previewInvite(w http.ResponseWriter, r *http.Request) error {
	var body invitePreviewBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	if body.Token == nil || *body.Token == "" {
		return errMissingField("token")
	}
	ctx := r.Context()
	limitKey := "invite-preview:ip:" + clientIP(ctx)
	if err := s.limit(ctx, limitKey, invitePreviewsPerIP, invitePreviewWindow, invitePreviewLimitText); err != nil {
		return err
	}
	out, err := s.invitePreview(r, *body.Token)
	if err != nil {
		return err
	}
	s.undo(ctx, limitKey)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// invitePreview reads token's invite and decides as accepting would.
func (s *Server) invitePreview(r *http.Request, token string) (invitePreviewResponse, error) {
	id, err := invite.ParseToken(token)
	if err != nil {
		return invitePreviewResponse{}, inviteError(err)
	}
	row, err := s.queries.InvitePreview(r.Context(), id)
	if err != nil {
		return invitePreviewResponse{}, inviteError(err)
	}
	if err := row.Standing.Check(token, time.Now()); err != nil {
		return invitePreviewResponse{}, inviteError(err)
	}
	switch {
	case row.Archived:
		return invitePreviewResponse{}, membershipError(workspace.ErrArchived, "")
	case row.Members >= workspace.LimitOf(row.Tier).Members:
		return invitePreviewResponse{}, membershipError(workspace.ErrMemberLimit, "")
	}
	out := invitePreviewResponse{WorkspaceID: row.WorkspaceID, WorkspaceName: row.WorkspaceName, Role: row.Role, Kind: row.Kind,
		ExpiresAt: row.ExpiresAt.UTC()}
	switch {
	case row.InviterName != nil && *row.InviterName != "":
		out.InvitedBy = row.InviterName
	case row.InviterEmail != nil:
		out.InvitedBy = row.InviterEmail
	}
	return out, nil
}
