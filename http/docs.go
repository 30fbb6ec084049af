package httpapi

import (
	"net/http"
	"sort"

	"github.com/gorilla/mux"
)

// endpoint describes one route for GET /docs.
type endpoint struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Auth        string `json:"auth"`
	Description string `json:"description"`
}

// routeDoc is what GET /docs says of a route beside its method and path.
type routeDoc struct{ auth, description string }

// Auth descriptions.
const (
	authNone    = "none"
	authKey     = "x-api-key"
	authEither  = "x-api-key or session cookie"
	authSession = "session cookie"
)

// routeDocs describes every route by its name; TestDocsListEveryRoute
// fails for a route missing here.
var routeDocs = map[string]routeDoc{
	"health":            {authNone, "Service, database and cache status; products; version."},
	"docs":              {authNone, "This reference, rendered from GET /openapi.json; with Accept: application/json this index."},
	"openapi":           {authNone, "The OpenAPI 3.1 document of every route."},
	"docs.asset":        {authNone, "The scripts of the rendered reference (the vendored renderer and its setup)."},
	"metrics":           {"loopback only", "Prometheus metrics."},
	"keys.create":       {authNone + " (3 per IP per 24 h)", "Sign up an organization with an owner API key (shown once) and 2,500 credits. Body: email?, name?."},
	"keys.verify":       {authKey, "Checks a key: org_id, is_paid."},
	"keys.verify_email": {authNone, "The link mailed by POST /api/keys: verifies the email and grants 2,500 credits once."},
	"auth.signup":       {authNone, "Sign up a user: their organization, default workspace and a session. Body: email, password (8+), name?."},
	"auth.login":        {authNone + " (limited per IP and per email)", "Start a session. Body: email, password."},
	"auth.logout":       {authSession, "End the session on every instance."},
	"auth.refresh":      {"refresh token (body or cookie)", "Rotate the session's tokens."},
	"auth.callback":     {authNone, "A mailed one-time link: verifies the email, signs in and redirects to next (a local path)."},
	"auth.mcp.initiate": {authEither + " (admin)", "Start an MCP provider's OAuth flow (PKCE). Body: provider, permission_mode?. Answers {authorization_url}."},
	"auth.mcp.callback": {authNone, "The provider's redirect: stores the token sealed and redirects to the dashboard."},
	"user.me":           {authEither, "The caller: user, email, display name and workspace memberships."},
	"invites.accept":    {authSession, "Accept an invite's token: join its workspace."},
	"invites.preview":   {authNone + " (refusals limited per IP)", "What an invite's token offers (workspace, role, inviter, expiry), without using it. Body: token."},

	"billing.balance":            {authKey, "Credit balance of the key's organization (1,000 credits = 1 USD)."},
	"billing.checkout":           {authKey + " (admin)", "A checkout page for credits: pack (10, 25, 100, 250 USD) or custom_amount (5-10,000). Answers {url}."},
	"billing.subscribe":          {authEither + " (admin)", "A checkout page for a subscription: tier, interval. Answers {url}."},
	"billing.portal":             {authEither + " (admin)", "The payment processor's portal for the organization. Answers {url}."},
	"billing.webhook":            {"Stripe-Signature", "The payment processor's events (subscriptions, purchases, auto-reload payments)."},
	"billing.auto_reload":        {authEither, "The auto-reload configuration."},
	"billing.auto_reload_update": {authEither + " (admin)", "Configure auto-reload: enabled, confirm, threshold, amount, monthly_limit?."},
	"notifications.list":         {authEither, "In-app notifications, newest first: unread_only?, limit?, cursor?."},
	"notifications.count":        {authEither, "Unread notifications."},
	"notifications.read":         {authEither, "Mark notifications read: notification_ids or all."},
	"data.delete_requests":       {authEither + " (owner)", "The organization's data deletion requests."},
	"data.delete_request":        {authEither + " (owner, 5 per day)", "Request the erasure of all of the organization's data: answers a confirmation token."},
	"data.confirm_deletion":      {authEither + " (owner)", "Confirm a deletion request (request_id, confirmation_token): keys and sessions stop, the data is erased."},

	"workspaces.list":                     {authEither, "Workspaces the caller may act in: include_archived?."},
	"workspaces.create":                   {authEither + " (Team, Enterprise)", "Create a workspace. Body: name."},
	"workspaces.get":                      {authEither, "A workspace."},
	"workspaces.rename":                   {authEither + " (admin)", "Rename a workspace (the slug stays). Body: name."},
	"workspaces.archive":                  {authEither + " (admin)", "Archive a workspace."},
	"workspaces.restore":                  {authEither + " (owner; Team, Enterprise)", "Restore an archived workspace."},
	"workspaces.members.list":             {authEither, "Members: users and API keys with their roles."},
	"workspaces.members.add":              {authEither + " (admin)", "Add a user by email, or mail them an invite. Body: email, role."},
	"workspaces.members.role":             {authEither + " (owner)", "Change a member's role. Body: role."},
	"workspaces.members.remove":           {authEither + " (admin)", "Remove a member."},
	"workspaces.keys.list":                {authEither + " (member)", "The workspace's API keys (never the raw key), with last_used_at."},
	"workspaces.keys.create":              {authEither + " (admin)", "Create an API key of the workspace (shown once). Body: label?, role?."},
	"workspaces.keys.revoke":              {authEither + " (admin)", "Revoke a key: refused from the next request on."},
	"workspaces.invites.create":           {authEither + " (admin)", "Create an invite link. Body: role, max_uses?, expires_in_days?."},
	"workspaces.invites.list":             {authEither + " (admin)", "Invite links."},
	"workspaces.invites.revoke":           {authEither + " (admin)", "Revoke an invite link."},
	"workspaces.folders.list":             {authEither, "Folders."},
	"workspaces.folders.create":           {authEither + " (member)", "Create a folder. Body: name."},
	"workspaces.folders.rename":           {authEither + " (member)", "Rename a folder. Body: name."},
	"workspaces.folders.delete":           {authEither + " (member)", "Delete a folder (its workflows are unfiled)."},
	"workspaces.folders.workflows.add":    {authEither + " (member)", "File workflows into a folder. Body: workflow_ids."},
	"workspaces.folders.workflows.remove": {authEither + " (member)", "Take a workflow out of a folder."},
	"workspaces.audit_log":                {authEither + " (admin)", "Security and admin events, newest first: limit?, cursor?, action?, actor?, resource_type?."},
	"workspaces.budget.get":               {authEither, "The monthly credit budget and this month's spend."},
	"workspaces.budget.set":               {authEither + " (admin; Team, Enterprise)", "Set or remove the monthly credit budget. Body: monthly_credit_budget."},
	"workspaces.llm_policy.get":           {authEither + " (Team, Enterprise)", "The model policy."},
	"workspaces.llm_policy.set":           {authEither + " (admin; Team, Enterprise)", "Set or remove the allowed models. Body: allowed_models."},
	"workspaces.webhooks.list":            {authEither + " (member; Pro+)", "Event webhooks of the workspace."},
	"workspaces.webhooks.create":          {authEither + " (admin; Pro+)", "Create an event webhook (secret shown once). Body: url, events, description?, active?."},
	"workspaces.webhooks.update":          {authEither + " (admin; Pro+)", "Change an event webhook."},
	"workspaces.webhooks.delete":          {authEither + " (admin; Pro+)", "Delete an event webhook."},
	"workspaces.webhooks.test":            {authEither + " (admin; Pro+)", "Send a signed test delivery."},
	"workspaces.webhooks.verify":          {authEither + " (member; Pro+)", "Check a payload against an X-Svc-Signature value."},
	"workspaces.webhooks.deliveries":      {authEither + " (member; Pro+)", "A webhook's deliveries, newest first. Query: limit? (1-100, 20), cursor?."},
	"workspaces.webhooks.rotate_secret":   {authEither + " (admin; Pro+)", "A new signing secret (shown once); the old one signs beside it for overlap_hours (24)."},

	"rigor.templates":           {authNone, "Workflow templates."},
	"rigor.task_types":          {authKey, "Task types the planner knows."},
	"rigor.enhance":             {"none or x-api-key", "Improve a task description (deterministic, or the llm tier for 270 credits)."},
	"rigor.plan":                {authKey + " (viewer)", "Classify a task and build a costed plan (free)."},
	"rigor.execute":             {authKey + " (member)", "Plan and run, or run a stored plan: SSE, polling or webhook delivery."},
	"rigor.step":                {authKey + " (member; Pro+)", "Drive an interactive workflow: next, skip, abort, feedback."},
	"rigor.resume":              {authKey + " (member)", "Resume a failed or halted workflow."},
	"rigor.approve":             {authKey + " (admin)", "Decide an approval gate."},
	"rigor.status":              {authKey + " (viewer)", "A workflow's status, steps and deliverable."},
	"rigor.workflows":           {authKey + " (viewer)", "The workflow listing: filters, search, cursor."},
	"rigor.workflows.actions":   {authKey + " (admin)", "Bulk actions on workflows (cancel)."},
	"rigor.lineage":             {authKey + " (viewer)", "A chained workflow's lineage."},
	"rigor.webhooks.deliveries": {authKey + " (viewer)", "A workflow's webhook deliveries."},
	"rigor.usage_summary":       {authKey + " (viewer)", "Credit usage by period, surface, key and workspace."},
	"rigor.costs":               {authKey + " (viewer)", "Costs grouped by period, task type, workspace or key."},
	"rigor.connections":         {authKey + " (viewer)", "Context-server connections this key sees, the providers it may connect and those coming soon."},
	"rigor.connections.create":  {authKey + " (admin)", "Register a context server. Body: display_name, scope, workspace_id?, server_url, auth_type, transport?, auth_credential?."},
	"rigor.connections.update":  {authKey + " (admin)", "Change a connection: display_name, label, auth_credential, permission_mode."},
	"rigor.connections.test":    {authKey + " (member)", "Resolve the host, refuse private addresses, then MCP initialize: active, or 400 and error."},
	"rigor.connections.delete":  {authKey + " (admin)", "Revoke a connection: its credential deleted, its record kept."},
	"mcp.manifest":              {authNone, "The suite's tool manifest (spec C): protocol, version, server and its tools with input schemas and hints."},
	"mcp.call":                  {authKey, "The suite's JSON-RPC 2.0 tool server (MCP, streamable HTTP, stateless): initialize, ping, tools/list, tools/call."},
	"mcp.rigor":                 {"x-api-key, or none for rigor_plan", "The workflow MCP server (spec A): rigor_plan, rigor_execute, rigor_status (and rigor_resume, rigor_approve, rigor_step by name), each its REST route; anonymous rigor_plan in a demo organization, 30 per minute and 500 per day per IP."},
}

