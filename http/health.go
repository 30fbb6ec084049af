package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// healthTimeout bounds each dependency check.
const healthTimeout = 2 * time.Second

// healthResponse is the answer of GET /api/health.
type healthResponse struct {
	Status    string                 `json:"status"`
	Timestamp string                 `json:"timestamp"`
	Services  services               `json:"services"`
	Products  map[string]healthCheck `json:"products"` // by product name
	Version   string                 `json:"version"`
}

// services are the checked dependencies.
type services struct {
	Database healthCheck `json:"database"`
	Cache    healthCheck `json:"cache"`
}

// healthCheck is the state of a dependency or product: "ok", or an object
// saying what is wrong.
type healthCheck struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// healthy is the check of a dependency or product that works.
var healthy = healthCheck{Status: "ok"}

// MarshalJSON answers "ok" for a working dependency, else the object.
func (c healthCheck) MarshalJSON() ([]byte, error) {
	if c == healthy {
		return []byte(`"ok"`), nil
	}
	type object healthCheck // without this method
	return json.Marshal(object(c))
}

// health is GET /api/health: the database and the cache are checked for
// real. Database down: status "down" (HTTP 503, every product down). Cache
// down: "degraded" (HTTP 200; limits degrade open).
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	dbErr := s.queries.Ping(ctx)
	cacheErr := s.limiter.Ping(ctx)

	status, code := "ok", http.StatusOK
	checks := services{Database: healthy, Cache: healthy}
	if cacheErr != nil {
		status = "degraded"
		checks.Cache = healthCheck{Status: "degraded", Error: "cache unreachable; rate limits degrade open"}
		s.log.WarnContext(ctx, "health: cache check failed", "error", cacheErr)
	}
	if dbErr != nil {
		status, code = "down", http.StatusServiceUnavailable
		checks.Database = healthCheck{Status: "down", Error: "database unavailable"}
		s.log.ErrorContext(ctx, "health: database check failed", "error", dbErr)
	}
	products := map[string]healthCheck{}
	for _, name := range Products {
		products[name] = productHealth(name, dbErr, cacheErr)
	}
	writeJSON(w, code, healthResponse{Status: status, Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		Services: checks, Products: products, Version: s.cfg.Version})
	return nil
}

// productHealth is a product's state from the dependencies it has: every
// product needs the database, except that GuardRail then fails open from
// its cached policies; DedupQ's cache tier needs the cache.
func productHealth(name string, dbErr, cacheErr error) healthCheck {
	switch {
	case dbErr != nil && name == "guardrail":
		return healthCheck{Status: "degraded", Error: "database unavailable; checks fail open (allow) from the cached policies"}
	case dbErr != nil:
		return healthCheck{Status: "down", Error: "database unavailable"}
	case cacheErr != nil && name == "dedupq":
		return healthCheck{Status: "degraded", Error: "cache unreachable; exact and semantic matches are answered from the database"}
	}
	return healthy
}
