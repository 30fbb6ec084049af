package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Accepting an invite: invite links and invite emails point to
// /dashboard/invite?token=... (commands.InviteURL). The page first reads
// what the invite offers (POST /api/invites/preview: workspace, role,
// inviter, expiry) and names it, or says why the link cannot be used.
// Signed out, it offers to log in (and come back: ?next=) or to sign up
// on the spot; signed in, an Accept button posts the token to POST
// /api/invites/accept, then the page goes to the workspace joined.

// teamInviteOffer is what an invite offers, as the preview answers it.
type teamInviteOffer struct {
	WorkspaceID   string    `json:"workspace_id"`
	WorkspaceName string    `json:"workspace_name"`
	Role          string    `json:"role"`
	Kind          string    `json:"kind"`
	InvitedBy     *string   `json:"invited_by"`
	ExpiresAt     time.Time `json:"expires_at"`
}

// teamPreviewSentences are the invite page's own sentences for the
// preview's refusals: the link cannot be used, whoever opens it.
var teamPreviewSentences = map[string]string{
	"invite_not_found": "This invitation link does not work: it does not exist, was revoked by an admin of the workspace, " +
		"or has been used as many times as it allows. Ask an admin of the workspace for a new one.",
	"invite_expired": "This invitation has expired. Ask an admin of the workspace for a new one.",
	"member_limit_reached": "The workspace of this invitation has as many members as its plan allows, so it cannot be joined now. " +
		"Ask an admin of the workspace to make room or to upgrade the plan.",
	"invalid_body": "The workspace of this invitation is archived, so it cannot be joined. " +
		"Ask an owner of the workspace to restore it, or an admin for a new invitation.",
}

// teamPreview reads what token's invite offers. A refusal is a problem
// with the invite page's sentence; a server failure is neither (the page
// then offers Accept without naming the workspace, and accepting says
// what is wrong).
func (h *Handler) teamPreview(r *http.Request, token string) (*teamInviteOffer, *problem) {
	rep := h.api.Call(r, "", http.MethodPost, "/api/invites/preview", map[string]string{"token": token})
	if p, bad := failed(rep); bad {
		if p.Status >= http.StatusInternalServerError {
			h.log.WarnContext(r.Context(), "dashboard: invite preview failed", "status", p.Status, "request_id", p.RequestID)
			return nil, nil
		}
		if s, ok := teamPreviewSentences[p.Code]; ok {
			p.Sentence, p.Detail, p.Field = s, "", ""
		}
		return nil, p
	}
	var o teamInviteOffer
	if !decode(rep, &o) || o.WorkspaceName == "" {
		return nil, nil
	}
	return &o, nil
}

// teamInviteData is the invite page's.
type teamInviteData struct {
	Token string
	// Offer is what the invite offers (nil when the preview failed);
	// Joined: the signed-in user is in its workspace already.
	Offer    *teamInviteOffer
	Joined   bool
	SignedIn bool
	// Login is the login page that comes back here.
	Login string
	// Email is the signed-in user's address; signed out, the signup
	// form's, with Name.
	Email, Name string
}

// teamInviteBack is the invite page of token.
func teamInviteBack(token string) string { return "/dashboard/invite?token=" + url.QueryEscape(token) }

// teamInvitePage is GET /dashboard/invite?token=...: signed out, log in or
// sign up first; signed in, accept.
func (h *Handler) teamInvitePage(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimSpace(r.URL.Query().Get("token"))
	id, err := h.api.Identity(r, "")
	var me *chrome
	if err == nil {
		me = h.loadChrome(r, id)
	}
	if token == "" {
		h.errorPage(w, r, me, http.StatusBadRequest, "This invitation link is incomplete. Open the link exactly as it was sent to you.")
		return
	}
	offer, p := h.teamPreview(r, token)
	if p != nil {
		h.problemPage(w, r, me, p)
		return
	}
	d := &teamInviteData{Token: token, Offer: offer, Login: "/dashboard/login?next=" + url.QueryEscape(teamInviteBack(token))}
	switch {
	case err == nil:
		d.SignedIn, d.Email = true, me.Email
		d.Joined = offer != nil && slices.ContainsFunc(me.Workspaces, func(w wsOption) bool { return w.ID == offer.WorkspaceID })
	case errors.Is(err, ErrSignedOut), errors.Is(err, ErrNoWorkspace):
		r = ensureNonce(w, r)
	default:
		h.log.ErrorContext(r.Context(), "dashboard: identity", "error", err)
		h.errorPage(w, r, nil, http.StatusInternalServerError, sentence("internal_error"))
		return
	}
	h.render(w, r, http.StatusOK, "team_invite", view{Title: "Invitation", Me: me, Data: d})
}

// teamAccept is POST /dashboard/invite (signed in): POST
// /api/invites/accept, then the workspace joined.
func (h *Handler) teamAccept(w http.ResponseWriter, r *http.Request, id Identity) {
	token := strings.TrimSpace(r.PostFormValue("token"))
	rep := h.api.Call(r, "", http.MethodPost, "/api/invites/accept", map[string]string{"token": token})
	if p, bad := failed(rep); bad {
		if p.Code == "already_member" {
			p.Sentence = "You are already a member of this workspace."
		}
		me := h.loadChrome(r, id)
		offer, _ := h.teamPreview(r, token)
		d := &teamInviteData{Token: token, Offer: offer, SignedIn: true, Email: me.Email}
		h.teamRefused(w, r, "team_invite", view{Title: "Invitation", Me: me, Data: d}, p)
		return
	}
	var out struct {
		WorkspaceID string `json:"workspace_id"`
	}
	if !decode(rep, &out) || out.WorkspaceID == "" {
		h.errorPage(w, r, h.loadChrome(r, id), http.StatusBadGateway, sentence("internal_error"))
		return
	}
	http.Redirect(w, r, "/dashboard/workspace?ws="+url.QueryEscape(out.WorkspaceID)+"&done=joined", http.StatusSeeOther)
}

// teamInviteSignup is POST /dashboard/invite/signup (signed out): POST
// /api/auth/signup, then the invite page again, signed in.
func (h *Handler) teamInviteSignup(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimSpace(r.PostFormValue("token"))
	d := &teamInviteData{Token: token, Login: "/dashboard/login?next=" + url.QueryEscape(teamInviteBack(token)),
		Email: strings.TrimSpace(r.PostFormValue("email")), Name: strings.TrimSpace(r.PostFormValue("name"))}
	body := map[string]string{"email": d.Email, "password": r.PostFormValue("password")}
	if d.Name != "" {
		body["name"] = d.Name
	}
	rep := h.api.Call(r, "", http.MethodPost, "/api/auth/signup", body)
	if p, bad := failed(rep); bad {
		d.Offer, _ = h.teamPreview(r, token)
		h.teamRefused(w, r, "team_invite", view{Title: "Invitation", Data: d}, p)
		return
	}
	passCookies(w, rep)
	http.Redirect(w, r, teamInviteBack(token), http.StatusSeeOther)
}
