package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

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
			cctx, cancel := context.WithTimeout(ctx, connectionCheck)
			defer cancel()
			req, err := http.NewRequestWithContext(cctx, http.MethodGet, c.ServerURL, nil)
			if err != nil {
				c.State, c.Detail = planning.ConnFailed, "invalid server_url"
				return
			}
			resp, err := s.outbound.Do(req)
			if err != nil {
				c.State, c.Detail = planning.ConnFailed, err.Error()
				return
			}
			resp.Body.Close()
			if resp.StatusCode >= 400 {
				c.State, c.Detail = planning.ConnDegraded, fmt.Sprintf("HTTP %d", resp.StatusCode)
				return
			}
			c.State = planning.ConnAvailable
		}()
	}
	wg.Wait()
}
