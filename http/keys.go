package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/projections"
)

// Signup limit per client IP.
const (
	signupsPerIP  = 3
	signupWindow  = 24 * time.Hour
	dailyExecutes = 1000
)

// Products lists the service's products, every one reached with the same
// key: the workflow API (rigor) and the suite's five (spec C).
var Products = []string{"rigor", "dedupq", "burnrate", "qualitygate", "guardrail", "pitfalldb"}

type createKeyBody struct {
	Email *string `json:"email"`
	Name  *string `json:"name"`
}

// createKey is POST /api/keys: sign up an organization and its owner key.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) error {
	var body createKeyBody
	if err := decodeBody(w, r, &body, true); err != nil {
		return err
	}
	cmd := commands.CreateOrganization{ClientIP: clientIP(r.Context())}
	if body.Email != nil {
		cmd.Email = *body.Email
		if cmd.Email != "" {
			if err := org.ValidateEmail(cmd.Email); err != nil {
				return errInvalidField("email", "not a valid email address")
			}
		}
	}
	if body.Name != nil {
		cmd.Name = *body.Name
		if utf8.RuneCountInString(strings.TrimSpace(cmd.Name)) > 200 {
			return errInvalidField("name", "at most 200 characters")
		}
	}
	// Only a well-formed request takes one of the IP's signup slots.
	if err := s.allowSignup(r.Context()); err != nil {
		return err
	}
	ctx := r.Context()
	res, err := s.commands.CreateOrganization.Handle(ctx, cmd) // mails the verification link
	switch {
	case errors.Is(err, org.ErrDuplicateEmail):
		return newError(http.StatusConflict, "duplicate_email", "An organization with this email already exists.").
			withFix("Use the key you were given for this email, or sign up with another address.")
	case errors.Is(err, org.ErrInvalidEmail):
		return errInvalidField("email", "not a valid email address")
	case errors.Is(err, org.ErrNameTooLong):
		return errInvalidField("name", "at most 200 characters")
	case err != nil:
		s.log.ErrorContext(ctx, "signup failed", "error", err, "request_id", requestID(ctx))
		return newError(http.StatusInternalServerError, "db_error", "The organization could not be created. Retry, and quote the request_id if it persists.")
	}

	message := "Store this key now: it is shown only once."
	if res.Email != "" {
		message += " We sent a verification link to " + res.Email + "; verifying grants " + strconv.Itoa(credit.EmailVerificationGrant) + " more credits."
	}
	writeJSON(w, http.StatusCreated, s.signupResponse(res, message, requestID(ctx)))
	return nil
}

// signupResponse is the answer of POST /api/keys.
type signupResponse struct {
	OrgID         string     `json:"org_id"`
	KeyID         string     `json:"key_id"`
	Key           string     `json:"key"`
	APIKey        string     `json:"api_key"`
	Prefix        string     `json:"prefix"`
	Message       string     `json:"message"`
	WorkspaceID   string     `json:"workspace_id"`
	EmailVerified bool       `json:"email_verified"`
	Credits       int64      `json:"credits"`
	Quickstart    quickstart `json:"quickstart"`
	Docs          string     `json:"docs"`
	Products      []string   `json:"products"`
	FreeTier      freeTier   `json:"free_tier"`
	RateLimit     string     `json:"rate_limit"`
	RequestID     string     `json:"request_id"`
}

// quickstart are the first calls to try with a new key, as curl lines.
type quickstart struct {
	Balance string `json:"balance"`
	Verify  string `json:"verify"`
	Plan    string `json:"plan"`
}

// freeTier describes the free tier's allowance.
type freeTier struct {
	CallsRemaining int    `json:"calls_remaining"`
	ResetsAt       string `json:"resets_at"`
	Note           string `json:"note"`
}

// rateLimitText describes the per-minute limit (spec C's rate_limit
// string).
var rateLimitText = strconv.Itoa(perMinute) + " requests per minute per organization on the workflow routes and " +
	strconv.Itoa(suitePerMinute) + " on the suite's (sliding 60-second windows; " + strconv.Itoa(perMinuteEnterprise) + " and " +
	strconv.Itoa(suitePerMinuteEnterprise) + " on enterprise)"

