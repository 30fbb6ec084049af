package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"svc/domain/connection"
	"svc/eventstore"
	"svc/eventstore/event"
)

// AuthorizeMcpConnection finishes an authorization InitiateMcpConnection
// started: the provider's redirect to the callback, with the state and
// either a code or the provider's error.
type AuthorizeMcpConnection struct {
	State string
	Code  string
	// ProviderError is the callback's error parameter ("access_denied"...).
	ProviderError string
}

// McpConnectionAuthorized is the outcome of AuthorizeMcpConnection. Once
// the state has opened, OrgID and Provider are set even when the command
// fails with an *McpAuthorizationError.
type McpConnectionAuthorized struct {
	OrgID          string
	Provider       string
	PermissionMode connection.PermissionMode
	Scopes         []string
	Position       event.Position
}

// Reasons of an McpAuthorizationError, beside the provider's own error
// codes (RFC 6749 4.1.2.1) passed through.
const (
	ReasonProviderError  = "provider_error"  // an error code outside RFC 6749's
	ReasonMissingCode    = "missing_code"    // neither code nor error
	ReasonExchangeFailed = "exchange_failed" // the token endpoint refused or failed
)

// providerErrors are the error codes of an authorization response (RFC
// 6749 4.1.2.1) reported as they are; any other is ReasonProviderError.
var providerErrors = []string{"invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type",
	"invalid_scope", "server_error", "temporarily_unavailable"}

// McpAuthorizationError is an authorization that failed at the provider,
// after its state was accepted (and spent): the admin may start again.
type McpAuthorizationError struct {
	Reason string // the redirect's reason parameter
	Err    error  // never quotes a token or the provider's answer
}

func (e *McpAuthorizationError) Error() string {
	if e.Err == nil {
		return "mcp authorization failed: " + e.Reason
	}
	return "mcp authorization failed: " + e.Reason + ": " + e.Err.Error()
}

func (e *McpAuthorizationError) Unwrap() error { return e.Err }

// staleStates is how long after its expiry a used state's nonce is kept:
// past its expiry a state is refused anyway, the margin covers instances
// whose clocks differ.
const staleStates = 24 * time.Hour

// AuthorizeMcpConnectionHandler handles AuthorizeMcpConnection.
type AuthorizeMcpConnectionHandler struct {
	repos       *Repositories
	oauth       McpOAuth
	sealer      Sealer
	connections *eventstore.Repository[*connection.Connection]
}

// NewAuthorizeMcpConnectionHandler returns a handler over repos; oauth nil
// means no provider is configured (every state is refused). The provider
// token is stored sealed by sealer.
func NewAuthorizeMcpConnectionHandler(repos *Repositories, oauth McpOAuth, sealer Sealer) AuthorizeMcpConnectionHandler {
	if sealer == nil {
		panic("commands: nil sealer")
	}
	repos = must(repos)
	return AuthorizeMcpConnectionHandler{repos: repos, oauth: oauth, sealer: sealer,
		connections: repos.Connections}
}

