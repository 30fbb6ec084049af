package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/adapters/outbound/outboundtest"
	"svc/domain/apikey"
	"svc/eventstore/event"
	httpapi "svc/http"
	"svc/projections"
)

// newGatewayFixture is newFixture with cfg and, when private is set, the
// connection gateway and the plans' checks reaching private addresses
// through it.
func newGatewayFixture(t *testing.T, cfg httpapi.Config, private *http.Client) *fixture {
	t.Helper()
	runner := projections.NewRunner(store, quiet, projections.All(), projections.WithPoll(10*time.Millisecond))
	cfg.BaseURL, cfg.Version, cfg.TrustedProxies = "http://test", "test", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	f := &fixture{srv: httpapi.New(cfg, testDepsWith(t, store, runner, memoryLimiter(), private)), runner: runner}
	if err := runner.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { runner.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	f.start(t)
	return f
}

// contextServer is an MCP server over HTTPS wanting the bearer token
// "ctx-secret", with one resource; it returns its URL and a client that
// trusts it and may reach private addresses. The methods it received are
// in *methods.
func contextServer(t *testing.T) (string, *http.Client, *[]string) {
	t.Helper()
	methods := &[]string{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "handbook", Version: "2.0"}, nil)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			*methods = append(*methods, method)
			return next(ctx, method, req)
		}
	})
	srv.AddResource(&mcp.Resource{URI: "file:///handbook/onboarding.md", Name: "onboarding.md"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "welcome"}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts, client := outboundtest.Bearer(t, h, "ctx-secret", true)
	return ts.URL + "/mcp", client, methods
}

