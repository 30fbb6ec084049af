package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/org"
)

// route is one route of the role matrix: its path (with the test's ids)
// and the lowest role allowed ("" when any authenticated caller is).
type route struct {
	path  string
	floor apikey.Role
	body  any
	// spec is "A" or "C" (403 insufficient_permissions), "B" (403
	// forbidden), "open" (no credentials needed) or "session" (a session
	// only).
	spec string
	// foreign is the route with another organization's ids, for the
	// cross-organization check ("" when it takes no id).
	foreign bool
}

var roles = []apikey.Role{apikey.Viewer, apikey.Member, apikey.Admin, apikey.Owner}

// TestRoleMatrix calls every route of the API with a key of each role of
// one workspace, and with a key of another organization: below a route's
// floor the answer is 403 with the spec's code, at or above it neither 401
// nor 403 for lack of a role; another organization's ids answer 404 or 403
// and the answer names nothing of theirs. A route missing from the table
// fails the test.
func TestRoleMatrix(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	ctx := context.Background()
	owner, _, wsID := f.signUp(t)
	// the tested workspace is not the default one, so that it can be archived
	ownerKey := func() string {
		code, body, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/api-keys", owner, map[string]any{"role": "owner"})
		if code != 201 {
			t.Fatalf("owner key: %d %v", code, body)
		}
		return body["key"].(string)
	}()
	_, verify := f.call(t, "GET", "/api/keys/verify", ownerKey, nil)
	orgID := verify["org_id"].(string)
	tier, err := commands.NewChangeTierHandler(commands.NewRepositories(store)).Handle(ctx, commands.ChangeTier{OrgID: orgID, Tier: org.Enterprise, Source: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.runner.Wait(wctx, tier.Position); err != nil {
		t.Fatal(err)
	}
	_, second, _ := f.callAs(t, "POST", "/api/workspaces", owner, map[string]any{"name": "Matrix secret workspace"})
	wsID = second["id"].(string)
	keys := map[apikey.Role]string{}
	var viewerKeyID string
	for _, r := range roles {
		code, body, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/api-keys", owner, map[string]any{"role": r, "label": string(r)})
		if code != 201 {
			t.Fatalf("%s key: %d %v", r, code, body)
		}
		keys[r] = body["key"].(string)
		if r == apikey.Viewer {
			viewerKeyID = body["key_id"].(string)
		}
	}
	_, link, _ := f.callAs(t, "POST", "/api/workspaces/"+wsID+"/invites", owner, map[string]any{"role": "viewer"})
	inviteID := link["invite_id"].(string)
	_, plan := f.call(t, "POST", "/api/rigor/plan", keys[apikey.Member], map[string]any{"task_description": "compare our pricing with three competitors"})
	wfID := plan["plan"].(map[string]any)["workflow_id"].(string)
	var ownerID string
	{
		_, m, _ := f.callAs(t, "GET", "/api/workspaces/"+wsID+"/members", owner, nil)
		for _, raw := range m["members"].([]any) {
			if mm := raw.(map[string]any); mm["type"] == "user" {
				ownerID = mm["id"].(string)
			}
		}
	}
	// a user who joined the workspace as a viewer
	viewerSession, _, _ := f.signUp(t)
	if code, body, _ := f.callAs(t, "POST", "/api/invites/accept", viewerSession, map[string]any{"token": link["token"]}); code != 200 {
		t.Fatalf("viewer joins: %d %v", code, body)
	}
	// another organization, with an owner key
	otherOwner, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, otherOwner)

	w := "/api/workspaces/" + wsID
	table := map[string]route{
		"GET health":                       {path: "/api/health", spec: "open"},
		"GET docs":                         {path: "/docs", spec: "open"},
		"GET openapi":                      {path: "/openapi.json", spec: "open"},
		"GET docs.asset":                   {path: "/docs/init.js", spec: "open"},
		"GET metrics":                      {path: "", spec: "open"}, // loopback only; its own tests
		"POST keys.create":                 {path: "", spec: "open"}, // signup, its own tests
		"GET keys.verify_email":            {path: "", spec: "open"},
		"POST auth.signup":                 {path: "", spec: "open"},
		"POST auth.login":                  {path: "", spec: "open"},
		"POST auth.refresh":                {path: "", spec: "open"},
		"GET auth.callback":                {path: "", spec: "open"},
		"GET auth.mcp.callback":            {path: "", spec: "open"},
		"POST auth.logout":                 {path: "/api/auth/logout", spec: "session"},
		"POST invites.accept":              {path: "/api/invites/accept", spec: "session", body: map[string]any{"token": "x"}},
		"GET rigor.templates":              {path: "/api/rigor/templates", spec: "open"},
		"POST rigor.enhance":               {path: "", spec: "open"},
		"GET keys.verify":                  {path: "/api/keys/verify", spec: "A"},
		"GET billing.balance":              {path: "/api/billing/balance", spec: "A"},
		"GET rigor.task_types":             {path: "/api/rigor/task-types", spec: "A"},
		"POST rigor.plan":                  {path: "/api/rigor/plan", floor: apikey.Viewer, spec: "A", body: map[string]any{"task_description": "x"}},
		"GET rigor.status":                 {path: "/api/rigor/status/" + wfID, floor: apikey.Viewer, spec: "A", foreign: true},
		"GET rigor.workflows":              {path: "/api/rigor/workflows", floor: apikey.Viewer, spec: "A"},
		"GET rigor.lineage":                {path: "/api/rigor/lineage/" + wfID, floor: apikey.Viewer, spec: "A", foreign: true},
		"POST rigor.execute":               {path: "/api/rigor/execute", floor: apikey.Member, spec: "A", body: map[string]any{"workflow_id": wfID, "delivery": map[string]any{"method": "polling"}}, foreign: true},
		"POST rigor.step":                  {path: "/api/rigor/step", floor: apikey.Member, spec: "A", body: map[string]any{"workflow_id": wfID, "action": "next"}, foreign: true},
		"POST rigor.resume":                {path: "/api/rigor/resume", floor: apikey.Member, spec: "A", body: map[string]any{"workflow_id": wfID}, foreign: true},
		"POST rigor.approve":               {path: "/api/rigor/approve", floor: apikey.Admin, spec: "A", body: map[string]any{"workflow_id": wfID, "decision": "approved"}, foreign: true},
		"POST rigor.workflows.actions":     {path: "/api/rigor/workflows/actions", floor: apikey.Admin, spec: "A", body: map[string]any{"action": "cancel", "workflow_ids": []string{"wr_x"}}},
		"GET rigor.webhooks.deliveries":    {path: "/api/rigor/webhooks/deliveries?workflow_id=" + wfID, floor: apikey.Viewer, spec: "A", foreign: true},
		"GET rigor.usage_summary":          {path: "/api/rigor/usage-summary", floor: apikey.Viewer, spec: "A"},
		"GET rigor.costs":                  {path: "/api/rigor/costs", floor: apikey.Viewer, spec: "A"},
		"GET user.me":                      {path: "/api/user/me", spec: "B"},
		"GET workspaces.list":              {path: "/api/workspaces", spec: "B"},
		"POST workspaces.create":           {path: "/api/workspaces", spec: "B", body: map[string]any{}},
		"POST auth.mcp.initiate":           {path: "/api/auth/mcp/initiate", floor: apikey.Admin, spec: "B", body: map[string]any{"provider": "none"}},
		"GET workspaces.get":               {path: w, spec: "B", foreign: true},
		"PUT workspaces.rename":            {path: w, floor: apikey.Admin, spec: "B", body: map[string]any{"name": "Matrix secret workspace"}, foreign: true},
		"DELETE workspaces.archive":        {path: w, floor: apikey.Admin, spec: "B", foreign: true},
		"POST workspaces.restore":          {path: w + "/restore", floor: apikey.Owner, spec: "B", foreign: true},
		"GET workspaces.members.list":      {path: w + "/members", spec: "B", foreign: true},
		"POST workspaces.members.add":      {path: w + "/members", floor: apikey.Admin, spec: "B", body: map[string]any{"email": "x"}, foreign: true},
		"PATCH workspaces.members.role":    {path: w + "/members/" + ownerID, floor: apikey.Owner, spec: "B", body: map[string]any{"role": "x"}, foreign: true},
		"DELETE workspaces.members.remove": {path: w + "/members/" + ownerID, floor: apikey.Admin, spec: "B", foreign: true},
		"GET workspaces.keys.list":         {path: w + "/api-keys", floor: apikey.Member, spec: "B", foreign: true},
		"POST workspaces.keys.create":      {path: w + "/api-keys", floor: apikey.Admin, spec: "B", body: map[string]any{"label": strings.Repeat("x", 101)}, foreign: true},
		"DELETE workspaces.keys.revoke":    {path: w + "/api-keys/" + viewerKeyID + "0", floor: apikey.Admin, spec: "B", foreign: true},
		"POST workspaces.invites.create":   {path: w + "/invites", floor: apikey.Admin, spec: "B", body: map[string]any{}, foreign: true},
		"GET workspaces.invites.list":      {path: w + "/invites", floor: apikey.Admin, spec: "B", foreign: true},
		"DELETE workspaces.invites.revoke": {path: w + "/invites/" + inviteID + "0", floor: apikey.Admin, spec: "B", foreign: true},
	}
	for name, extra := range matrixExtras(w) {
		table[name] = extra
	}
	// the suite's operations (spec C): 403 insufficient_permissions in its
	// envelope; at the floor an empty body is 400 invalid_request at most
	for _, sr := range f.srv.SuiteRoutes() {
		rt := route{path: sr.Path, floor: sr.Floor, spec: "C"}
		if sr.Method != "GET" {
			rt.body = map[string]any{}
		}
		table[sr.Method+" "+sr.Name] = rt
	}
	for _, r := range f.srv.Routes() {
		if _, ok := table[r]; !ok {
			t.Errorf("route %q is not in the role matrix: add its path, floor and spec", r)
		}
	}
	for name, rt := range table {
		if rt.path == "" {
			continue
		}
		method := strings.Fields(name)[0]
		switch rt.spec {
		case "open":
			continue
		case "session":
			if code, body := f.call(t, method, rt.path, keys[apikey.Owner], rt.body); code != 401 {
				t.Errorf("%s with a key: %d %v, want 401 (a session only)", name, code, body)
			}
			continue
		}
		if code, body := f.call(t, method, rt.path, "", rt.body); code != 401 {
			t.Errorf("%s without credentials: %d %v", name, code, body)
		}
		want := "forbidden"
		if rt.spec == "A" || rt.spec == "C" {
			want = "insufficient_permissions"
		}
		for _, role := range roles {
			code, body := f.call(t, method, rt.path, keys[role], rt.body)
			below := rt.floor != "" && !role.AtLeast(rt.floor)
			switch {
			case below && (code != 403 || errorCode(body) != want):
				t.Errorf("%s as %s (floor %s): %d %v, want 403 %s", name, role, rt.floor, code, body, want)
			case !below && (code == 401 || code == 403 && (errorCode(body) == want || errorCode(body) == "forbidden")):
				t.Errorf("%s as %s (floor %s): %d %v", name, role, rt.floor, code, body)
			}
		}
		if strings.HasPrefix(rt.path, w) { // a session of a viewer member, as the viewer key
			code, body, _ := f.callAs(t, method, rt.path, viewerSession, rt.body)
			below := rt.floor != "" && !apikey.Viewer.AtLeast(rt.floor)
			if below != (code == 403 && errorCode(body) == "forbidden") {
				t.Errorf("%s as a viewer's session (floor %s): %d %v", name, rt.floor, code, body)
			}
		}
		if !rt.foreign {
			continue
		}
		code, body := f.call(t, method, rt.path, otherOwner, rt.body)
		raw, _ := json.Marshal(body)
		if code != 404 && code != 403 {
			t.Errorf("%s with another organization's owner key: %d %s, want 404 or 403", name, code, raw)
		}
		for _, secret := range []string{"Matrix secret workspace", orgID, "pricing"} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("%s with another organization's key reveals %q: %s", name, secret, raw)
			}
		}
	}
}

func errorCode(body map[string]any) string {
	if c, ok := body["error"].(string); ok { // spec C's flat envelope
		return c
	}
	e, _ := body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
