package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"svc/adapters/mail"
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

// Products lists the service's products and what each does.
var Products = map[string]string{
	"rigor":       "Workflow planning and execution: POST /api/rigor/plan, /api/rigor/execute",
	"dedupq":      "Task deduplication",
	"burnrate":    "Cost prediction",
	"qualitygate": "Output validation",
	"guardrail":   "Policy checks",
	"pitfalldb":   "Failure-pattern database",
}

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
	res, err := s.createOrg.Handle(ctx, cmd)
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
	s.waitFor(ctx, res.Position, "keys", "organizations", "billing", "workspaces")
	if res.VerificationToken != "" {
		s.sendVerification(res.Email, res.VerificationToken)
	}

	message := "Store this key now: it is shown only once."
	if res.Email != "" {
		message += " We sent a verification link to " + res.Email + "; verifying grants " + strconv.Itoa(credit.EmailVerificationGrant) + " more credits."
	}
	base := s.cfg.BaseURL
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	writeJSON(w, http.StatusCreated, map[string]any{
		"org_id":         res.OrgID,
		"key_id":         res.KeyID,
		"key":            res.Key.Raw,
		"api_key":        res.Key.Raw,
		"prefix":         res.Key.Prefix,
		"message":        message,
		"workspace_id":   res.WorkspaceID,
		"email_verified": false,
		"credits":        res.Credits,
		"quickstart": map[string]string{
			"balance": "curl -s " + base + "/api/billing/balance -H 'x-api-key: " + res.Key.Raw + "'",
			"verify":  "curl -s " + base + "/api/keys/verify -H 'x-api-key: " + res.Key.Raw + "'",
			"plan":    "curl -s -X POST " + base + "/api/rigor/plan -H 'x-api-key: " + res.Key.Raw + "' -H 'content-type: application/json' -d '{\"task_description\":\"compare our pricing with three competitors\"}'",
		},
		"docs":     base + "/docs",
		"products": Products,
		"free_tier": map[string]any{
			"calls_remaining": dailyExecutes,
			"resets_at":       tomorrow.Format(time.RFC3339),
			"note":            "Free tier: 1 concurrent workflow and 1,000 executions per UTC day; planning is free; your first workflow is on us.",
		},
		"rate_limit": map[string]any{"requests_per_minute": perMinute, "scope": "organization", "window": "sliding 60 seconds"},
		"request_id": requestID(ctx),
	})
	return nil
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
		withDetail("retry_after_seconds", secs).withFlat("retry_after_seconds", secs)
}

func (s *Server) sendVerification(to, token string) {
	link := s.cfg.BaseURL + "/api/keys/verify-email?token=" + url.QueryEscape(token)
	msg := mail.Message{
		To:      to,
		Subject: "Verify your email to get 2,500 more credits",
		Body: "Welcome!\n\nOpen this link to verify your email address and receive 2,500 more credits:\n\n" +
			link + "\n\nIf you did not create an API key, ignore this message.\n",
	}
	s.mailing.Add(1)
	go func() {
		defer s.mailing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.mail.Send(ctx, msg); err != nil {
			s.log.Error("verification mail not sent", "to", to, "error", err)
		}
	}()
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
	res, err := s.verifyEmail.Handle(ctx, commands.VerifyEmail{Token: token})
	if errors.Is(err, org.ErrInvalidToken) {
		return newError(http.StatusBadRequest, "invalid_token", "This verification link is not valid.").
			withFix("Open the link exactly as it was mailed to you.")
	}
	if err != nil {
		return err
	}
	s.waitFor(ctx, res.Position, "organizations", "billing")
	bal, err := projections.Balance(ctx, s.store.Pool(), res.OrgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"ok":               true,
		"org_id":           res.OrgID,
		"email_verified":   true,
		"already_verified": res.AlreadyVerified,
		"credits_granted":  res.Granted,
		"balance":          bal.Balance,
		"request_id":       requestID(ctx),
	})
	return nil
}

// verifyKey is GET /api/keys/verify.
func (s *Server) verifyKey(w http.ResponseWriter, r *http.Request) error {
	p, _ := principalOf(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{
		"org_id":            p.OrgID,
		"is_paid":           p.Tier.IsPaid(),
		"request_id":        requestID(r.Context()),
		"credits_used":      0,
		"credits_remaining": 0,
		"fallback_behavior": "none",
	})
	return nil
}
