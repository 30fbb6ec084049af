package mcpctx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/adapters/outbound"
)

// recorder keeps the methods an MCP server received.
type recorder struct {
	mu      sync.Mutex
	methods []string
}

func (r *recorder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r.mu.Lock()
		r.methods = append(r.methods, method)
		r.mu.Unlock()
		return next(ctx, method, req)
	}
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.methods)
}

// mcpServer starts an in-process MCP server (streamable HTTP) with n file
// resources, a page size of pageSize and one tool that must never run.
func mcpServer(t *testing.T, n, pageSize int) (*httptest.Server, *recorder, *bool) {
	t.Helper()
	rec := &recorder{}
	toolRan := new(bool)
	srv := mcp.NewServer(&mcp.Implementation{Name: "repo", Version: "test"}, &mcp.ServerOptions{PageSize: pageSize})
	srv.AddReceivingMiddleware(rec.middleware)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "package x"}}}, nil
	}
	for i := range n {
		srv.AddResource(&mcp.Resource{URI: fmt.Sprintf("file:///repo/src/f%02d.go", i), Name: fmt.Sprintf("f%02d.go", i), MIMEType: "text/x-go"}, read)
	}
	srv.AddTool(&mcp.Tool{Name: "delete_repo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			*toolRan = true
			return &mcp.CallToolResult{}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, rec, toolRan
}

func privateOK(t *testing.T) *http.Client {
	t.Helper()
	c, err := outbound.NewClient(outbound.Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestListResourcesFollowsPages(t *testing.T) {
	ts, rec, toolRan := mcpServer(t, 7, 2) // 4 pages
	got, err := ListResources(context.Background(), privateOK(t), ts.URL, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 {
		t.Fatalf("%d resources: %+v", len(got), got)
	}
	for i, r := range got {
		if r.URI != fmt.Sprintf("file:///repo/src/f%02d.go", i) || r.Name != fmt.Sprintf("f%02d.go", i) || r.MIMEType != "text/x-go" {
			t.Errorf("resource %d: %+v", i, r)
		}
	}
	methods := rec.seen()
	lists := 0
	for _, m := range methods {
		if !allowedMethods[m] {
			t.Errorf("server received %q; it may receive only %v", m, allowedMethods)
		}
		if m == "resources/list" {
			lists++
		}
	}
	if lists != 4 || methods[0] != "initialize" {
		t.Fatalf("server received %v, want initialize then 4 resources/list", methods)
	}
	if *toolRan {
		t.Fatal("a tool ran")
	}
}

func TestOnlyResourceMethodsLeave(t *testing.T) {
	ts, rec, toolRan := mcpServer(t, 1, 0)
	ctx := context.Background()
	session, err := connect(ctx, privateOK(t), ts.URL, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "delete_repo"}); !errors.Is(err, ErrRefused) {
		t.Errorf("tools/call: %v, want ErrRefused", err)
	}
	if _, err := session.ListTools(ctx, nil); !errors.Is(err, ErrRefused) {
		t.Errorf("tools/list: %v, want ErrRefused", err)
	}
	if _, err := session.ListPrompts(ctx, nil); !errors.Is(err, ErrRefused) {
		t.Errorf("prompts/list: %v, want ErrRefused", err)
	}
	if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///repo/src/f00.go"}); err != nil {
		t.Errorf("resources/read: %v", err)
	}
	for _, m := range rec.seen() {
		if !allowedMethods[m] {
			t.Errorf("server received %q", m)
		}
	}
	if *toolRan {
		t.Fatal("a tool ran")
	}
	if caps := session.InitializeResult(); caps == nil {
		t.Fatal("no initialize result")
	}
}

func TestListResourcesRefusesPrivateAddresses(t *testing.T) {
	ts, rec, _ := mcpServer(t, 1, 0)
	guarded, err := outbound.NewClient(outbound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ListResources(context.Background(), guarded, ts.URL, 2*time.Second)
	if !errors.Is(err, outbound.ErrBlockedAddress) {
		t.Fatalf("error %v, want ErrBlockedAddress", err)
	}
	if m := rec.seen(); len(m) != 0 {
		t.Fatalf("the private server was reached: %v", m)
	}
}

func TestListResourcesFailures(t *testing.T) {
	client := privateOK(t)

	t.Run("not an MCP server", func(t *testing.T) {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) }))
		defer ts.Close()
		if _, err := ListResources(context.Background(), client, ts.URL, 2*time.Second); err == nil {
			t.Fatal("no error")
		}
	})

	t.Run("no resources offered", func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "tools-only", Version: "test"}, nil)
		srv.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		defer ts.Close()
		if _, err := ListResources(context.Background(), client, ts.URL, 2*time.Second); !errors.Is(err, ErrNoResources) {
			t.Fatalf("error %v, want ErrNoResources", err)
		}
	})

	t.Run("a server that hangs is bounded by the timeout", func(t *testing.T) {
		release := make(chan struct{})
		ts := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer ts.Close()
		defer close(release)
		start := time.Now()
		if _, err := ListResources(context.Background(), client, ts.URL, 300*time.Millisecond); err == nil {
			t.Fatal("no error")
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("took %v with a 300ms timeout", d)
		}
	})
}

func TestCappedBody(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(make([]byte, MaxResponseBytes+10))
	}))
	defer ts.Close()
	resp, err := bounded(privateOK(t), 5*time.Second).Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := resp.Body.Read(buf)
		n += int64(k)
		if err != nil {
			if !errors.Is(err, errTooLarge) || n != MaxResponseBytes {
				t.Fatalf("read %d bytes, error %v", n, err)
			}
			return
		}
	}
}
