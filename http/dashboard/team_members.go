package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The members page: the workspace's members (users and API keys), adding
// one by email (admin), changing a role (owner), removing one (admin,
// after a confirmation step), and the invite links (admin): create, copy,
// revoke.

// teamMember is a member as GET /api/workspaces/{id}/members answers it.
type teamMember struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	KeyPrefix string    `json:"key_prefix"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// Who is the member as a row names it.
func (m teamMember) Who() string {
	switch {
	case m.Type == "api_key":
		return "API key " + m.KeyPrefix + "…"
	case m.Name != "" && m.Name != m.Email:
		return m.Name + " (" + m.Email + ")"
	}
	return m.Email
}

// teamLink is an invite link as GET .../invites answers it.
type teamLink struct {
	InviteID      string    `json:"invite_id"`
	URL           string    `json:"url"`
	Role          string    `json:"role"`
	ExpiresAt     time.Time `json:"expires_at"`
	MaxUses       *int      `json:"max_uses"`
	UsesRemaining *int      `json:"uses_remaining"`
	CreatedAt     time.Time `json:"created_at"`
}

// Expired reports whether the link can no longer be used.
func (l teamLink) Expired() bool { return time.Now().After(l.ExpiresAt) }

// UsedUp reports whether the link has no use left.
func (l teamLink) UsedUp() bool { return l.UsesRemaining != nil && *l.UsesRemaining <= 0 }

// teamMembersData is the members page's.
type teamMembersData struct {
	WorkspaceName string
	Archived      bool
	Self          string // the user's id: no role change or removal on their own row
	Rows          []teamMember
	Links         []teamLink
	New           string // the invite link just created
	Roles         []option
	// what the user may do (their role reaches the route's floor)
	CanAdd, CanRole, CanRemove, CanInvite bool
	// a refused form's values, shown back
	Email, Role, LinkRole, MaxUses, Days string
}

// teamMembersView reads the members page's data: false when the API refused
// the workspace or its members (the refusal is shown).
func (h *Handler) teamMembersView(w http.ResponseWriter, r *http.Request, id Identity) (view, *teamMembersData, bool) {
	me := h.loadChrome(r, id)
	ws, ok := h.teamLoadWorkspace(w, r, id, me)
	if !ok {
		return view{}, nil, false
	}
	d := &teamMembersData{WorkspaceName: ws.Name, Archived: ws.ArchivedAt != nil, Self: id.UserID, Roles: teamRoles,
		CanAdd: id.may("workspaces.members.add"), CanRole: id.may("workspaces.members.role"),
		CanRemove: id.may("workspaces.members.remove"), CanInvite: id.may("workspaces.invites.create"),
		New: r.URL.Query().Get("new"), Role: "member", LinkRole: "member"}
	var list struct {
		Members []teamMember `json:"members"`
	}
	rep := h.api.Call(r, "", http.MethodGet, id.api("/members"), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, me, p)
		return view{}, nil, false
	}
	decode(rep, &list)
	d.Rows = list.Members
	v := view{Title: "Members of " + ws.Name, Me: me, Data: d, Notice: teamMembersNotice(r.URL.Query())}
	if d.CanInvite {
		var links struct {
			Invites []teamLink `json:"invites"`
		}
		rep := h.api.Call(r, "", http.MethodGet, id.api("/invites"), nil)
		if p, bad := failed(rep); bad {
			v.Problem = p
		}
		decode(rep, &links)
		d.Links = links.Invites
	}
	return v, d, true
}

// teamMembersNotice is the notice of done= after a form.
func teamMembersNotice(q url.Values) string {
	who := q.Get("email")
	if len(who) > 254 || !strings.Contains(who, "@") || strings.ContainsAny(who, " \t\r\n") {
		who = "the address"
	}
	switch q.Get("done") {
	case "added":
		return who + " has an account and was added to the workspace."
	case "invited":
		return "We emailed an invitation to " + who + ". It is valid for 7 days."
	case "role":
		return "The role was changed."
	case "removed":
		return "The member was removed from the workspace."
	case "link":
		return "The invite link was created: copy it below and send it to the people you invite."
	case "revoked":
		return "The invite link was revoked: it no longer works."
	}
	return ""
}

// teamMembersPage is GET /dashboard/workspace/members.
func (h *Handler) teamMembersPage(w http.ResponseWriter, r *http.Request, id Identity) {
	if v, _, ok := h.teamMembersView(w, r, id); ok {
		h.render(w, r, http.StatusOK, "team_members", v)
	}
}

// teamMembersRefused shows the members page again with a form's refusal
// and its values (fill).
func (h *Handler) teamMembersRefused(w http.ResponseWriter, r *http.Request, id Identity, p *problem, fill func(*teamMembersData)) {
	v, d, ok := h.teamMembersView(w, r, id)
	if !ok {
		return
	}
	if fill != nil {
		fill(d)
	}
	h.teamRefused(w, r, "team_members", v, p)
}

const teamMembersPath = "/dashboard/workspace/members"

// teamAddMember is POST /dashboard/workspace/members (admin): POST
// .../members, which adds a user with an account and emails anyone else.
func (h *Handler) teamAddMember(w http.ResponseWriter, r *http.Request, id Identity) {
	email, role := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("role")
	rep := h.api.Call(r, "", http.MethodPost, id.api("/members"), map[string]string{"email": email, "role": role})
	if p, bad := failed(rep); bad {
		h.teamMembersRefused(w, r, id, p, func(d *teamMembersData) { d.Email, d.Role = email, role })
		return
	}
	var out struct {
		Email  string `json:"email"`
		Status string `json:"status"`
	}
	decode(rep, &out)
	done := "invited"
	if out.Status == "added" {
		done = "added"
	}
	target := wsQuery(teamMembersPath, workspaceParam(r))
	http.Redirect(w, r, target+sepOf(target)+"done="+done+"&email="+url.QueryEscape(out.Email), http.StatusSeeOther)
}

// teamChangeRole is POST /dashboard/workspace/members/{member}/role (owner).
func (h *Handler) teamChangeRole(w http.ResponseWriter, r *http.Request, id Identity) {
	h.teamMemberCall(w, r, id, http.MethodPatch, map[string]string{"role": r.PostFormValue("role")}, "role")
}

// teamMemberCall sends method (with body) to the member of the page's
// path, then goes back to the members with done; a member who is gone
// reads as such.
func (h *Handler) teamMemberCall(w http.ResponseWriter, r *http.Request, id Identity, method string, body any, done string) {
	rep := h.api.Call(r, "", method, id.api("/members/"+url.PathEscape(r.PathValue("member"))), body)
	if p, bad := failed(rep); bad {
		if p.Code == "not_found" {
			p.Sentence = "That member is no longer in this workspace."
		}
		h.teamMembersRefused(w, r, id, p, nil)
		return
	}
	teamBack(w, r, teamMembersPath, done)
}

// teamRemoveConfirm is GET /dashboard/workspace/members/{member}/remove: the
// teamConfirm step before removing a member.
func (h *Handler) teamRemoveConfirm(w http.ResponseWriter, r *http.Request, id Identity) {
	v, d, ok := h.teamMembersView(w, r, id)
	if !ok {
		return
	}
	if !d.CanRemove {
		h.errorPage(w, r, v.Me, http.StatusForbidden, sentence("forbidden"))
		return
	}
	target := r.PathValue("member")
	for _, m := range d.Rows {
		if m.ID == target && m.Type == "user" {
			h.render(w, r, http.StatusOK, "team_confirm", view{Title: "Remove " + m.Email, Me: v.Me, Data: teamConfirm{
				Heading: "Remove " + m.Who() + " from " + d.WorkspaceName + "?",
				Text:    "They lose access to the workspace at once. Their workflows stay. They can be invited again.",
				Action:  teamMembersPath + "/" + url.PathEscape(m.ID) + "/remove", Button: "Remove the member", Cancel: teamMembersPath}})
			return
		}
	}
	h.errorPage(w, r, v.Me, http.StatusNotFound, "That member is no longer in this workspace.")
}

// teamRemoveMember is POST /dashboard/workspace/members/{member}/remove
// (admin): DELETE .../members/{member}.
func (h *Handler) teamRemoveMember(w http.ResponseWriter, r *http.Request, id Identity) {
	h.teamMemberCall(w, r, id, http.MethodDelete, nil, "removed")
}

// teamCreateLink is POST /dashboard/workspace/invites (admin): a new
// invite link, then the page with the link to copy.
func (h *Handler) teamCreateLink(w http.ResponseWriter, r *http.Request, id Identity) {
	role, uses, days := r.PostFormValue("role"), strings.TrimSpace(r.PostFormValue("max_uses")), strings.TrimSpace(r.PostFormValue("expires_in_days"))
	body := map[string]any{"role": role}
	for field, v := range map[string]string{"max_uses": uses, "expires_in_days": days} {
		if v != "" {
			body[field] = teamNumber(v)
		}
	}
	rep := h.api.Call(r, "", http.MethodPost, id.api("/invites"), body)
	if p, bad := failed(rep); bad {
		h.teamMembersRefused(w, r, id, p, func(d *teamMembersData) { d.LinkRole, d.MaxUses, d.Days = role, uses, days })
		return
	}
	var out teamLink
	decode(rep, &out)
	target := wsQuery(teamMembersPath, workspaceParam(r))
	http.Redirect(w, r, target+sepOf(target)+"done=link&new="+url.QueryEscape(out.InviteID)+"#invite-links", http.StatusSeeOther)
}

// teamNumber is a form's whole number as the API reads it; anything else is
// sent as it was typed, for the API to refuse with its field.
func teamNumber(v string) any {
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return v
}

// teamRevokeLink is POST /dashboard/workspace/invites/{invite}/revoke
// (admin).
func (h *Handler) teamRevokeLink(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, "", http.MethodDelete, id.api("/invites/"+url.PathEscape(r.PathValue("invite"))), nil)
	if p, bad := failed(rep); bad {
		if p.Code == "not_found" {
			p.Sentence = "That invite link no longer exists."
		}
		h.teamMembersRefused(w, r, id, p, nil)
		return
	}
	teamBack(w, r, teamMembersPath, "revoked")
}
