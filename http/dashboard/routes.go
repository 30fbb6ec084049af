package dashboard

import (
	"maps"

	"svc/domain/apikey"
)

// routes are the API routes the dashboard calls, by name, with the role
// each needs ("" for any signed-in user): a page offers an action only to
// a role that reaches its route's floor. The API's tests hold this table
// to the routes' own floors, and require a sentence (apierr.go) for every
// error code these routes answer.
var routes = merged(coreRoutes, moneyRoutes, teamRoutes, adminRoutes)

// coreRoutes are the routes of the sign-in and workflow pages.
var coreRoutes = map[string]apikey.Role{
	"auth.signup": "", "auth.login": "", "auth.logout": "", "auth.refresh": "", "user.me": "", "workspaces.list": "",
	"billing.balance": "", "rigor.task_types": "", "notifications.list": "", "notifications.count": "", "notifications.read": "",
	"rigor.workflows": apikey.Viewer, "rigor.plan": apikey.Viewer, "rigor.status": apikey.Viewer,
	"rigor.execute": apikey.Member, "rigor.step": apikey.Member, "rigor.resume": apikey.Member,
	"rigor.approve": apikey.Admin, "rigor.workflows.actions": apikey.Admin,
	"workspaces.folders.list": "", "workspaces.folders.create": apikey.Member,
	"workspaces.folders.workflows.add": apikey.Member,
	"workspaces.folders.rename":        apikey.Member, "workspaces.folders.delete": apikey.Member,
	"rigor.connections": apikey.Viewer, "rigor.connections.create": apikey.Admin, "rigor.connections.update": apikey.Admin,
	"rigor.connections.test": apikey.Member, "rigor.connections.delete": apikey.Admin, "auth.mcp.initiate": apikey.Admin,
}

// merged is the union of ms: each page area declares its own routes and
// sentences. Two areas may name the same route or code with the same
// value; with different ones (one would silently win) it panics at start,
// which every test of the package shows.
func merged[V comparable](ms ...map[string]V) map[string]V {
	out := map[string]V{}
	for _, m := range ms {
		for k, v := range m {
			if w, dup := out[k]; dup && w != v {
				panic("dashboard: two page areas declare " + k + " differently")
			}
			out[k] = v
		}
	}
	return out
}

// Routes returns the routes the dashboard calls and the role it expects
// each to need.
func Routes() map[string]apikey.Role { return maps.Clone(routes) }

// may reports whether id's role reaches the floor of route.
// A route the table does not name is offered to no one.
func (id Identity) may(route string) bool {
	floor, ok := routes[route]
	return ok && id.Can(floor)
}
