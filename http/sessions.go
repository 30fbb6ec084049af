package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"svc/commands"
	"svc/domain/org"
	"svc/domain/user"
	"svc/projections"
)

// Session cookies (spec B leaves names and attributes open;
// docs/decisions.md): the access token, sent on every request, and the
// refresh token, sent only to /api/auth and to the dashboard, which renews
// a lapsed session itself (decision 303).
const (
	sessionCookie = "svc_session"
	refreshCookie = "svc_refresh"
)

// refreshPaths are the paths the refresh cookie is set for.
var refreshPaths = []string{"/api/auth", "/dashboard"}

// Login limits: attempts per client IP and per email address, in a sliding
// window; a successful login gives its attempt back.
const (
	loginsPerIP    = 20
	loginsPerEmail = 10
	loginWindow    = 15 * time.Minute
	signupsPerHour = 10 // account signups per client IP
)

type signUpBody struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
	Name     *string `json:"name"`
}

// sessionResponse is the answer of signup, login and refresh.
type sessionResponse struct {
	UserID  string      `json:"user_id"`
	Email   string      `json:"email"`
	Session sessionBody `json:"session"`
	// OrgID and WorkspaceID are signup's new organization and default
	// workspace (beyond spec B's fields; docs/decisions.md).
	OrgID       string `json:"org_id,omitempty"`
	WorkspaceID string `json:"workspace_id,omitempty"`
}

type sessionBody struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresAt    int64  `json:"expires_at"` // Unix seconds of the access token's end
}

// platformField is spec B's answer to a bad field: invalid_body naming it.
func platformField(field, why string) *apiError {
	return newError(http.StatusBadRequest, "invalid_body", "Field "+field+" is invalid: "+why).withDetail("field", field)
}

// platformBody decodes a spec B body: a field of the wrong type is
// invalid_body naming it (spec B has no invalid_field); text PostgreSQL
// cannot store stays invalid_field, as on every route (decision 67).
func platformBody(w http.ResponseWriter, r *http.Request, dst any, emptyOK bool) *apiError {
	err := decodeBody(w, r, dst, emptyOK)
	if err != nil && err.Code == "invalid_field" && err.Details["expected"] != nil {
		err.Code = "invalid_body"
	}
	return err
}

// noBody refuses a malformed body on a route that takes none (an empty
// body or {} passes).
func noBody(w http.ResponseWriter, r *http.Request) *apiError {
	var ignored struct{}
	return platformBody(w, r, &ignored, true)
}

