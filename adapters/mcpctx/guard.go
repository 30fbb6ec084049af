package mcpctx

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// allowedMethods are the only MCP methods the client sends: the
// initialisation handshake, resource list and read, and the cancellation
// of one of those.
var allowedMethods = map[string]bool{
	"initialize":                true,
	"notifications/initialized": true,
	"resources/list":            true,
	"resources/read":            true,
	"notifications/cancelled":   true,
}

// allowSending refuses, before anything is sent, every method outside
// allowedMethods (tools/call, prompts/get, completion, subscriptions, ...).
func allowSending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !allowedMethods[method] {
			return nil, fmt.Errorf("%w: %s", ErrRefused, method)
		}
		return next(ctx, method, req)
	}
}

// refuseServerRequests answers no request from the server (sampling,
// elicitation, roots) but lets its notifications and pings through.
func refuseServerRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "ping" && !strings.HasPrefix(method, "notifications/") {
			return nil, fmt.Errorf("%w: %s from the server", ErrRefused, method)
		}
		return next(ctx, method, req)
	}
}

// bounded is a copy of client (same transport, so the same SSRF guard)
// whose requests each end after timeout and whose response bodies are
// capped at MaxResponseBytes.
func bounded(client *http.Client, timeout time.Duration) *http.Client {
	c := *client
	c.Timeout = timeout
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = capped{base: base, max: MaxResponseBytes}
	return &c
}

// capped is a RoundTripper whose response bodies fail after max bytes.
type capped struct {
	base http.RoundTripper
	max  int64
}

// RoundTrip sends req through the base transport and caps the body.
func (t capped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.max}
	return resp, nil
}

// cappedBody reads at most left bytes, then fails.
type cappedBody struct {
	io.ReadCloser
	left int64
}

// errTooLarge is the read error of a body over MaxResponseBytes.
var errTooLarge = fmt.Errorf("mcpctx: response over %d bytes", MaxResponseBytes)

// Read reads from the body until the cap is reached.
func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
