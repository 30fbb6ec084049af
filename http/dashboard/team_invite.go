package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// Accepting an invite: invite links and invite emails point to
// /dashboard/invite?token=... (commands.InviteURL). Signed out, the page
// offers to log in (and come back: ?next=) or to sign up on the spot;
// signed in, an Accept button posts the token to POST
// /api/invites/accept, then the page goes to the workspace joined.

// teamInviteData is the invite page's.
type teamInviteData struct {
	Token    string
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
	d := &teamInviteData{Token: token, Login: "/dashboard/login?next=" + url.QueryEscape(teamInviteBack(token))}
	switch {
	case err == nil:
		d.SignedIn, d.Email = true, me.Email
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
		d := &teamInviteData{Token: token, SignedIn: true, Email: me.Email}
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
		h.teamRefused(w, r, "team_invite", view{Title: "Invitation", Data: d}, p)
		return
	}
	passCookies(w, rep)
	http.Redirect(w, r, teamInviteBack(token), http.StatusSeeOther)
}