// signup is POST /api/auth/signup.
func (s *Server) signup(w http.ResponseWriter, r *http.Request) error {
	var body signUpBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	cmd := commands.SignUp{ClientIP: clientIP(r.Context())}
	switch {
	case body.Email == nil || strings.TrimSpace(*body.Email) == "":
		return errMissingField("email")
	case body.Password == nil || *body.Password == "":
		return errMissingField("password")
	}
	cmd.Email, cmd.Password = *body.Email, *body.Password
	if body.Name != nil {
		cmd.Name = *body.Name
	}
	if err := org.ValidateEmail(strings.TrimSpace(cmd.Email)); err != nil {
		return platformField("email", "not a valid email address")
	}
	if err := user.ValidatePassword(cmd.Password); err != nil {
		return platformField("password", "at least 8 characters (and at most 1024 bytes)").withDetail("min", user.MinPassword)
	}
	ctx := r.Context()
	if err := s.limit(ctx, "account-signup:ip:"+clientIP(ctx), signupsPerHour, time.Hour,
		"At most 10 accounts can be created per IP address in an hour."); err != nil {
		return err
	}
	res, err := s.commands.SignUp.Handle(ctx, cmd)
	switch {
	case errors.Is(err, user.ErrEmailTaken):
		return newError(http.StatusConflict, "email_already_registered", "An account with this email already exists.").
			withFix("Log in with POST /api/auth/login, or sign up with another address.")
	case errors.Is(err, user.ErrNameTooLong):
		return platformField("name", "at most 200 characters")
	case errors.Is(err, org.ErrInvalidEmail):
		return platformField("email", "not a valid email address")
	case err != nil:
		s.log.ErrorContext(ctx, "signup failed", "error", err, "request_id", requestID(ctx))
		return newError(http.StatusInternalServerError, "signup_failed", "The account could not be created. Retry, and quote the request_id if it persists.")
	}
	s.setSession(w, r, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires, res.Session.RefreshExpires)
	out := sessionOf(res.UserID, res.Email, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires)
	out.OrgID, out.WorkspaceID = res.OrgID, res.WorkspaceID
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func sessionOf(userID, email, access, refresh string, expires time.Time) sessionResponse {
	return sessionResponse{UserID: userID, Email: email,
		Session: sessionBody{AccessToken: access, RefreshToken: refresh, ExpiresAt: expires.Unix()}}
}

type loginBody struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// errInvalidCredentials never says which half was wrong.
var errInvalidCredentials = newError(http.StatusUnauthorized, "invalid_credentials", "The email or the password is wrong.")

// login is POST /api/auth/login.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	var body loginBody
	if err := platformBody(w, r, &body, false); err != nil {
		return err
	}
	switch {
	case body.Email == nil || strings.TrimSpace(*body.Email) == "":
		return errMissingField("email")
	case body.Password == nil || *body.Password == "":
		return errMissingField("password")
	}
	ctx := r.Context()
	ipKey, emailKey := "login:ip:"+clientIP(ctx), "login:email:"+user.HashToken(org.NormalizeEmail(*body.Email))
	if err := s.limit(ctx, ipKey, loginsPerIP, loginWindow, "Too many login attempts from this address; wait before retrying."); err != nil {
		return err
	}
	if err := s.limit(ctx, emailKey, loginsPerEmail, loginWindow, "Too many login attempts for this account; wait before retrying."); err != nil {
		s.undo(ctx, ipKey)
		return err
	}
	res, err := s.commands.LogIn.Handle(ctx, commands.LogIn{Email: *body.Email, Password: *body.Password, ClientIP: clientIP(ctx)})
	if errors.Is(err, user.ErrInvalidCredentials) {
		return errInvalidCredentials
	}
	if err != nil {
		return err
	}
	s.undo(ctx, ipKey)
	s.undo(ctx, emailKey)
	s.setSession(w, r, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires, res.Session.RefreshExpires)
	writeJSON(w, http.StatusOK, sessionOf(res.UserID, res.Email, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires))
	return nil
}

type refreshBody struct {
	RefreshToken *string `json:"refresh_token"`
}

// refresh is POST /api/auth/refresh: the refresh token (body or cookie)
// for new tokens; the old refresh token stops working, and presenting it
// again ends the session.
func (s *Server) refresh(w http.ResponseWriter, r *http.Request) error {
	var body refreshBody
	if err := platformBody(w, r, &body, true); err != nil {
		return err
	}
	token := ""
	if body.RefreshToken != nil {
		token = *body.RefreshToken
	} else if c, err := r.Cookie(refreshCookie); err == nil {
		token = c.Value
	}
	if token == "" {
		return errMissingField("refresh_token")
	}
	res, err := s.commands.RefreshSession.Handle(r.Context(), commands.RefreshSession{Refresh: token})
	if errors.Is(err, user.ErrInvalidCredentials) {
		s.clearSession(w, r)
		return newError(http.StatusUnauthorized, "unauthorized", "The refresh token is unknown, expired or already used.").
			withFix("Log in again with POST /api/auth/login.")
	}
	if err != nil {
		return err
	}
	s.setSession(w, r, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires, res.Session.RefreshExpires)
	writeJSON(w, http.StatusOK, sessionOf(res.UserID, res.Email, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires))
	return nil
}

// logout is POST /api/auth/logout (session cookie): the session ends on
// every instance at once. Without a live session it is 401.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return errNoSession
	}
	if err := noBody(w, r); err != nil {
		return err
	}
	res, err := s.commands.LogOut.Handle(r.Context(), commands.LogOut{Access: c.Value})
	if err != nil {
		return err
	}
	s.clearSession(w, r)
	if !res.Ended {
		return errNoSession
	}
	writeJSON(w, http.StatusOK, successResponse{Success: true})
	return nil
}

var errNoSession = newError(http.StatusUnauthorized, "unauthorized", "This needs a signed-in session (the session cookie).").
	withFix("Log in with POST /api/auth/login; the answer sets the cookie.")

