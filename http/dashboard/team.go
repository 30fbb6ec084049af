package dashboard

import (
	"html/template"
	"net/http"

	"svc/domain/apikey"
)

// The team pages: the workspace (name, members, invites and invite links,
// budget, model policy) and accepting an invite.

// teamRoutes are the API routes the team pages call.
var teamRoutes = map[string]apikey.Role{
	"workspaces.members.list": "",
}

// teamSentences are the error codes of teamRoutes not in coreSentences.
var teamSentences = map[string]string{}

// teamFuncs are the template functions of the team pages.
var teamFuncs = template.FuncMap{}

func (h *Handler) teamPages(m *http.ServeMux) {}
