package httpapi

import (
	"context"
	"net/http"
	"time"
)

// healthTimeout bounds each dependency check.
const healthTimeout = 2 * time.Second

type check struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// health is GET /api/health: the database and the cache are checked for
// real. Database down: status "down" (HTTP 503, every product down). Cache
// down: "degraded" (HTTP 200; limits degrade open).
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	dbErr := s.store.Pool().Ping(ctx)
	cacheErr := s.limiter.Ping(ctx)

	status, code := "ok", http.StatusOK
	services := map[string]any{"database": "ok", "cache": "ok"}
	var product any = "ok"
	if cacheErr != nil {
		status = "degraded"
		services["cache"] = check{Status: "degraded", Error: "cache unreachable; rate limits degrade open"}
		s.log.WarnContext(ctx, "health: cache check failed", "error", cacheErr)
	}
	if dbErr != nil {
		status, code = "down", http.StatusServiceUnavailable
		services["database"] = check{Status: "down", Error: "database unreachable"}
		s.log.ErrorContext(ctx, "health: database check failed", "error", dbErr)
		product = check{Status: "down", Error: "database unavailable"}
	}
	products := map[string]any{}
	for name := range Products {
		products[name] = product
	}
	writeJSON(w, code, map[string]any{
		"status":    status,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"services":  services,
		"products":  products,
		"version":   s.cfg.Version,
	})
	return nil
}