func (s *Server) signupResponse(res commands.OrganizationCreated, message, reqID string) signupResponse {
	base, key := s.cfg.BaseURL, res.Key.Raw
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	return signupResponse{
		OrgID: res.OrgID, KeyID: res.KeyID, Key: key, APIKey: key, Prefix: res.Key.Prefix, Message: message,
		WorkspaceID: res.WorkspaceID, Credits: res.Credits,
		Quickstart: quickstart{
			Balance: "curl -s " + base + "/api/billing/balance -H 'x-api-key: " + key + "'",
			Verify:  "curl -s " + base + "/api/keys/verify -H 'x-api-key: " + key + "'",
			Plan:    "curl -s -X POST " + base + "/api/rigor/plan -H 'x-api-key: " + key + "' -H 'content-type: application/json' -d '{\"task_description\":\"compare our pricing with three competitors\"}'",
		},
		Docs:     base + "/docs",
		Products: Products,
		FreeTier: freeTier{CallsRemaining: dailyExecutes, ResetsAt: tomorrow.Format(time.RFC3339),
			Note: "Free tier: 1 concurrent workflow and 1,000 executions per UTC day; planning is free; your first workflow is on us."},
		RateLimit: rateLimitText,
		RequestID: reqID,
	}
}

// allowSignup applies the per-IP signup limit; it degrades open.
func (s *Server) allowSignup(ctx context.Context) error {
	d, err := s.limiter.Allow(ctx, "signup:ip:"+clientIP(ctx), signupsPerIP, signupWindow)
	if err != nil {
		s.log.WarnContext(ctx, "signup limiter unavailable; letting the request through", "error", err)
		return nil
	}
	if d.Allowed {
		return nil
	}
	secs := int(signupWindow / time.Second)
	return newError(http.StatusTooManyRequests, "rate_limited", "At most 3 keys can be created per IP address in 24 hours.").
		withDetail("retry_after_seconds", secs).withRetryAfterSeconds(secs)
}

// verifyEmailLink is GET /api/keys/verify-email?token=..., the link mailed at
// signup. The first use grants the verification credits; later uses answer
// the same with nothing granted.
func (s *Server) verifyEmailLink(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	if token == "" {
		return errMissingField("token")
	}
	ctx := r.Context()
	res, err := s.commands.VerifyEmail.Handle(ctx, commands.VerifyEmail{Token: token})
	if errors.Is(err, org.ErrInvalidToken) {
		return newError(http.StatusBadRequest, "invalid_token", "This verification link is not valid.").
			withFix("Open the link exactly as it was mailed to you.")
	}
	if err != nil {
		return err
	}
	bal, err := s.queries.Balance(ctx, res.OrgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return err
	}
	writeJSON(w, http.StatusOK, emailVerifiedResponse{OK: true, OrgID: res.OrgID, EmailVerified: true, AlreadyVerified: res.AlreadyVerified,
		CreditsGranted: res.Granted, Balance: bal.Balance, RequestID: requestID(ctx)})
	return nil
}

// emailVerifiedResponse is the answer of GET /api/keys/verify-email.
type emailVerifiedResponse struct {
	OK              bool   `json:"ok"`
	OrgID           string `json:"org_id"`
	EmailVerified   bool   `json:"email_verified"`
	AlreadyVerified bool   `json:"already_verified"`
	CreditsGranted  int64  `json:"credits_granted"`
	Balance         int64  `json:"balance"`
	RequestID       string `json:"request_id"`
}

// keyCheckResponse is the answer of GET /api/keys/verify.
type keyCheckResponse struct {
	OrgID  string `json:"org_id"`
	IsPaid bool   `json:"is_paid"`
	metered
	FallbackBehavior string `json:"fallback_behavior"`
}

// verifyKey is GET /api/keys/verify.
func (s *Server) verifyKey(w http.ResponseWriter, r *http.Request) error {
	p, _ := principalOf(r.Context())
	writeJSON(w, http.StatusOK, keyCheckResponse{OrgID: p.OrgID, IsPaid: p.Tier.IsPaid(), metered: free(requestID(r.Context()), 0),
		FallbackBehavior: "none"})
	return nil
}
