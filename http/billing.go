package httpapi

import (
	"errors"
	"net/http"

	"svc/projections"
)

// metered are the fields spec A puts on its listing and utility answers
// (and spec B on balance and key checks): request_id, credits_used (0:
// the call was free) and credits_remaining (null when the balance could
// not be read).
type metered struct {
	RequestID        string `json:"request_id"`
	CreditsUsed      int64  `json:"credits_used"`
	CreditsRemaining *int64 `json:"credits_remaining"`
}

// free is metered for a free call, with the balance known.
func free(requestID string, balance int64) metered {
	return metered{RequestID: requestID, CreditsRemaining: &balance}
}

// balanceResponse is the answer of GET /api/billing/balance. Balance is
// the spendable balance (what execute, resume and enhance check);
// Reserved, beyond spec B, is what the org's accepted runs hold for the
// steps they have not run yet (decision 71).
type balanceResponse struct {
	Balance  int64  `json:"balance"`
	Reserved int64  `json:"reserved"`
	OrgID    string `json:"org_id"`
	metered
	FallbackBehavior string `json:"fallback_behavior"`
}

// balance is GET /api/billing/balance.
func (s *Server) balance(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	b, err := s.queries.Balance(ctx, p.OrgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return err
	}
	writeJSON(w, http.StatusOK, balanceResponse{Balance: b.Balance, Reserved: b.Reserved, OrgID: p.OrgID, metered: free(requestID(ctx), b.Balance),
		FallbackBehavior: "none"})
	return nil
}
