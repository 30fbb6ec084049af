package httpapi

import (
	"context"
	"fmt"
	"sync"
	"time"

	"svc/adapters/outbound"
	"svc/domain/planning"
)

// connectionCheck bounds the plan-time check of one context server.
const connectionCheck = 2 * time.Second

// checkConnections asks each context server of a plan whether it answers
// (through the SSRF-guarded client) and records what it found: no answer
// is "error" (connection_error), an error status is "degraded"
// (context_insufficient). Servers are checked in parallel.
func (s *Server) checkConnections(ctx context.Context, conns []planning.Connection) {
	var wg sync.WaitGroup
	for i := range conns {
		c := &conns[i]
		if c.ServerURL == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, err := outbound.Probe(ctx, s.outbound, c.ServerURL, connectionCheck)
			switch {
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
