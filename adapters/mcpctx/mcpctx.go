// Package mcpctx reads what a context server (an MCP server named in a
// plan's available_mcp_connections) holds: it connects over the
// streamable HTTP transport of the official MCP Go SDK, initialises, and
// lists the server's resources, following pagination cursors.
//
// Spec A's connection security rules allow only resource list and read
// operations. The client therefore sends nothing but initialize (with its
// notification), resources/list and resources/read, refuses every other
// method before it leaves the process (tools, prompts, sampling, writes),
// declares no client capabilities, and answers no request from the server
// (sampling, elicitation, roots). Every HTTP request goes through the
// caller's client, which must be the SSRF-guarded one of
// adapters/outbound, bounded by the caller's timeout, with each response
// body capped at MaxResponseBytes.
package mcpctx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits on what one listing reads.
const (
	MaxResources     = 5000    // resources kept; listing stops there
	MaxPages         = 50      // resources/list pages followed
	MaxResponseBytes = 4 << 20 // bytes of one HTTP response body
)

// ErrNoResources is returned when the server does not offer resources
// (no resources capability in its initialize answer).
var ErrNoResources = errors.New("mcpctx: server offers no resources")

// ErrRefused is returned when something asks the session for an MCP
// method outside the allowed ones.
var ErrRefused = errors.New("mcpctx: method refused")

// Resource is one listed resource.
type Resource struct {
	URI      string
	Name     string
	MIMEType string
}

// clientInfo is how this service introduces itself in initialize.
var clientInfo = &mcp.Implementation{Name: "svc-context", Version: "1"}

// ListResources connects to the MCP server at serverURL through client
// (the SSRF-guarded client of adapters/outbound), initialises, and returns
// its resources, following resources/list cursors (at most MaxPages pages
// and MaxResources resources; a repeated cursor ends the listing). The
// whole exchange, closing the session included, is bounded by timeout.
func ListResources(ctx context.Context, client *http.Client, serverURL string, timeout time.Duration) ([]Resource, error) {
	return listResources(ctx, client, serverURL, "", timeout)
}

// listResources is ListResources over the named transport.
func listResources(ctx context.Context, client *http.Client, serverURL, transport string, timeout time.Duration) ([]Resource, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	session, err := connectWith(ctx, client, serverURL, transport, timeout)
	if err != nil {
		return nil, err
	}
	defer closeSoon(session)
	if caps := session.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
		return nil, ErrNoResources
	}
	var out []Resource
	seen := map[string]bool{}
	params := &mcp.ListResourcesParams{}
	for range MaxPages {
		page, err := session.ListResources(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("mcpctx: resources/list of %s: %w", serverURL, err)
		}
		for _, r := range page.Resources {
			if r == nil {
				continue
			}
			out = append(out, Resource{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType})
			if len(out) == MaxResources {
				return out, nil
			}
		}
		if page.NextCursor == "" || seen[page.NextCursor] {
			break
		}
		seen[page.NextCursor] = true
		params = &mcp.ListResourcesParams{Cursor: page.NextCursor}
	}
	return out, nil
}

// connect opens an initialised session over streamable HTTP with the
// allowed-methods guard.
func connect(ctx context.Context, client *http.Client, serverURL string, timeout time.Duration) (*mcp.ClientSession, error) {
	return connectWith(ctx, client, serverURL, "", timeout)
}

// connectWith is connect over the named transport (connection.TransportSSE,
// else streamable HTTP).
func connectWith(ctx context.Context, client *http.Client, serverURL, transport string, timeout time.Duration) (*mcp.ClientSession, error) {
	if client == nil {
		return nil, errors.New("mcpctx: no HTTP client")
	}
	c := mcp.NewClient(clientInfo, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	c.AddSendingMiddleware(allowSending)
	c.AddReceivingMiddleware(refuseServerRequests)
	session, err := c.Connect(ctx, transportFor(bounded(client, timeout), serverURL, transport), nil)
	if err != nil {
		return nil, fmt.Errorf("mcpctx: initialize %s: %w", serverURL, err)
	}
	return session, nil
}

// closeSoon ends the session (an HTTP DELETE, bounded by the client's
// timeout) without making the caller wait for it.
func closeSoon(session *mcp.ClientSession) {
	go func() { _ = session.Close() }()
}