// addKey adds a key of role to the organization and workspace of key.
func addKey(t *testing.T, key string, role apikey.Role) string {
	t.Helper()
	ctx := context.Background()
	p, err := projections.PrincipalByHash(ctx, db.Pool, apikey.Hash(key))
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := apikey.Generate()
	id := uuid.NewString()
	if _, err := store.Append(ctx, apikey.Stream(id), event.NewStream, event.New{Metadata: event.Metadata{OrgID: p.OrgID},
		Data: apikey.Created{KeyID: id, OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, Hash: secret.Hash, Prefix: secret.Prefix, Label: "t", Role: role, CreatedBy: "test"}}); err != nil {
		t.Fatal(err)
	}
	return secret.Raw
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestConnectionRoutes walks the five routes end to end against a real
// MCP server: every success shape, and the refusals each route answers.
func TestConnectionRoutes(t *testing.T) {
	serverURL, client, methods := contextServer(t)
	f := newGatewayFixture(t, httpapi.Config{}, client)
	owner, _ := keyWithRole(t, apikey.Owner)
	other, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, owner)
	waitKey(t, f, other)
	const base = "/api/rigor/connections"
	body := func(over map[string]any) map[string]any {
		b := map[string]any{"display_name": "handbook", "scope": "org", "server_url": serverURL, "auth_type": "bearer_token",
			"auth_credential": map[string]any{"token": "ctx-secret"}}
		for k, v := range over {
			b[k] = v
		}
		return b
	}

	// create: 201 with exactly the spec's fields
	code, created := f.call(t, "POST", base, owner, body(nil))
	c, _ := created["connection"].(map[string]any)
	want := []string{"auth_type", "created_at", "display_name", "id", "label", "scope", "server_url", "status", "transport", "workspace_id"}
	if code != 201 || !slices.Equal(keysOf(c), want) || c["status"] != "pending" || c["workspace_id"] != nil || c["label"] != "handbook" ||
		c["transport"] != "streamable-http" || len(created) != 1 {
		t.Fatalf("create: %d %v", code, created)
	}
	id := c["id"].(string)
	raw, _ := json.Marshal(created)
	if strings.Contains(string(raw), "ctx-secret") {
		t.Fatal("the answer holds the credential")
	}

	// refusals of create
	for name, c := range map[string]struct {
		key         string
		body        any
		status      int
		code, field string
	}{
		"no key":            {"", body(nil), 401, "missing_api_key", ""},
		"not an object":     {owner, "x", 400, "invalid_body", ""},
		"non-HTTPS":         {owner, body(map[string]any{"server_url": "http://mcp.example.com/mcp"}), 400, "invalid_field", "server_url"},
		"bad display_name":  {owner, body(map[string]any{"display_name": "Hand Book"}), 400, "invalid_field", "display_name"},
		"no scope":          {owner, body(map[string]any{"scope": nil}), 400, "missing_field", "scope"},
		"no credential":     {owner, body(map[string]any{"auth_credential": nil}), 400, "missing_field", "auth_credential"},
		"foreign workspace": {owner, body(map[string]any{"scope": "workspace", "workspace_id": "00000000-0000-4000-8000-000000000000"}), 400, "invalid_field", "workspace_id"},
		"duplicate":         {owner, body(map[string]any{"display_name": "again", "server_url": strings.ToUpper(serverURL[:8]) + serverURL[8:] + "/"}), 409, "duplicate_connection", ""},
		"name taken":        {owner, body(map[string]any{"server_url": "https://other.example.com"}), 409, "display_name_taken", ""},
	} {
		code, got := f.call(t, "POST", base, c.key, c.body)
		e, _ := got["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		if code != c.status || errorCode(got) != c.code || c.field != "" && d["field"] != c.field {
			t.Errorf("%s: %d %v, want %d %s %s", name, code, got, c.status, c.code, c.field)
		}
		if code == 409 && (got["existing_id"] != id || d["existing_id"] != id) {
			t.Errorf("%s: existing_id %v, want %s", name, got, id)
		}
	}
	member := addKey(t, owner, apikey.Member)
	waitKey(t, f, member)
	if code, got := f.call(t, "POST", base, member, body(nil)); code != 403 || errorCode(got) != "insufficient_permissions" {
		t.Errorf("a member creates: %d %v", code, got)
	}

	// list: three keys, the connection with its provider, providers left to connect
	code, list := f.call(t, "GET", base, owner, nil)
	if code != 200 || !slices.Equal(keysOf(list), []string{"available_providers", "coming_soon_providers", "connections"}) {
		t.Fatalf("list: %d %v", code, list)
	}
	conn := ids(list, "connections", "id")[id].(map[string]any)
	if conn["provider"] != "mcp-server" || conn["token_valid"] != true || conn["capabilities"] != nil || conn["permission_mode"] != "read" ||
		fmt.Sprint(conn["config"]) != "map[]" || conn["provider_metadata"].(map[string]any)["tier"] != 3.0 {
		t.Fatalf("listed %v", conn)
	}
	if avail := ids(list, "available_providers", "id"); avail["github"] == nil || avail["mcp-server"] == nil || ids(list, "coming_soon_providers", "id")["slack"] == nil {
		t.Fatalf("providers %v", list)
	}
	if code, got := f.call(t, "GET", base, other, nil); code != 200 || len(got["connections"].([]any)) != 0 {
		t.Fatalf("another organization lists %v", got)
	}

	// test: active, capabilities from initialize, nothing but initialize sent
	code, tested := f.call(t, "POST", base+"/"+id+"/test", member, nil)
	if code != 200 || tested["status"] != "active" || tested["connection_id"] != id || fmt.Sprint(tested["resolved_ips"]) != "[127.0.0.1]" ||
		tested["message"] == "" || len(tested) != 4 {
		t.Fatalf("test: %d %v", code, tested)
	}
	for _, m := range *methods {
		if m != "initialize" && m != "notifications/initialized" {
			t.Errorf("the server received %s", m)
		}
	}
	code, got := f.call(t, "GET", base, owner, nil)
	conn = ids(got, "connections", "id")[id].(map[string]any)
	caps, _ := conn["capabilities"].(map[string]any)
	if code != 200 || conn["status"] != "active" || conn["last_tested_at"] == nil || caps["resources"] != true ||
		fmt.Sprint(caps["operations"]) != "[resources/list resources/read]" || caps["server"].(map[string]any)["name"] != "handbook" {
		t.Fatalf("after the test: %v", conn)
	}
	// planning checks the active connection with its credential
	code, planned := f.call(t, "POST", "/api/rigor/plan", owner, map[string]any{"task_description": "summarize our onboarding handbook for new engineers"})
	plan, _ := planned["plan"].(map[string]any)
	pctx, _ := plan["context"].(map[string]any)
	if code != 200 || fmt.Sprint(pctx["connections"]) != "[map[name:handbook status:available type:mcp]]" {
		t.Fatalf("plan context %d %v", code, pctx)
	}

	// update
	code, got = f.call(t, "PATCH", base+"/"+id, owner, map[string]any{"display_name": "handbook-v2", "label": "Handbook", "auth_credential": map[string]any{"token": "ctx-secret"}})
	if code != 200 || got["display_name"] != "handbook-v2" || got["label"] != "Handbook" || got["status"] != "active" || got["id"] != id {
		t.Fatalf("patch: %d %v", code, got)
	}
	for name, c := range map[string]struct {
		path, key   string
		body        any
		status      int
		code, field string
	}{
		"bad mode":       {base + "/" + id, owner, map[string]any{"permission_mode": "write"}, 400, "invalid_field", "permission_mode"},
		"bad name":       {base + "/" + id, owner, map[string]any{"display_name": strings.Repeat("x", 33)}, 400, "invalid_field", "display_name"},
		"unknown":        {noConnection, owner, map[string]any{}, 404, "not_found", ""},
		"foreign":        {base + "/" + id, other, map[string]any{"label": "x"}, 404, "not_found", ""},
		"as a member":    {base + "/" + id, member, map[string]any{}, 403, "insufficient_permissions", ""},
		"conn_ prefix":   {base + "/conn_" + id, owner, map[string]any{}, 200, "", ""},
		"test foreign":   {base + "/" + id + "/test", other, nil, 404, "not_found", ""},
		"test a body":    {base + "/" + id + "/test", owner, []any{}, 400, "invalid_body", ""},
		"delete foreign": {base + "/" + id, other, nil, 404, "not_found", ""},
	} {
		method := "PATCH"
		if strings.HasSuffix(c.path, "/test") {
			method = "POST"
		} else if strings.HasPrefix(name, "delete") {
			method = "DELETE"
		}
		code, got := f.call(t, method, c.path, c.key, c.body)
		e, _ := got["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		if code != c.status || errorCode(got) != c.code || c.field != "" && d["field"] != c.field {
			t.Errorf("%s: %d %v, want %d %s", name, code, got, c.status, c.code)
		}
	}

	// delete: revoked, the record kept; again is the same; then 404 for changes and tests
	for range 2 {
		code, got = f.call(t, "DELETE", base+"/"+id, owner, nil)
		if code != 200 || fmt.Sprint(got["connection"]) != "map[id:"+id+" status:revoked]" || got["message"] == "" {
			t.Fatalf("delete: %d %v", code, got)
		}
	}
	if code, got := f.call(t, "POST", base+"/"+id+"/test", owner, nil); code != 404 {
		t.Fatalf("test a revoked connection: %d %v", code, got)
	}
	if code, got := f.call(t, "PATCH", base+"/"+id, owner, map[string]any{"label": "x"}); code != 404 {
		t.Fatalf("patch a revoked connection: %d %v", code, got)
	}
	var rows int
	if err := db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM connection_credentials WHERE connection_id = $1", id).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d credential rows after the deletion (%v)", rows, err)
	}
	_, got = f.call(t, "GET", base, owner, nil)
	if conn := ids(got, "connections", "id")[id].(map[string]any); conn["status"] != "revoked" {
		t.Fatalf("revoked listed as %v", conn)
	}

	// ten live connections at most: the revoked one does not count
	for i := range 10 {
		code, got := f.call(t, "POST", base, owner, body(map[string]any{"display_name": fmt.Sprint("c", i), "server_url": fmt.Sprintf("https://c%d.example.com/mcp", i)}))
		if i < 10 && code != 201 {
			t.Fatalf("connection %d: %d %v", i+1, code, got)
		}
	}
	code, got = f.call(t, "POST", base, owner, body(map[string]any{"display_name": "eleven", "server_url": "https://eleven.example.com"}))
	if d, _ := got["error"].(map[string]any)["details"].(map[string]any); code != 409 || errorCode(got) != "connection_limit_exceeded" || d["limit"] != 10.0 {
		t.Fatalf("the eleventh: %d %v", code, got)
	}
}

