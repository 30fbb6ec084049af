package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"

	"github.com/jackc/pgx/v5"

	"svc/domain/connection"
	"svc/eventstore"
)

// ContextServers is what the connection commands need of the world
// outside (mcpctx.Gateway): the SSRF rules of a server URL, the checked
// resolution of its host, and MCP initialize.
type ContextServers interface {
	// CheckURL refuses a URL whose host is a private, reserved or
	// metadata address literal or an internal name (unless private
	// addresses are allowed); Blocked tells such a refusal.
	CheckURL(raw string) error
	// Resolve resolves host and checks every A and AAAA record.
	Resolve(ctx context.Context, host string) ([]netip.Addr, error)
	// Initialize connects to the server of a, sends MCP initialize only,
	// and returns what it answered.
	Initialize(ctx context.Context, a connection.Access) (connection.Capabilities, error)
	// Blocked reports whether an error of CheckURL, Resolve or Initialize
	// is a refusal of the SSRF rules.
	Blocked(err error) bool
}

// Connection errors of the commands (beside the aggregate's).
var (
	// ErrConnectionURL wraps a server URL the SSRF rules refuse.
	ErrConnectionURL = errors.New("server url refused")
	// ErrNotAuthorized: an oauth connection without an access token, of
	// a provider the organization has not authorized (POST
	// /api/auth/mcp/initiate).
	ErrNotAuthorized = errors.New("provider not authorized with oauth")
	// ErrNoGateway: the handler was built without ContextServers.
	ErrNoGateway = errors.New("no context-server gateway")
)

// sealedCredential is what connection_credentials holds, sealed: the
// credential with its organization and connection, so a reader can tell
// a row copied from another connection's.
type sealedCredential struct {
	OrgID        string `json:"org_id"`
	ConnectionID string `json:"connection_id"`
	Token        string `json:"token,omitempty"`
	Key          string `json:"key,omitempty"`
	Header       string `json:"header,omitempty"`
	AccessToken  string `json:"access_token,omitempty"`
}

// storeCredential writes connection id's credential sealed, replacing the
// one it had; an empty credential deletes it (an oauth connection back
// on the organization's authorization).
func storeCredential(tx *eventstore.Tx, s Sealer, orgID, id string, c connection.Credential) error {
	if c == (connection.Credential{}) {
		return clearCredential(tx, id)
	}
	raw, err := json.Marshal(sealedCredential{OrgID: orgID, ConnectionID: id, Token: c.Token, Key: c.Key, Header: c.Header, AccessToken: c.AccessToken})
	if err != nil {
		return fmt.Errorf("encode credential: %w", err)
	}
	_, err = tx.DB().Exec(tx.Context(), `INSERT INTO connection_credentials (connection_id, org_id, sealed, updated_at) VALUES ($1, $2, $3, now())
		ON CONFLICT (connection_id) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at`, id, orgID, s.Seal(raw))
	if err != nil {
		return fmt.Errorf("store credential: %w", err)
	}
	return nil
}

// clearCredential deletes connection id's credential.
func clearCredential(tx *eventstore.Tx, id string) error {
	if _, err := tx.DB().Exec(tx.Context(), `DELETE FROM connection_credentials WHERE connection_id = $1`, id); err != nil {
		return fmt.Errorf("clear credential: %w", err)
	}
	return nil
}

// accessOf is how the gateway reaches connection s: its own credential
// (connection_credentials), or for an oauth connection on the
// organization's authorization the access token of mcp_tokens.
func accessOf(ctx context.Context, db eventstore.DB, o Opener, s connection.Server) (connection.Access, error) {
	a := connection.Access{ServerURL: s.ServerURL, Transport: s.Transport, Header: map[string]string{}}
	if s.AuthType == connection.AuthNone {
		return a, nil
	}
	if o == nil {
		return a, errors.New("no opener for sealed credentials")
	}
	var c connection.Credential
	if s.OAuthLinked {
		var sealed string
		err := db.QueryRow(ctx, `SELECT sealed FROM mcp_tokens WHERE org_id = $1 AND provider = $2`, s.OrgID, s.Provider).Scan(&sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			return a, nil // no token: the server will refuse, and the test says so
		}
		if err != nil {
			return a, fmt.Errorf("read oauth token: %w", err)
		}
		var tok sealedToken
		if err := open(o, sealed, &tok); err != nil || tok.OrgID != s.OrgID || tok.Provider != s.Provider {
			return a, fmt.Errorf("open oauth token of %s: %w", s.Provider, errors.Join(err, errors.New("not this connection's")))
		}
		c.AccessToken = tok.AccessToken
	} else {
		var sealed string
		err := db.QueryRow(ctx, `SELECT sealed FROM connection_credentials WHERE connection_id = $1`, s.ID).Scan(&sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			return a, nil
		}
		if err != nil {
			return a, fmt.Errorf("read credential: %w", err)
		}
		var sc sealedCredential
		if err := open(o, sealed, &sc); err != nil {
			return a, fmt.Errorf("open credential: %w", err)
		}
		if sc.OrgID != s.OrgID || sc.ConnectionID != s.ID {
			return a, errors.New("open credential: the row is another connection's")
		}
		c = connection.Credential{Token: sc.Token, Key: sc.Key, Header: sc.Header, AccessToken: sc.AccessToken}
	}
	a.Header = c.Headers(s.AuthType)
	return a, nil
}

// open opens sealed into v.
func open(o Opener, sealed string, v any) error {
	raw, err := o.Open(sealed)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
