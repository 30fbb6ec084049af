package mcpctx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/adapters/outbound"
	"svc/adapters/outbound/outboundtest"
	"svc/domain/connection"
	"svc/domain/planning"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// tlsServer serves an MCP server over HTTPS (streamable HTTP, or the SSE
// transport) that wants the bearer token "t0k"; it returns the server and
// a client trusting its certificate (private addresses allowed or not).
func tlsServer(t *testing.T, sse, allowPrivate bool) (*httptest.Server, *recorder, *http.Client) {
	t.Helper()
	rec := &recorder{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1.2"}, nil)
	srv.AddReceivingMiddleware(rec.middleware)
	srv.AddResource(&mcp.Resource{URI: "file:///README.md", Name: "README.md"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "hi"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "drop", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t.Error("a tool ran")
		return &mcp.CallToolResult{}, nil
	})
	get := func(*http.Request) *mcp.Server { return srv }
	var h http.Handler = mcp.NewStreamableHTTPHandler(get, nil)
	if sse {
		h = mcp.NewSSEHandler(get, nil)
	}
	ts, client := outboundtest.Bearer(t, h, "t0k", allowPrivate)
	return ts, rec, client
}

func TestGatewayInitialize(t *testing.T) {
	for _, transport := range []string{connection.TransportStreamableHTTP, connection.TransportSSE} {
		t.Run(transport, func(t *testing.T) {
			ts, rec, client := tlsServer(t, transport == connection.TransportSSE, true)
			g := NewGateway(client, true, nil)
			ctx := context.Background()
			caps, err := g.Initialize(ctx, connection.Access{ServerURL: ts.URL, Transport: transport, Header: map[string]string{"Authorization": "Bearer t0k"}})
			if err != nil {
				t.Fatal(err)
			}
			if caps.Server.Name != "docs" || caps.Server.Version != "1.2" || !caps.Resources || !caps.Tools || caps.Prompts || caps.ProtocolVersion == "" {
				t.Fatalf("capabilities %+v", caps)
			}
			for _, m := range rec.seen() {
				if m != "initialize" && m != "notifications/initialized" {
					t.Errorf("the server received %s", m)
				}
			}
			if !slices.Contains(rec.seen(), "initialize") {
				t.Fatalf("no initialize: %v", rec.seen())
			}
			if _, err := g.Initialize(ctx, connection.Access{ServerURL: ts.URL, Transport: transport}); err == nil {
				t.Fatal("initialize without the credential succeeded")
			}
		})
	}
}

func TestGatewayResolveRefusesPrivateRecords(t *testing.T) {
	lookup := func(_ context.Context, _, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}, nil
	}
	g := NewGateway(http.DefaultClient, false, lookup)
	_, err := g.Resolve(context.Background(), "mcp.example.com")
	if !Blocked(err) || !strings.Contains(err.Error(), "10.1.2.3") {
		t.Fatalf("a host with a private record: %v", err)
	}
	if err := g.CheckURL("https://metadata.google.internal/x"); !Blocked(err) {
		t.Fatalf("internal name: %v", err)
	}
	if err := NewGateway(http.DefaultClient, true, lookup).CheckURL("https://localhost:1/x"); err != nil {
		t.Fatalf("allowed private: %v", err)
	}
}

// TestGatewayRefusesRebinding: the name resolved to a public address when
// it was checked and to loopback when the client connected; the
// connect-time check refuses it, and the server hears nothing.
func TestGatewayRefusesRebinding(t *testing.T) {
	ts, rec, client := tlsServer(t, false, false)
	public := func(context.Context, string, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	g := NewGateway(client, false, public)
	ctx := context.Background()
	if _, err := g.Resolve(ctx, "localhost"); err != nil {
		t.Fatalf("the check's answer is public: %v", err)
	}
	url := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	_, err := g.Initialize(ctx, connection.Access{ServerURL: url, Header: map[string]string{"Authorization": "Bearer t0k"}})
	if !errors.Is(err, outbound.ErrBlockedAddress) {
		t.Fatalf("rebound to loopback: %v", err)
	}
	if len(rec.seen()) != 0 {
		t.Fatalf("the server received %v", rec.seen())
	}
}

func TestAccessHidesHeaders(t *testing.T) {
	a := connection.Access{ServerURL: "https://x", Header: map[string]string{"Authorization": "Bearer secret"}}
	if strings.Contains(a.String(), "secret") || strings.Contains(a.LogValue().String(), "secret") {
		t.Fatal(a.String())
	}
}

func TestCheckStoredConnectionsSendTheCredential(t *testing.T) {
	ts, _, client := tlsServer(t, false, true)
	conns := []planning.Connection{{ID: "a", Label: "docs", ServerURL: ts.URL}, {ID: "b", Label: "anon", ServerURL: ts.URL}}
	NewChecker(client, quietLog()).CheckStoredConnections(context.Background(), conns,
		[]connection.Access{{ServerURL: ts.URL, Header: map[string]string{"Authorization": "Bearer t0k"}}, {ServerURL: ts.URL}})
	if conns[0].State != planning.ConnAvailable || !conns[0].Listed || len(conns[0].Resources) != 1 {
		t.Fatalf("with its credential: %+v", conns[0])
	}
	if conns[1].Listed || conns[1].State != planning.ConnDegraded {
		t.Fatalf("without: %+v", conns[1])
	}
}
