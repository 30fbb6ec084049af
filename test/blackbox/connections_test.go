package blackbox

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/adapters/outbound/outboundtest"
	"svc/eventstore"
)

// contextServer is a real MCP server of the official go-sdk served over
// HTTPS with a certificate of its own (its PEM file is the CA to trust),
// wanting the bearer token "bb-ctx-secret" when auth is set. It offers a
// resource and a tool that must never run; seen lists the methods it
// received.
type contextServer struct {
	URL, CA string
	mu      sync.Mutex
	methods []string
}

func (c *contextServer) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.methods)
}

func newContextServer(t *testing.T, auth bool) *contextServer {
	t.Helper()
	c := &contextServer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "handbook", Version: "3.1"}, nil)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			c.mu.Lock()
			c.methods = append(c.methods, method)
			c.mu.Unlock()
			return next(ctx, method, req)
		}
	})
	srv.AddResource(&mcp.Resource{URI: "file:///handbook/pricing.md", Name: "pricing.md"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "our prices"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "delete_everything", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t.Error("the context server's tool ran")
		return &mcp.CallToolResult{}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth && r.Header.Get("Authorization") != "Bearer bb-ctx-secret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c.URL = ts.URL + "/mcp"
	c.CA = outboundtest.WriteCA(t, ts)
	return c
}

// TestConnections: a context server registered, tested (active, with the
// capabilities of its MCP initialize), listed, used by planning, read by
// the workflow MCP server's rigor_connections tool, changed and revoked;
// its credential is never answered nor in the event log, and the server
// receives nothing but initialize and resource reads.
func TestConnections(t *testing.T) {
	t.Parallel()
	cs := newContextServer(t, true)
	s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": cs.CA})
	a := s.signup(t, nil)
	body := map[string]any{"display_name": "handbook", "label": "Company handbook", "scope": "org", "server_url": cs.URL,
		"auth_type": "bearer_token", "auth_credential": map[string]any{"token": "bb-ctx-secret"}}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections", Key: a.Key, Body: body})
	wantStatus(t, res, http.StatusCreated)
	conn := object(t, res.Body, "connection")
	id := uuidField(t, conn, "id")
	if str(t, conn, "status") != "pending" || str(t, conn, "label") != "Company handbook" || conn["workspace_id"] != nil {
		t.Fatalf("created %s", res.Raw)
	}
	// the same server again at org scope: 409 naming it; in the workspace: fine
	dup := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections", Key: a.Key, Body: map[string]any{"display_name": "again", "scope": "org",
		"server_url": cs.URL + "/", "auth_type": "none"}})
	wantError(t, dup, http.StatusConflict, "duplicate_connection")
	if dup.Body["existing_id"] != id {
		t.Fatalf("duplicate: %s", dup.Raw)
	}
	ws := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections", Key: a.Key, Body: map[string]any{"display_name": "handbook-ws",
		"scope": "workspace", "workspace_id": a.WorkspaceID, "server_url": cs.URL, "auth_type": "none"}})
	wantStatus(t, ws, http.StatusCreated)

	res = s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections/" + id + "/test", Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "status") != "active" || str(t, res.Body, "connection_id") != id || !slices.Contains(strList(res.Body["resolved_ips"]), "127.0.0.1") {
		t.Fatalf("test: %s", res.Raw)
	}
	// the initialized notification is answered (202) before the server's
	// handler runs: it may be seen a moment after the test's answer
	want := []string{"initialize", "notifications/initialized"}
	for deadline := time.Now().Add(5 * time.Second); !slices.Equal(cs.seen(), want) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if m := cs.seen(); !slices.Equal(m, want) {
		t.Fatalf("the server received %v", m)
	}

	res = s.do(t, req{Path: "/api/rigor/connections", Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	if len(res.Body) != 3 || strings.Contains(string(res.Raw), "bb-ctx-secret") {
		t.Fatalf("list: %s", res.Raw)
	}
	var listed map[string]any
	for _, c := range res.Body["connections"].([]any) {
		if c := c.(map[string]any); c["id"] == id {
			listed = c
		}
	}
	caps := object(t, listed, "capabilities")
	if listed["status"] != "active" || listed["last_tested_at"] == nil || listed["token_valid"] != true || caps["resources"] != true ||
		caps["tools"] != true || object(t, caps, "server")["name"] != "handbook" || strings.Join(strList(caps["operations"]), ",") != "resources/list,resources/read" {
		t.Fatalf("listed %v", listed)
	}

	// planning checks it, with its credential, beside what the body names
	res = s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: map[string]any{"task_description": "compare our pricing with three competitors"}})
	wantStatus(t, res, http.StatusOK)
	conns, _ := object(t, object(t, res.Body, "plan"), "context")["connections"].([]any)
	if len(conns) != 1 || conns[0].(map[string]any)["name"] != "handbook" || conns[0].(map[string]any)["status"] != "available" {
		t.Fatalf("plan context connections %v", conns)
	}
	for _, m := range cs.seen() {
		if m != "initialize" && m != "notifications/initialized" && m != "resources/list" && m != "resources/read" {
			t.Fatalf("the server received %s", m)
		}
	}

	// the workflow MCP server's rigor_connections answers the list
	client := mcp.NewClient(&mcp.Implementation{Name: "blackbox", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.base + "/api/mcp/rigor",
		HTTPClient: &http.Client{Transport: headerRT{"x-api-key": a.Key}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	tool, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "rigor_connections", Arguments: map[string]any{}})
	if err != nil || tool.IsError {
		t.Fatalf("rigor_connections: %v %+v", err, tool)
	}
	var viaTool map[string]any
	raw, _ := json.Marshal(tool.StructuredContent)
	if json.Unmarshal(raw, &viaTool) != nil || len(viaTool["connections"].([]any)) != 2 {
		t.Fatalf("rigor_connections: %s", raw)
	}

	res = s.do(t, req{Method: http.MethodPatch, Path: "/api/rigor/connections/" + id, Key: a.Key, Body: map[string]any{"label": "Handbook", "permission_mode": "read_write"}})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "label") != "Handbook" || str(t, res.Body, "permission_mode") != "read_write" {
		t.Fatalf("patch: %s", res.Raw)
	}
	res = s.do(t, req{Method: http.MethodDelete, Path: "/api/rigor/connections/" + id, Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	if object(t, res.Body, "connection")["status"] != "revoked" {
		t.Fatalf("delete: %s", res.Raw)
	}

	// nothing of the credential in the log; its sealed row is gone
	for _, e := range orgEvents(t, s.dbURL, a.OrgID) {
		if raw, _ := json.Marshal(e.Data); strings.Contains(string(raw), "bb-ctx-secret") {
			t.Fatalf("event %s holds the credential: %s", e.Type, raw)
		}
	}
	pool, err := eventstore.Connect(context.Background(), s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var rows int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM connection_credentials WHERE org_id = $1", a.OrgID).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d credential rows left (%v)", rows, err)
	}
}

