package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"svc/commands"
	"svc/domain/connection"
	"svc/eventstore/event"
)

// connectionsPage is where the callback sends the admin's browser back
// (relative to the service's base URL), with provider, status and, on
// failure, reason.
const connectionsPage = "/dashboard/connections"

type mcpInitiateBody struct {
	Provider       *string `json:"provider"`
	PermissionMode *string `json:"permission_mode"`
}

// mcpInitiateResponse is the answer of POST /api/auth/mcp/initiate.
type mcpInitiateResponse struct {
	AuthorizationURL string `json:"authorization_url"`
}

// mcpInitiate is POST /api/auth/mcp/initiate (admin): the provider's
// authorization URL, with PKCE and a sealed state, for the admin's
// browser.
func (s *Server) mcpInitiate(w http.ResponseWriter, r *http.Request) error {
	var body mcpInitiateBody
	if err := platformBody(w, r, &body, true); err != nil {
		return err
	}
	if body.Provider == nil || strings.TrimSpace(*body.Provider) == "" {
		return errMissingField("provider")
	}
	mode := string(connection.Read)
	if body.PermissionMode != nil {
		mode = *body.PermissionMode
	}
	if _, err := connection.ParsePermissionMode(mode); err != nil || mode == "" {
		return errPermissionMode(mode)
	}
	ctx := r.Context()
	p, _ := principalOf(ctx)
	res, err := s.commands.InitiateMcpConnection.Handle(ctx, commands.InitiateMcpConnection{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID,
		Actor: p.Actor(), Provider: strings.TrimSpace(*body.Provider), PermissionMode: mode})
	var unavailable *commands.ProviderUnavailableError
	switch {
	case errors.Is(err, connection.ErrInvalidPermissionMode):
		return errPermissionMode(mode)
	case errors.As(err, &unavailable) && errors.Is(err, connection.ErrModeUnavailable):
		return newError(http.StatusBadRequest, "invalid_body", "Provider "+strconv.Quote(unavailable.Provider)+" offers no "+
			string(unavailable.Mode)+" access; use permission_mode read.").
			withDetail("field", "permission_mode").withDetail("provider", unavailable.Provider).withDetail("allowed", []connection.PermissionMode{connection.Read})
	case errors.As(err, &unavailable):
		msg := "Provider " + strconv.Quote(unavailable.Provider) + " is not available for OAuth."
		if len(unavailable.Available) > 0 {
			msg += " Available: " + strings.Join(unavailable.Available, ", ") + "."
		} else {
			msg += " No provider is configured on this server."
		}
		return newError(http.StatusBadRequest, "invalid_body", msg).
			withDetail("field", "provider").withDetail("provider", unavailable.Provider).withDetail("available", unavailable.Available)
	case err != nil:
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, mcpInitiateResponse{AuthorizationURL: res.AuthorizationURL})
	return nil
}

// errPermissionMode refuses a permission_mode that is not one.
func errPermissionMode(mode string) *apiError {
	return newError(http.StatusBadRequest, "invalid_body", "Field permission_mode must be read or read_write; got "+strconv.Quote(mode)+".").
		withDetail("field", "permission_mode").withDetail("allowed", connection.Modes)
}

// mcpCallback is GET /api/auth/mcp/callback, where the provider sends the
// admin's browser back: it stores the token and redirects to the
// connections page, with status=connected or status=error&reason=... A
// state that is missing, forged, expired or used cannot say where to go
// back nor whose connection it is: 400 invalid_state.
func (s *Server) mcpCallback(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		return errMissingField("state")
	}
	// no caller: the command takes the org and actor from the state
	ctx := event.WithMetadata(r.Context(), event.Metadata{RequestID: requestID(r.Context())})
	res, err := s.commands.AuthorizeMcpConnection.Handle(ctx, commands.AuthorizeMcpConnection{
		State: state, Code: q.Get("code"), ProviderError: q.Get("error")})
	var failed *commands.McpAuthorizationError
	switch {
	case errors.Is(err, connection.ErrStateExpired):
		return errInvalidState("expired", "This authorization took longer than "+connection.StateLifetime.String()+" and has expired.")
	case errors.Is(err, connection.ErrStateUsed):
		return errInvalidState("used", "This authorization was already completed or refused; it can be used once.")
	case errors.Is(err, connection.ErrInvalidState):
		return errInvalidState("invalid", "This authorization state was not issued by this service, or was altered.")
	case errors.As(err, &failed):
		s.redirectToConnections(w, res.Provider, url.Values{"status": {"error"}, "reason": {failed.Reason}})
		return nil
	case err != nil:
		// the state is spent: the admin starts again from the dashboard
		s.log.ErrorContext(ctx, "mcp authorization failed", "error", err.Error(), "provider", res.Provider, "org_id", res.OrgID,
			"request_id", requestID(ctx))
		s.redirectToConnections(w, res.Provider, url.Values{"status": {"error"}, "reason": {"internal_error"}})
		return nil
	}
	s.redirectToConnections(w, res.Provider, url.Values{"status": {"connected"}})
	return nil
}

// errInvalidState answers a callback whose state cannot be trusted.
func errInvalidState(reason, msg string) *apiError {
	return newError(http.StatusBadRequest, "invalid_state", msg).
		withFix("Start the connection again with POST /api/auth/mcp/initiate.").withDetail("reason", reason)
}

// redirectToConnections answers 302 to the connections page. The callback
// URL holds the code and the state: no cache keeps the answer, and the
// page is not told where the browser came from.
func (s *Server) redirectToConnections(w http.ResponseWriter, provider string, q url.Values) {
	q.Set("provider", provider)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Location", connectionsPage+"?"+q.Encode())
	w.WriteHeader(http.StatusFound)
}
