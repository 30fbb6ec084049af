package httpapi

import (
	"errors"
	"net/http"

	"svc/projections"
)

// balance is GET /api/billing/balance.
func (s *Server) balance(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	b, err := projections.Balance(ctx, s.store.Pool(), p.OrgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"balance":           b.Balance,
		"org_id":            p.OrgID,
		"request_id":        requestID(ctx),
		"credits_used":      0,
		"credits_remaining": b.Balance,
		"fallback_behavior": "none",
	})
	return nil
}