// headerRT sends fixed headers.
type headerRT map[string]string

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestConnectionTestRefusesPrivateAddress: a connection registered while
// private addresses were allowed is tested by a server that refuses
// them: its host resolves to loopback, so the test answers 400
// {error: <string>} naming the address, the status becomes error, and
// the server hears nothing.
func TestConnectionTestRefusesPrivateAddress(t *testing.T) {
	t.Parallel()
	cs := newContextServer(t, false)
	first := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": cs.CA})
	a := first.signup(t, nil)
	url := strings.Replace(cs.URL, "127.0.0.1", "localhost", 1)
	res := first.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections", Key: a.Key,
		Body: map[string]any{"display_name": "local", "scope": "org", "server_url": url, "auth_type": "none"}})
	wantStatus(t, res, http.StatusCreated)
	id := str(t, object(t, res.Body, "connection"), "id")
	first.kill(t) // the database is kept for the next server

	strict := startServerOn(t, first.dbURL, map[string]string{"SVC_OUTBOUND_CA_FILE": cs.CA})
	res = strict.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections/" + id + "/test", Key: a.Key})
	wantStatus(t, res, http.StatusBadRequest)
	msg, _ := res.Body["error"].(string)
	if res.Body["code"] != "ssrf_blocked" || res.Body["status"] != "error" || !strings.Contains(msg, "127.0.0.1") {
		t.Fatalf("test: %s", res.Raw)
	}
	res = strict.do(t, req{Path: "/api/rigor/connections", Key: a.Key})
	if c := res.Body["connections"].([]any)[0].(map[string]any); c["status"] != "error" {
		t.Fatalf("listed %v", c)
	}
	// and a new one on a private address is refused at once
	res = strict.do(t, req{Method: http.MethodPost, Path: "/api/rigor/connections", Key: a.Key,
		Body: map[string]any{"display_name": "meta", "scope": "org", "server_url": "https://169.254.169.254/latest", "auth_type": "none"}})
	wantError(t, res, http.StatusBadRequest, "invalid_field")
	if len(cs.seen()) != 0 {
		t.Fatalf("the server received %v", cs.seen())
	}
}

// TestConnectionsOff: SVC_CONNECTIONS=off answers 501 feature_not_enabled
// on the five routes.
func TestConnectionsOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, map[string]string{"SVC_CONNECTIONS": "off"})
	a := s.signup(t, nil)
	none := "/api/rigor/connections/00000000-0000-4000-8000-000000000000"
	for _, r := range []req{{Path: "/api/rigor/connections"}, {Method: http.MethodPost, Path: "/api/rigor/connections", Body: map[string]any{}},
		{Method: http.MethodPatch, Path: none, Body: map[string]any{}}, {Method: http.MethodPost, Path: none + "/test"}, {Method: http.MethodDelete, Path: none}} {
		r.Key = a.Key
		wantError(t, s.do(t, r), http.StatusNotImplemented, "feature_not_enabled")
	}
}
