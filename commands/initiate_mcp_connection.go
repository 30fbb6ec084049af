package commands

import (
	"context"
	"errors"
	"fmt"

	"svc/domain/connection"
)

// McpOAuth is the OAuth side of MCP connections (adapters/oauth): the
// configured providers, the authorization URL with its sealed state, and
// the code exchange.
type McpOAuth interface {
	// Providers lists the providers configured for OAuth.
	Providers() []string
	// AuthorizationURL starts an authorization of g: the provider's URL,
	// whose state carries the flow sealed. connection.ErrUnknownProvider,
	// connection.ErrModeUnavailable.
	AuthorizationURL(g connection.Grant) (string, error)
	// OpenState opens a state of AuthorizationURL: connection.
	// ErrInvalidState (forged or altered), connection.ErrStateExpired.
	OpenState(state string) (connection.Flow, error)
	// Exchange trades the callback's code for the provider's token, with
	// the flow's PKCE verifier.
	Exchange(ctx context.Context, f connection.Flow, code string) (connection.Token, error)
}

// InitiateMcpConnection starts an admin's OAuth authorization of the
// organization's connection to an MCP provider. Nothing is stored: the
// flow travels in the state until the callback (AuthorizeMcpConnection).
type InitiateMcpConnection struct {
	OrgID, WorkspaceID string
	Actor              string // "key:<id>" or "user:<id>"
	Provider           string
	PermissionMode     string // "" is read
}

// McpConnectionInitiated is the outcome of InitiateMcpConnection.
type McpConnectionInitiated struct {
	AuthorizationURL string
	PermissionMode   connection.PermissionMode
}

// ProviderUnavailableError refuses a provider that is not configured for
// OAuth (it wraps connection.ErrUnknownProvider), or a permission mode it
// does not offer (connection.ErrModeUnavailable). Available lists the
// configured providers.
type ProviderUnavailableError struct {
	Provider  string
	Mode      connection.PermissionMode
	Available []string
	Err       error
}

func (e *ProviderUnavailableError) Error() string {
	if errors.Is(e.Err, connection.ErrModeUnavailable) {
		return fmt.Sprintf("provider %q offers no %s access", e.Provider, e.Mode)
	}
	return fmt.Sprintf("provider %q is not available for OAuth", e.Provider)
}

func (e *ProviderUnavailableError) Unwrap() error { return e.Err }

// InitiateMcpConnectionHandler handles InitiateMcpConnection.
type InitiateMcpConnectionHandler struct{ oauth McpOAuth }

// NewInitiateMcpConnectionHandler returns a handler over oauth; nil means
// no provider is configured.
func NewInitiateMcpConnectionHandler(oauth McpOAuth) InitiateMcpConnectionHandler {
	return InitiateMcpConnectionHandler{oauth: oauth}
}

// Handle checks the permission mode (connection.ErrInvalidPermissionMode)
// and the provider (*ProviderUnavailableError) and returns the URL the
// admin's browser goes to.
func (h InitiateMcpConnectionHandler) Handle(_ context.Context, cmd InitiateMcpConnection) (McpConnectionInitiated, error) {
	mode, err := connection.ParsePermissionMode(cmd.PermissionMode)
	if err != nil {
		return McpConnectionInitiated{}, err
	}
	if h.oauth == nil {
		return McpConnectionInitiated{}, &ProviderUnavailableError{Provider: cmd.Provider, Mode: mode, Available: []string{}, Err: connection.ErrUnknownProvider}
	}
	u, err := h.oauth.AuthorizationURL(connection.Grant{OrgID: cmd.OrgID, WorkspaceID: cmd.WorkspaceID, Actor: cmd.Actor,
		Provider: cmd.Provider, Mode: mode})
	if errors.Is(err, connection.ErrUnknownProvider) || errors.Is(err, connection.ErrModeUnavailable) {
		return McpConnectionInitiated{}, &ProviderUnavailableError{Provider: cmd.Provider, Mode: mode, Available: h.oauth.Providers(), Err: err}
	}
	if err != nil {
		return McpConnectionInitiated{}, fmt.Errorf("initiate mcp connection: %w", err)
	}
	return McpConnectionInitiated{AuthorizationURL: u, PermissionMode: mode}, nil
}