// callback is GET /api/auth/callback?code=...&next=...: a mailed one-time
// code signs the user in (verifying their email when it is a verification
// code) and redirects to next, a local path (default /dashboard).
func (s *Server) callback(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	code := q.Get("code")
	if code == "" {
		return errMissingField("code")
	}
	next := localPath(q.Get("next"))
	res, err := s.commands.UseAuthCode.Handle(r.Context(), commands.UseAuthCode{Code: code, ClientIP: clientIP(r.Context())})
	if errors.Is(err, user.ErrInvalidCode) {
		return newError(http.StatusBadRequest, "invalid_code", "This link is not valid, has expired or was already used.").
			withFix("Log in with your password, or ask for a new link.")
	}
	if err != nil {
		return err
	}
	s.setSession(w, r, res.Session.Access, res.Session.Refresh, res.Session.AccessExpires, res.Session.RefreshExpires)
	http.Redirect(w, r, next, http.StatusFound)
	return nil
}

// localPath is p when it is a path of this site, else /dashboard: no
// scheme, no host, no protocol-relative //host, no backslash tricks.
func localPath(p string) string {
	const fallback = "/dashboard"
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n\t") {
		return fallback
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return fallback
	}
	return p
}

// secure reports whether r came over HTTPS (directly, or through a trusted
// proxy that says so).
func (s *Server) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	return strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") && s.peerTrusted(r)
}

func (s *Server) setSession(w http.ResponseWriter, r *http.Request, access, refresh string, accessExpires, refreshExpires time.Time) {
	sec := s.secure(r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: access, Path: "/", Expires: accessExpires,
		MaxAge: int(time.Until(accessExpires).Seconds()), HttpOnly: true, Secure: sec, SameSite: http.SameSiteLaxMode})
	for _, p := range refreshPaths {
		http.SetCookie(w, &http.Cookie{Name: refreshCookie, Value: refresh, Path: p, Expires: refreshExpires,
			MaxAge: int(time.Until(refreshExpires).Seconds()), HttpOnly: true, Secure: sec, SameSite: http.SameSiteLaxMode})
	}
}

func (s *Server) clearSession(w http.ResponseWriter, r *http.Request) {
	sec := s.secure(r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: sec, SameSite: http.SameSiteLaxMode})
	for _, p := range refreshPaths {
		http.SetCookie(w, &http.Cookie{Name: refreshCookie, Value: "", Path: p, MaxAge: -1, HttpOnly: true, Secure: sec, SameSite: http.SameSiteLaxMode})
	}
}

// sessionPrincipal resolves the session cookie, once the user's earlier
// fenced writes are in the read models; nil without a valid one.
func (s *Server) sessionPrincipal(r *http.Request) (*projections.Principal, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return nil, nil
	}
	p, err := s.queries.SessionPrincipal(r.Context(), c.Value)
	if errors.Is(err, projections.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// read-your-writes, as for a key (principal): what the user wrote
	// earlier and answered on commit (a plan) is in the read models first
	s.queries.AwaitFences(r.Context(), p.Actor(), readsOf(r.Context()))
	return &p, nil
}

// limit counts a request against key's sliding window; past limit it is
// 429 rate_limited with retry_after_seconds. It degrades open.
func (s *Server) limit(ctx context.Context, key string, limit int, window time.Duration, message string) error {
	d, err := s.limiter.Allow(ctx, key, limit, window)
	if err != nil {
		s.log.WarnContext(ctx, "rate limiter unavailable; letting the request through", "error", err, "key", key)
		return nil
	}
	if d.Allowed {
		return nil
	}
	secs := retrySeconds(d.RetryAfter)
	return newError(http.StatusTooManyRequests, "rate_limited", message).
		withDetail("retry_after_seconds", secs).withRetryAfterSeconds(secs)
}

// undo gives back the last request counted for key.
func (s *Server) undo(ctx context.Context, key string) {
	u, ok := s.limiter.(LimitUndoer)
	if !ok {
		return
	}
	if err := u.Undo(ctx, key); err != nil {
		s.log.WarnContext(ctx, "rate limiter undo failed", "error", err, "key", key)
	}
}
