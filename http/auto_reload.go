package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/payment"
	"svc/projections"
)

// autoReloadRoutes registers GET (any role) and PUT (admin) of
// /api/billing/auto-reload, with a key or a session.
func (s *Server) autoReloadRoutes(r *mux.Router) {
	r.Handle("/api/billing/auto-reload", s.platform("", s.getAutoReload)).Methods(http.MethodGet).Name("billing.auto_reload")
	r.Handle("/api/billing/auto-reload", s.platform(billingFloor, s.putAutoReload)).Methods(http.MethodPut).Name("billing.auto_reload_update")
}

// autoReloadBody is the auto-reload configuration (spec B, Resources),
// with what the last failed payment said (beyond spec B).
type autoReloadBody struct {
	Enabled      bool       `json:"enabled"`
	Threshold    *int64     `json:"threshold"`
	Amount       *int64     `json:"amount"`
	MonthlyLimit *int64     `json:"monthly_limit"`
	MonthlySpent int64      `json:"monthly_spent"`
	ResetAt      *time.Time `json:"reset_at"`
	// ReloadPending: a reload waits for its payment.
	ReloadPending bool `json:"reload_pending"`
	// LastError is the last reload's failure, until a reload succeeds
	// after it (null otherwise).
	LastError    *autoReloadError `json:"last_error"`
	LastReloadAt *time.Time       `json:"last_reload_at"`
}

// autoReloadError is a failed reload's payment.
type autoReloadError struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	FailedAt time.Time `json:"failed_at"`
}

func autoReloadView(row projections.AutoReloadRow, now time.Time) autoReloadBody {
	out := autoReloadBody{Enabled: row.Enabled, Threshold: row.Threshold, Amount: row.Amount, MonthlyLimit: row.MonthlyLimitUSD,
		MonthlySpent: row.MonthlySpentUSD, ReloadPending: row.Pending, LastReloadAt: row.LastReloadAt}
	if row.MonthlyLimitUSD != nil {
		reset := credit.NextMonth(now)
		out.ResetAt = &reset
	}
	if row.LastError != nil && row.LastFailedAt != nil && (row.LastReloadAt == nil || row.LastFailedAt.After(*row.LastReloadAt)) {
		e := &autoReloadError{Code: *row.LastError, FailedAt: *row.LastFailedAt, Message: "The auto-reload payment failed."}
		if row.LastErrorDetail != nil {
			e.Message = *row.LastErrorDetail
		}
		out.LastError = e
	}
	return out
}

// getAutoReload is GET /api/billing/auto-reload (any role).
func (s *Server) getAutoReload(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, _ := principalOf(ctx)
	now := time.Now()
	row, err := s.queries.AutoReload(ctx, p.OrgID, now)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, autoReloadView(row, now))
	return nil
}

// autoReloadPut is PUT /api/billing/auto-reload's body, each field read
// raw so a wrong type names its field.
type autoReloadPut struct {
	Enabled      json.RawMessage `json:"enabled"`
	Confirm      json.RawMessage `json:"confirm"`
	Threshold    json.RawMessage `json:"threshold"`
	Amount       json.RawMessage `json:"amount"`
	MonthlyLimit json.RawMessage `json:"monthly_limit"`
}

// putAutoReload is PUT /api/billing/auto-reload (admin): enabled is
// required; enabling needs confirm true, threshold (100 to 100,000
// credits), amount (5,000, 25,000, 100,000 or 250,000 credits) and
// optionally monthly_limit (5 to 10,000 USD, null for none). Disabling
// reads nothing else.
func (s *Server) putAutoReload(w http.ResponseWriter, r *http.Request) error {
	var body autoReloadPut
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	enabled, ok := rawBool(body.Enabled)
	if !ok {
		return platformField("enabled", "a boolean is required")
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	cmd := commands.ConfigureAutoReload{OrgID: p.OrgID, Enabled: enabled}
	if enabled {
		if confirm, ok := rawBool(body.Confirm); !ok || !confirm {
			return platformField("confirm", "must be true to enable auto-reload: it charges the saved payment method without asking")
		}
		cmd.Confirm = true
		var ok bool
		if cmd.Threshold, ok = rawInt(body.Threshold); !ok || cmd.Threshold < credit.MinReloadThreshold || cmd.Threshold > credit.MaxReloadThreshold {
			return platformField("threshold", "an integer from 100 to 100,000 credits").
				withDetail("min", int64(credit.MinReloadThreshold)).withDetail("max", int64(credit.MaxReloadThreshold))
		}
		if cmd.Amount, ok = rawInt(body.Amount); !ok || !validReloadAmount(cmd.Amount) {
			return errReloadAmount()
		}
		if raw := bytes.TrimSpace(body.MonthlyLimit); raw != nil && string(raw) != "null" {
			v, ok := rawInt(raw)
			if !ok || v < credit.MinReloadLimitUSD || v > credit.MaxReloadLimitUSD {
				return errReloadLimit()
			}
			cmd.MonthlyLimitUSD = &v
		}
	}
	_, err := s.commands.ConfigureAutoReload.Handle(ctx, cmd)
	switch {
	case errors.Is(err, payment.ErrNoBillingAccount):
		return platformField("enabled", "a saved payment method is required: buy credits once (POST /api/billing/checkout) to save one").
			withFix("Buy credits with POST /api/billing/checkout; the card used is saved for auto-reload.")
	case errors.Is(err, credit.ErrReloadConfirm):
		return platformField("confirm", "must be true to enable auto-reload")
	case errors.Is(err, credit.ErrReloadThreshold):
		return platformField("threshold", "an integer from 100 to 100,000 credits")
	case errors.Is(err, credit.ErrReloadAmount):
		return errReloadAmount()
	case errors.Is(err, credit.ErrReloadMonthlyLimit):
		return errReloadLimit()
	case err != nil:
		return s.billingError(r, err)
	}
	now := time.Now()
	row, err := s.queries.AutoReload(ctx, p.OrgID, now)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, autoReloadView(row, now))
	return nil
}

func errReloadAmount() *apiError {
	return platformField("amount", "one of 5,000, 25,000, 100,000 or 250,000 credits").withDetail("available", credit.ReloadAmounts)
}

func errReloadLimit() *apiError {
	return platformField("monthly_limit", "an integer from 5 to 10,000 USD, or null for no limit").
		withDetail("min", int64(credit.MinReloadLimitUSD)).withDetail("max", int64(credit.MaxReloadLimitUSD))
}

func validReloadAmount(n int64) bool {
	for _, a := range credit.ReloadAmounts {
		if a == n {
			return true
		}
	}
	return false
}

// rawBool reads a JSON boolean literal.
func rawBool(raw json.RawMessage) (v, ok bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// rawInt reads a JSON integer literal (no fraction, no exponent, no string).
func rawInt(raw json.RawMessage) (int64, bool) {
	v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return v, err == nil
}
