package httpapi

import (
	"context"
	"fmt"
	"sync"
	"time"

	"svc/adapters/mcpctx"
	"svc/adapters/outbound"
	"svc/domain/planning"
)

// connectionCheck bounds the plan-time check of one context server.
const connectionCheck = 2 * time.Second

// CheckConnections asks each context server of a plan whether it answers
// (through the SSRF-guarded client) and records what it found: no answer
// is "error" (connection_error), an error status is "degraded"
// (context_insufficient). At the same time it lists the server's
// resources over MCP (initialize and resources/list only): a server that
// lists them is "available" whatever the plain GET got (an MCP endpoint
// answers a bare GET with 400 or 405), and its resources are what the
// files named in additional_context are checked against. Servers are
// checked in parallel, each bounded by connectionCheck.
func (s *Server) CheckConnections(ctx context.Context, conns []planning.Connection) {
	var wg sync.WaitGroup
	for i := range conns {
		c := &conns[i]
		if c.ServerURL == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var code int
			var err error
			var probed sync.WaitGroup
			probed.Go(func() { code, err = outbound.Probe(ctx, s.outbound, c.ServerURL, connectionCheck) })
			resources, lerr := mcpctx.ListResources(ctx, s.outbound, c.ServerURL, connectionCheck)
			probed.Wait()
			if lerr != nil {
				s.log.DebugContext(ctx, "context server listed no resources", "connection", c.Label, "error", lerr)
			}
			switch {
			case lerr == nil:
				c.State, c.Listed = planning.ConnAvailable, true
				c.Resources = make([]planning.Resource, 0, len(resources))
				for _, r := range resources {
					c.Resources = append(c.Resources, planning.Resource{URI: r.URI, Name: r.Name})
				}
			case err != nil:
				c.State, c.Detail = planning.ConnFailed, err.Error()
			case code >= 400:
				c.State, c.Detail = planning.ConnDegraded, fmt.Sprintf("HTTP %d", code)
			default:
				c.State = planning.ConnAvailable
			}
		}()
	}
	wg.Wait()
}
