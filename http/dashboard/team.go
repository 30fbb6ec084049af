package dashboard

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/domain/workspace"
)

// The team pages: the workspace (name, members, invites and invite links,
// budget, model policy) and accepting an invite.

// teamRoutes are the API routes the team pages call.
var teamRoutes = map[string]apikey.Role{
	// the workspace
	"workspaces.get": "", "workspaces.create": "", "workspaces.rename": apikey.Admin,
	"workspaces.archive": apikey.Admin, "workspaces.restore": apikey.Owner,
	// members and invites
	"workspaces.members.list": "", "workspaces.members.add": apikey.Admin,
	"workspaces.members.role": apikey.Owner, "workspaces.members.remove": apikey.Admin,
	"workspaces.invites.create": apikey.Admin, "workspaces.invites.list": apikey.Admin,
	"workspaces.invites.revoke": apikey.Admin, "invites.accept": "", "invites.preview": "", "auth.signup": "",
	// settings
	"workspaces.budget.get": "", "workspaces.budget.set": apikey.Admin,
	"workspaces.llm_policy.get": "", "workspaces.llm_policy.set": apikey.Admin,
}

// teamSentences are the error codes of teamRoutes not in coreSentences.
var teamSentences = map[string]string{
	"already_member":           "This person is already a member of the workspace.",
	"member_limit_reached":     "The workspace has as many members as its plan allows. Upgrade the plan to add more.",
	"cannot_demote_self":       "You cannot lower your own role. Ask another owner to do it.",
	"cannot_remove_last_owner": "The workspace's last owner can be neither removed nor demoted.",
	"workspace_limit_reached":  "Your plan's limit of workspaces is reached. Archive one, or upgrade the plan.",
	"invite_not_found": "This invitation does not exist, was revoked or is used up. An invitation sent by email " +
		"can only be accepted by the account of the address it was sent to.",
	"invite_expired": "This invitation has expired. Ask an admin of the workspace for a new one.",
	"not_archived":   "This workspace is not archived.",
}

// teamFuncs are the template functions of the team pages.
var teamFuncs = template.FuncMap{
	"teamRole": teamRole,
	"teamHas":  func(list []string, s string) bool { return slices.Contains(list, s) },
	"teamDeref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}

// teamPages registers the team pages: the workspace and its sub-pages
// (team_workspace.go, team_members.go, team_settings.go) and the invite
// (team_invite.go).
func (h *Handler) teamPages(m *http.ServeMux) {
	m.HandleFunc("GET /dashboard/workspace", h.signedIn(h.teamWorkspacePage))
	m.HandleFunc("POST /dashboard/workspace/rename", h.signedIn(h.teamRename))
	m.HandleFunc("POST /dashboard/workspace/create", h.signedIn(h.teamCreate))
	m.HandleFunc("GET /dashboard/workspace/archive", h.signedIn(h.teamArchiveConfirm))
	m.HandleFunc("POST /dashboard/workspace/archive", h.signedIn(h.teamArchive))
	m.HandleFunc("POST /dashboard/workspace/restore", h.signedIn(h.teamRestore))
	m.HandleFunc("GET /dashboard/workspace/members", h.signedIn(h.teamMembersPage))
	m.HandleFunc("POST /dashboard/workspace/members", h.signedIn(h.teamAddMember))
	m.HandleFunc("POST /dashboard/workspace/members/{member}/role", h.signedIn(h.teamChangeRole))
	m.HandleFunc("GET /dashboard/workspace/members/{member}/remove", h.signedIn(h.teamRemoveConfirm))
	m.HandleFunc("POST /dashboard/workspace/members/{member}/remove", h.signedIn(h.teamRemoveMember))
	m.HandleFunc("POST /dashboard/workspace/invites", h.signedIn(h.teamCreateLink))
	m.HandleFunc("POST /dashboard/workspace/invites/{invite}/revoke", h.signedIn(h.teamRevokeLink))
	m.HandleFunc("GET /dashboard/workspace/settings", h.signedIn(h.teamSettingsPage))
	m.HandleFunc("POST /dashboard/workspace/budget", h.signedIn(h.teamSetBudget))
	m.HandleFunc("POST /dashboard/workspace/llm-policy", h.signedIn(h.teamSetPolicy))
	m.HandleFunc("GET /dashboard/invite", h.teamInvitePage)
	m.HandleFunc("POST /dashboard/invite", h.signedIn(h.teamAccept))
	m.HandleFunc("POST /dashboard/invite/signup", h.teamInviteSignup)
}

// teamRoles are the roles an invite or a role change may give.
var teamRoles = keyRoles[:3] // every role of a key but owner: owners come from signup only (decision 88)

// teamRole is a role or a plan as the pages name it (viewer: Viewer).
func teamRole(role any) string {
	s := fmt.Sprint(role)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// teamManyWorkspaces reports whether tier lets an organization have more
// than its default workspace.
func teamManyWorkspaces(tier org.Tier) bool { return workspace.LimitOf(tier).Workspaces > 1 }

// teamBack sends the browser to page (of the workspace the form names) with
// a notice (done=what).
func teamBack(w http.ResponseWriter, r *http.Request, page, done string) {
	target := wsQuery(page, workspaceParam(r))
	if done != "" {
		target += sepOf(target) + "done=" + url.QueryEscape(done)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// teamRefused shows an API refusal on page name with the view v, at its
// status.
func (h *Handler) teamRefused(w http.ResponseWriter, r *http.Request, name string, v view, p *problem) {
	v.Problem = p
	h.render(w, r, p.Status, name, v)
}
