package mcpctx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/adapters/outbound"
	"svc/domain/connection"
)

// InitializeTimeout bounds a connection test's MCP initialize.
const InitializeTimeout = 10 * time.Second

// Gateway is what the connection commands need of the world outside
// (commands.ContextServers): the SSRF rules of a server URL, the
// resolution of its host with every A and AAAA record checked, and MCP
// initialize through the SSRF-guarded client, which checks each address
// again when it connects (so a host that resolves differently the second
// time, DNS rebinding, is refused there).
type Gateway struct {
	client       *http.Client
	allowPrivate bool
	lookup       outbound.LookupFunc
}

// NewGateway returns a gateway over client (outbound.NewClient's, built
// with the same allowPrivate); lookup resolves host names (nil: the
// system's resolver).
func NewGateway(client *http.Client, allowPrivate bool, lookup outbound.LookupFunc) *Gateway {
	if client == nil {
		panic("mcpctx: nil gateway client")
	}
	return &Gateway{client: client, allowPrivate: allowPrivate, lookup: lookup}
}

// CheckURL refuses a server URL that is not https, or whose host is a
// blocked address literal or an internal name (unless private addresses
// are allowed): outbound.CheckServerURL.
func (g *Gateway) CheckURL(raw string) error {
	return outbound.CheckServerURL(raw, g.allowPrivate)
}

// Resolve resolves host and checks every address (outbound.ResolveUsing):
// an error wrapping outbound.ErrBlockedAddress names the refused one.
func (g *Gateway) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	return outbound.ResolveUsing(ctx, g.lookup, host, g.allowPrivate)
}

// Blocked reports whether err is a refusal of the SSRF rules.
func Blocked(err error) bool {
	return errors.Is(err, outbound.ErrBlockedAddress) || errors.Is(err, outbound.ErrInternalHost)
}

// Initialize connects to the server of a, sends initialize (and its
// notification) and nothing else, and returns what the server answered.
func (g *Gateway) Initialize(ctx context.Context, a connection.Access) (connection.Capabilities, error) {
	ctx, cancel := context.WithTimeout(ctx, InitializeTimeout)
	defer cancel()
	session, err := connectWith(ctx, withHeaders(g.client, a.Header), a.ServerURL, a.Transport, InitializeTimeout)
	if err != nil {
		return connection.Capabilities{}, err
	}
	defer closeSoon(session)
	res := session.InitializeResult()
	if res == nil {
		return connection.Capabilities{}, fmt.Errorf("mcpctx: %s answered no initialize result", a.ServerURL)
	}
	out := connection.Capabilities{ProtocolVersion: res.ProtocolVersion}
	if res.ServerInfo != nil {
		out.Server = connection.ServerInfo{Name: res.ServerInfo.Name, Version: res.ServerInfo.Version}
	}
	if c := res.Capabilities; c != nil {
		out.Resources, out.Tools, out.Prompts = c.Resources != nil, c.Tools != nil, c.Prompts != nil
	}
	return out, nil
}

// transportFor is the SDK transport of a connection's transport name.
func transportFor(client *http.Client, serverURL, transport string) mcp.Transport {
	if transport == connection.TransportSSE {
		return &mcp.SSEClientTransport{Endpoint: serverURL, HTTPClient: client}
	}
	return &mcp.StreamableClientTransport{
		Endpoint:             serverURL,
		HTTPClient:           client,
		MaxRetries:           -1,   // no reconnects: the caller waits on this
		DisableStandaloneSSE: true, // request and answer only
	}
}

// withHeaders is client sending header on every request (a connection's
// credential); client itself when there is none.
func withHeaders(client *http.Client, header map[string]string) *http.Client {
	if len(header) == 0 {
		return client
	}
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = headerTransport{base: base, header: header}
	return &c
}

// headerTransport adds fixed headers to each request.
type headerTransport struct {
	base   http.RoundTripper
	header map[string]string
}

// RoundTrip sends a copy of req with the headers set.
func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.header {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// Blocked is the package's Blocked (commands.ContextServers).
func (g *Gateway) Blocked(err error) bool { return Blocked(err) }
