package mcpctx

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"svc/adapters/outbound"
	"svc/domain/connection"
	"svc/domain/planning"
)

// CheckTimeout bounds the plan-time check of one context server.
const CheckTimeout = 2 * time.Second

// Checker checks the context servers a plan names before it is built
// (commands.ConnectionChecker), through the SSRF-guarded client of
// adapters/outbound.
type Checker struct {
	client *http.Client
	log    *slog.Logger
}

// NewChecker returns a Checker reaching servers through client, the
// outbound client for user-given URLs; log receives why a server listed
// no resources (debug level).
func NewChecker(client *http.Client, log *slog.Logger) *Checker {
	if client == nil || log == nil {
		panic("mcpctx: nil checker dependency")
	}
	return &Checker{client: client, log: log}
}

// CheckConnections asks each context server of a plan whether it answers
// and records what it found: no answer is "error" (connection_error), an
// error status is "degraded" (context_insufficient). At the same time it
// lists the server's resources over MCP (initialize and resources/list
// only): a server that lists them is "available" whatever the plain GET
// got (an MCP endpoint answers a bare GET with 400 or 405), and its
// resources are what the files named in additional_context are checked
// against. Servers are checked in parallel, each bounded by CheckTimeout.
func (c *Checker) CheckConnections(ctx context.Context, conns []planning.Connection) {
	var wg sync.WaitGroup
	for i := range conns {
		if conns[i].ServerURL != "" {
			wg.Go(func() { c.check(ctx, &conns[i]) })
		}
	}
	wg.Wait()
}

// CheckStoredConnections is CheckConnections for an organization's
// stored connections: each is reached with access[i]'s headers (its
// credential) and listed over its transport.
func (c *Checker) CheckStoredConnections(ctx context.Context, conns []planning.Connection, access []connection.Access) {
	var wg sync.WaitGroup
	for i := range conns {
		if conns[i].ServerURL != "" && i < len(access) {
			wg.Go(func() { c.checkWith(ctx, withHeaders(c.client, access[i].Header), access[i].Transport, &conns[i]) })
		}
	}
	wg.Wait()
}

// check probes and lists one server, in parallel, and sets conn's state.
func (c *Checker) check(ctx context.Context, conn *planning.Connection) {
	c.checkWith(ctx, c.client, "", conn)
}

// checkWith is check through client, listing over transport.
func (c *Checker) checkWith(ctx context.Context, client *http.Client, transport string, conn *planning.Connection) {
	var (
		code   int
		err    error
		probed sync.WaitGroup
	)
	probed.Go(func() { code, err = outbound.Probe(ctx, client, conn.ServerURL, CheckTimeout) })
	resources, lerr := listResources(ctx, client, conn.ServerURL, transport, CheckTimeout)
	probed.Wait()
	if lerr != nil {
		c.log.DebugContext(ctx, "context server listed no resources", "connection", conn.Label, "error", lerr)
	}
	switch {
	case lerr == nil:
		conn.State, conn.Listed = planning.ConnAvailable, true
		conn.Resources = make([]planning.Resource, 0, len(resources))
		for _, r := range resources {
			conn.Resources = append(conn.Resources, planning.Resource{URI: r.URI, Name: r.Name})
		}
	case err != nil:
		conn.State, conn.Detail = planning.ConnFailed, err.Error()
	case code >= 400:
		conn.State, conn.Detail = planning.ConnDegraded, fmt.Sprintf("HTTP %d", code)
	default:
		conn.State = planning.ConnAvailable
	}
}