// Handle opens the state (connection.ErrInvalidState, ErrStateExpired),
// spends it (connection.ErrStateUsed for a second use, from any instance),
// then exchanges the code and, in one transaction, appends
// McpConnectionAuthorized and stores the token sealed in mcp_tokens. A
// failure at the provider is an *McpAuthorizationError. The state is spent
// before the exchange, so two callbacks of one state never both exchange
// its code (a server seeing a code twice may revoke what it issued).
func (h AuthorizeMcpConnectionHandler) Handle(ctx context.Context, cmd AuthorizeMcpConnection) (McpConnectionAuthorized, error) {
	if h.oauth == nil {
		return McpConnectionAuthorized{}, connection.ErrInvalidState
	}
	f, err := h.oauth.OpenState(cmd.State)
	if err != nil {
		return McpConnectionAuthorized{}, err
	}
	out := McpConnectionAuthorized{OrgID: f.OrgID, Provider: f.Provider, PermissionMode: f.Mode}
	if err := h.spend(ctx, f); err != nil {
		return out, err
	}
	switch {
	case cmd.ProviderError != "":
		reason := ReasonProviderError
		if slices.Contains(providerErrors, cmd.ProviderError) {
			reason = cmd.ProviderError
		}
		return out, &McpAuthorizationError{Reason: reason}
	case cmd.Code == "":
		return out, &McpAuthorizationError{Reason: ReasonMissingCode}
	}
	tok, err := h.oauth.Exchange(ctx, f, cmd.Code)
	if err != nil {
		return out, &McpAuthorizationError{Reason: ReasonExchangeFailed, Err: err}
	}
	sealed, err := sealToken(h.sealer, f, tok)
	if err != nil {
		return out, err
	}
	id := connection.ID(f.OrgID, f.Provider)
	pos, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: f.OrgID, Actor: f.Actor}}, func(tx *eventstore.Tx) error {
		c, err := h.connections.Load(tx, id)
		if err != nil {
			return err
		}
		authorized, err := c.Authorize(f, tok.Scopes, tok.Expiry)
		if err != nil {
			return err
		}
		if _, err := h.connections.Save(tx, id, c, authorized); err != nil {
			return err
		}
		out.Scopes = authorized.Scopes
		_, err = tx.DB().Exec(tx.Context(), `INSERT INTO mcp_tokens (org_id, provider, sealed, updated_at) VALUES ($1, $2, $3, now())
			ON CONFLICT (org_id, provider) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at`,
			f.OrgID, f.Provider, sealed)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("authorize mcp connection: %w", err)
	}
	out.Position = pos
	return out, nil
}

// spend records the state's nonce (mcp_oauth_states, primary key), so the
// state is used once across instances; connection.ErrStateUsed when it was
// recorded already. Nonces long expired are deleted on the way.
func (h AuthorizeMcpConnectionHandler) spend(ctx context.Context, f connection.Flow) error {
	_, err := h.repos.Store.Run(ctx, eventstore.TxOptions{Attempts: 1}, func(tx *eventstore.Tx) error {
		tag, err := tx.DB().Exec(tx.Context(), `INSERT INTO mcp_oauth_states (nonce, org_id, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (nonce) DO NOTHING`, f.Nonce, f.OrgID, f.ExpiresAt)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return connection.ErrStateUsed
		}
		_, err = tx.DB().Exec(tx.Context(), `DELETE FROM mcp_oauth_states WHERE expires_at < $1`, time.Now().Add(-staleStates))
		return err
	})
	if err != nil && !errors.Is(err, connection.ErrStateUsed) {
		return fmt.Errorf("authorize mcp connection: record state: %w", err)
	}
	return err
}

// sealedToken is what mcp_tokens holds, sealed: the token with its
// organization and provider, so a reader can tell a row copied from
// another connection's.
type sealedToken struct {
	OrgID        string     `json:"org_id"`
	Provider     string     `json:"provider"`
	AccessToken  string     `json:"access_token"`
	RefreshToken string     `json:"refresh_token,omitempty"`
	TokenType    string     `json:"token_type,omitempty"`
	Expiry       *time.Time `json:"expiry,omitempty"`
	Scopes       []string   `json:"scopes"`
}

func sealToken(s Sealer, f connection.Flow, tok connection.Token) (string, error) {
	st := sealedToken{OrgID: f.OrgID, Provider: f.Provider, AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken,
		TokenType: tok.TokenType, Scopes: tok.Scopes}
	if !tok.Expiry.IsZero() {
		at := tok.Expiry.UTC()
		st.Expiry = &at
	}
	if st.Scopes == nil {
		st.Scopes = []string{}
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("authorize mcp connection: encode token: %w", err)
	}
	return s.Seal(raw), nil
}