// TestConnectionTestRefusedAddress: a server URL on a private address is
// refused at creation; one created while private addresses were allowed
// is refused by its test (400 {error: <string>}) and its status is error.
func TestConnectionTestRefusedAddress(t *testing.T) {
	serverURL, client, methods := contextServer(t)
	open := newGatewayFixture(t, httpapi.Config{}, client)
	strict := newGatewayFixture(t, httpapi.Config{}, nil)
	owner, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, open, owner)
	waitKey(t, strict, owner)
	b := map[string]any{"display_name": "local", "scope": "org", "server_url": serverURL, "auth_type": "none"}
	if code, got := strict.call(t, "POST", "/api/rigor/connections", owner, b); code != 400 || errorCode(got) != "invalid_field" {
		t.Fatalf("a loopback URL: %d %v", code, got)
	}
	code, got := open.call(t, "POST", "/api/rigor/connections", owner, b)
	if code != 201 {
		t.Fatalf("create: %d %v", code, got)
	}
	id := got["connection"].(map[string]any)["id"].(string)
	code, got = strict.call(t, "POST", "/api/rigor/connections/"+id+"/test", owner, nil)
	msg, _ := got["error"].(string)
	if code != 400 || got["code"] != "ssrf_blocked" || got["status"] != "error" || !strings.Contains(msg, "127.0.0.1") || got["request_id"] == "" {
		t.Fatalf("test: %d %v", code, got)
	}
	_, got = strict.call(t, "GET", "/api/rigor/connections", owner, nil)
	if c := ids(got, "connections", "id")[id].(map[string]any); c["status"] != "error" {
		t.Fatalf("listed %v", c)
	}
	if len(*methods) != 0 {
		t.Fatalf("the server received %v", *methods)
	}
}

