package blackbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPlanReferencedFiles: a plan whose additional_context names files is
// checked against the resources its MCP connection lists: the existing
// file is found, the missing one is not_found with a file_not_found
// warning, and the context is insufficient. The connection is read with
// initialize and resources/list only. Without SVC_ALLOW_PRIVATE_URLS the
// same loopback server is refused, and the files are left unchecked.
func TestPlanReferencedFiles(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var methods []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "repo", Version: "test"}, &mcp.ServerOptions{PageSize: 1})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			methods = append(methods, method)
			mu.Unlock()
			return next(ctx, method, req)
		}
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "package auth"}}}, nil
	}
	for _, r := range []*mcp.Resource{
		{URI: "file:///repo/src/auth/login.go", Name: "login.go"},
		{URI: "file:///repo/README.md", Name: "README.md"},
		{URI: "file:///repo/go.mod", Name: "go.mod"},
	} {
		srv.AddResource(r, read)
	}
	mcpURL := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer mcpURL.Close()

	body := map[string]any{
		"task_description": "audit our authentication service for security weaknesses", "task_type": "security_audit",
		"available_mcp_connections": []any{map[string]any{"id": "repo", "label": "repo", "server_url": mcpURL.URL, "capabilities": []string{"repo"}}},
		"context":                   map[string]any{"additional_context": "Start with `src/auth/login.go` (version 1.2.3), then docs/threat-model.md; see https://example.com/x.go."},
	}

	t.Run("checked against the listed resources", func(t *testing.T) {
		s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true"})
		a := s.signup(t, nil)
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: body})
		wantStatus(t, res, http.StatusOK)
		plan := object(t, res.Body, "plan")
		ctx := object(t, plan, "context")
		files := object(t, ctx, "referenced_files")
		if found, missing := strList(files["found"]), strList(files["not_found"]); !slices.Equal(found, []string{"src/auth/login.go"}) ||
			!slices.Equal(missing, []string{"docs/threat-model.md"}) {
			t.Fatalf("referenced_files %v", files)
		}
		if boolean(t, ctx, "sufficient") {
			t.Error("sufficient with a missing file")
		}
		conns, _ := ctx["connections"].([]any)
		if len(conns) != 1 || conns[0].(map[string]any)["status"] != "available" {
			t.Errorf("connections %v, want repo available", ctx["connections"])
		}
		var notFound []map[string]any
		for _, w := range plan["warnings"].([]any) {
			w := w.(map[string]any)
			switch w["code"] {
			case "file_not_found":
				notFound = append(notFound, w)
			case "connection_error", "context_insufficient":
				t.Errorf("warning %v for a server that listed its resources", w)
			}
		}
		if len(notFound) != 1 || !strings.Contains(notFound[0]["message"].(string), "docs/threat-model.md") || notFound[0]["suggestion"] == "" {
			t.Fatalf("file_not_found warnings %v", notFound)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(methods, "resources/list") {
			t.Fatalf("the MCP server received %v, no resources/list", methods)
		}
		for _, m := range methods {
			if m != "initialize" && m != "notifications/initialized" && m != "resources/list" && m != "resources/read" {
				t.Errorf("the MCP server received %q", m)
			}
		}
	})

	t.Run("a private server is refused and the files are not checked", func(t *testing.T) {
		s := sharedServer(t) // no SVC_ALLOW_PRIVATE_URLS
		a := s.signup(t, nil)
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: body})
		wantStatus(t, res, http.StatusOK)
		plan := object(t, res.Body, "plan")
		files := object(t, object(t, plan, "context"), "referenced_files")
		if len(strList(files["found"])) != 0 || len(strList(files["not_found"])) != 0 || files["found"] == nil || files["not_found"] == nil {
			t.Fatalf("referenced_files %v, want two empty lists", files)
		}
		if !hasWarning(plan, "connection_error") || hasWarning(plan, "file_not_found") {
			t.Fatalf("warnings %v", plan["warnings"])
		}
		info := strings.Join(strList(plan["info"]), "\n")
		if !strings.Contains(info, "src/auth/login.go, docs/threat-model.md") {
			t.Fatalf("info %v, want the unchecked files named", plan["info"])
		}
	})
}

// strList turns a JSON array of strings into a []string.
func strList(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
