package httpapi_test

import "svc/domain/apikey"

// noFolder is the path of a folder that does not exist, under a workspace.
const noFolder = "/folders/00000000-0000-4000-8000-000000000000"

// noWebhook is the path of a workspace webhook that does not exist.
const noWebhook = "/webhooks/00000000-0000-4000-8000-000000000000"

// noConnection is the path of a connection that does not exist.
const noConnection = "/api/rigor/connections/00000000-0000-4000-8000-000000000000"

// matrixExtras are role-matrix rows of routes added beside the workspace
// routes (folders, audit log ...), keyed "METHOD name"; w is the tested
// workspace's path.
func matrixExtras(w string) map[string]route {
	return map[string]route{
		// the suite's tool server (spec C)
		"GET mcp.manifest":         {path: "/api/mcp", spec: "open"},
		"POST mcp.call":            {path: "/api/mcp", spec: "C", body: map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}},
		"POST mcp.rigor":           {path: "/api/mcp/rigor", spec: "open"}, // anonymous rigor_plan: mcp_rigor_anon_test.go
		"GET workspaces.audit_log": {path: w + "/audit-log", floor: apikey.Admin, spec: "B", foreign: true},
		// folders: an unknown folder (404 at the floor), bodies missing a field
		"GET workspaces.folders.list":                {path: w + "/folders", spec: "B", foreign: true},
		"POST workspaces.folders.create":             {path: w + "/folders", floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"PATCH workspaces.folders.rename":            {path: w + noFolder, floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"DELETE workspaces.folders.delete":           {path: w + noFolder, floor: apikey.Member, spec: "B", foreign: true},
		"POST workspaces.folders.workflows.add":      {path: w + noFolder + "/workflows", floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"DELETE workspaces.folders.workflows.remove": {path: w + noFolder + "/workflows/wr_x", floor: apikey.Member, spec: "B", foreign: true},
		// billing through the processor: admin; at the floor a bad amount or tier, or no billing account, is 400
		"POST billing.checkout":  {path: "/api/billing/checkout", floor: apikey.Admin, spec: "B", body: map[string]any{"pack": 7}},
		"POST billing.subscribe": {path: "/api/billing/subscribe", floor: apikey.Admin, spec: "B", body: map[string]any{"tier": "gold"}},
		"POST billing.portal":    {path: "/api/billing/portal", floor: apikey.Admin, spec: "B"},
		"POST billing.webhook":   {path: "", spec: "open"}, // the processor's signature, not a key: its own tests
		// auto-reload: any role reads it; a PUT without enabled is 400 invalid_body at the floor
		"GET billing.auto_reload":        {path: "/api/billing/auto-reload", spec: "B"},
		"PUT billing.auto_reload_update": {path: "/api/billing/auto-reload", floor: apikey.Admin, spec: "B", body: map[string]any{}},
		// notifications: any role, the organization's; a PATCH without ids or all is 400 invalid_body
		"GET notifications.list":   {path: "/api/notifications", spec: "B"},
		"GET notifications.count":  {path: "/api/notifications/count", spec: "B"},
		"PATCH notifications.read": {path: "/api/notifications/read", spec: "B", body: map[string]any{}},
		// data deletion: the owner's; a confirmation without its fields is 400 missing_field at the floor
		"GET data.delete_requests":     {path: "/api/data/delete-request", floor: apikey.Owner, spec: "B"},
		"POST data.delete_request":     {path: "/api/data/delete-request", floor: apikey.Owner, spec: "B"},
		"DELETE data.confirm_deletion": {path: "/api/data/confirm-deletion", floor: apikey.Owner, spec: "B", body: map[string]any{}},
		// llm policy: the matrix's organization is on Enterprise; a PUT without allowed_models is 400 at the floor
		"GET workspaces.llm_policy.get": {path: w + "/llm-policy", spec: "B", foreign: true},
		"PUT workspaces.llm_policy.set": {path: w + "/llm-policy", floor: apikey.Admin, spec: "B", body: map[string]any{}, foreign: true},
		// budget: a PUT without monthly_credit_budget is 400 missing_field at the floor
		"GET workspaces.budget.get": {path: w + "/budget", spec: "B", foreign: true},
		"PUT workspaces.budget.set": {path: w + "/budget", floor: apikey.Admin, spec: "B", body: map[string]any{}, foreign: true},
		// workspace webhooks (the matrix's organization is on Enterprise): an unknown webhook, bodies missing a field
		"GET workspaces.webhooks.list":           {path: w + "/webhooks", floor: apikey.Member, spec: "B", foreign: true},
		"POST workspaces.webhooks.create":        {path: w + "/webhooks", floor: apikey.Admin, spec: "B", body: map[string]any{}, foreign: true},
		"PATCH workspaces.webhooks.update":       {path: w + noWebhook, floor: apikey.Admin, spec: "B", body: map[string]any{}, foreign: true},
		"DELETE workspaces.webhooks.delete":      {path: w + noWebhook, floor: apikey.Admin, spec: "B", foreign: true},
		"POST workspaces.webhooks.test":          {path: w + noWebhook + "/test", floor: apikey.Admin, spec: "B", foreign: true},
		"POST workspaces.webhooks.verify":        {path: w + noWebhook + "/verify", floor: apikey.Member, spec: "B", body: map[string]any{}, foreign: true},
		"POST workspaces.webhooks.rotate_secret": {path: w + noWebhook + "/rotate-secret", floor: apikey.Admin, spec: "B", foreign: true},
		"GET workspaces.webhooks.deliveries":     {path: w + noWebhook + "/deliveries", floor: apikey.Member, spec: "B", foreign: true},
		// the invite preview takes no credentials (its token is one): invite_preview_test.go
		"POST invites.preview": {path: "", spec: "open"},
		// context-server connections (spec A, not rate limited): at the floor a body missing its fields is 400, an unknown connection 404;
		// another organization's connection is 404 (connections_test.go)
		"GET rigor.connections":           {path: "/api/rigor/connections", floor: apikey.Viewer, spec: "A"},
		"POST rigor.connections.create":   {path: "/api/rigor/connections", floor: apikey.Admin, spec: "A", body: map[string]any{}},
		"PATCH rigor.connections.update":  {path: noConnection, floor: apikey.Admin, spec: "A", body: map[string]any{}, foreign: true},
		"POST rigor.connections.test":     {path: noConnection + "/test", floor: apikey.Member, spec: "A", foreign: true},
		"DELETE rigor.connections.delete": {path: noConnection, floor: apikey.Admin, spec: "A", foreign: true},
	}
}