// TestConnectionsDisabled: with the gateway off every route answers 501
// feature_not_enabled (after the key is checked), and plans check no
// stored connection.
func TestConnectionsDisabled(t *testing.T) {
	f := newGatewayFixture(t, httpapi.Config{ConnectionsDisabled: true}, nil)
	owner, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, owner)
	for _, r := range []struct{ method, path string }{{"GET", "/api/rigor/connections"}, {"POST", "/api/rigor/connections"},
		{"PATCH", noConnection}, {"POST", noConnection + "/test"}, {"DELETE", noConnection}} {
		if code, got := f.call(t, r.method, r.path, owner, map[string]any{}); code != 501 || errorCode(got) != "feature_not_enabled" {
			t.Errorf("%s %s: %d %v", r.method, r.path, code, got)
		}
		if code, _ := f.call(t, r.method, r.path, "", nil); code != 401 {
			t.Errorf("%s %s without a key: %d", r.method, r.path, code)
		}
	}
}

// TestRigorConnectionsTool: rigor_connections is callable but not listed,
// and answers GET /api/rigor/connections.
func TestRigorConnectionsTool(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	viewer, _ := keyWithRole(t, apikey.Viewer)
	waitKey(t, f, viewer)
	session := rigorSession(t, f, viewer)
	ctx := context.Background()
	if slices.Contains(toolNames(t, session), "rigor_connections") {
		t.Fatal("rigor_connections is listed")
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "rigor_connections", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("rigor_connections: %v %+v", err, res)
	}
	if body := structured(t, res); !slices.Equal(keysOf(body), []string{"available_providers", "coming_soon_providers", "connections"}) {
		t.Fatalf("rigor_connections: %v", body)
	}
}