// endpointsOf lists r's routes with their documentation, by path then
// method.
func endpointsOf(r *mux.Router) []endpoint {
	var out []endpoint
	_ = r.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := route.GetPathTemplate()
		methods, merr := route.GetMethods()
		if err != nil || merr != nil {
			return nil
		}
		d, _ := routeDocOf(route.GetName())
		for _, m := range methods {
			out = append(out, endpoint{Method: m, Path: path, Auth: d.auth, Description: d.description})
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// docs is GET /docs: the rendered reference (docs_ui.go) for a browser;
// with Accept: application/json (or no Accept header), an index of the
// API's routes. GET /openapi.json is the full document.
func (s *Server) docs(w http.ResponseWriter, r *http.Request) error {
	if wantsHTML(r.Header.Get("Accept")) {
		return s.docsHTML(w)
	}
	writeJSON(w, http.StatusOK, docsResponse{
		Service:        "svc",
		Version:        s.cfg.Version,
		Authentication: "Send your API key in the x-api-key header (Authorization: Bearer is not read); browser routes take the session cookie of POST /api/auth/login.",
		Errors:         "Errors answer {error:{code, message, request_id, fix?, details?}}; quote request_id to support.",
		Endpoints:      endpointsOf(s.router),
	})
	return nil
}

// docsResponse is the answer of GET /docs.
type docsResponse struct {
	Service        string     `json:"service"`
	Version        string     `json:"version"`
	Authentication string     `json:"authentication"`
	Errors         string     `json:"errors"`
	Endpoints      []endpoint `json:"endpoints"`
}

// routeDocOf is what GET /docs says of route name: routeDocs', or a suite
// operation's own (suiteOp.doc: its summary and note, and its price).
func routeDocOf(name string) (routeDoc, bool) {
	if d, ok := routeDocs[name]; ok {
		return d, true
	}
	for _, o := range documentedSuiteOps() {
		if o.action != name {
			continue
		}
		auth := authKey
		if o.floor != "" && o.floor != "viewer" {
			auth += " (" + string(o.floor) + ")"
		}
		desc := o.doc.summary + "."
		if o.doc.note != "" {
			desc += " " + o.doc.note
		}
		return routeDoc{auth, desc}, true
	}
	return routeDoc{}, false
}
