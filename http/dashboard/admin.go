package dashboard

import (
	"html/template"
	"net/http"

	"svc/domain/apikey"
)

// The admin pages: API keys (the raw key shown once, revoke), webhooks
// with their delivery log, the audit log, notifications, data deletion.

// adminRoutes are the API routes the admin pages call.
var adminRoutes = map[string]apikey.Role{
	"workspaces.keys.list": apikey.Member, "workspaces.webhooks.list": apikey.Member,
	"workspaces.audit_log": apikey.Admin, "data.delete_requests": apikey.Owner,
}

// adminSentences are the error codes of adminRoutes not in coreSentences.
var adminSentences = map[string]string{}

// adminFuncs are the template functions of the admin pages.
var adminFuncs = template.FuncMap{}

func (h *Handler) adminPages(m *http.ServeMux) {}
