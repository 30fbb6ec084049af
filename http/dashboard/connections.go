package dashboard

import "net/http"

// connections is GET /dashboard/connections, where an MCP provider's
// OAuth flow returns (http/mcp_oauth.go: provider, status connected or
// error, reason): it says how the connection went. Managing connections
// is a later page.
func (h *Handler) connections(w http.ResponseWriter, r *http.Request, id Identity) {
	q := r.URL.Query()
	data := struct{ Provider, Status, Reason string }{q.Get("provider"), q.Get("status"), q.Get("reason")}
	h.render(w, r, http.StatusOK, "connections", view{Title: "Connections", Me: h.loadChrome(r, id), Data: data})
}
