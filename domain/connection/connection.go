// Package connection is the aggregate of an organization's connection to
// an MCP provider authorized with OAuth (spec B, POST /api/auth/mcp/initiate
// and its callback), and the vocabulary of that authorization: permission
// modes, the grant an admin asks for, the flow its signed state carries and
// the provider's token. The token is a secret: it is never in an event,
// and its String, GoString, LogValue and MarshalJSON hide it.
//
// It is also the organization's gateway of context-server connections
// (spec A, /api/rigor/connections; aggregate.go): external read-only MCP
// servers registered with a credential (a secret like the token), tested
// and listed with the provider registry (providers.go).
package connection

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"svc/eventstore/event"
)

// StateLifetime is how long an authorization started by initiate may take
// until its callback: a state older than that is refused.
const StateLifetime = 10 * time.Minute

// Domain errors.
var (
	// ErrUnknownProvider: the provider is not configured for OAuth.
	ErrUnknownProvider = errors.New("provider not available for OAuth")
	// ErrModeUnavailable: the provider offers no scopes for that mode.
	ErrModeUnavailable = errors.New("permission mode not offered by the provider")
	// ErrInvalidPermissionMode: neither read nor read_write.
	ErrInvalidPermissionMode = errors.New("invalid permission mode")
	// ErrInvalidState: a state the service did not issue, or altered.
	ErrInvalidState = errors.New("authorization state is not valid")
	// ErrStateExpired: a state older than StateLifetime.
	ErrStateExpired = errors.New("authorization state has expired")
	// ErrStateUsed: a state whose callback already ran.
	ErrStateUsed = errors.New("authorization state was already used")
	// ErrInvalidGrant: an authorization without an organization, provider,
	// actor or a valid mode, or for another connection's stream.
	ErrInvalidGrant = errors.New("invalid authorization")
)

// PermissionMode is what a connection may do at the provider.
type PermissionMode string

// Permission modes.
const (
	Read      PermissionMode = "read"
	ReadWrite PermissionMode = "read_write"
)

// Modes lists the permission modes, the default first.
var Modes = []PermissionMode{Read, ReadWrite}

// ParsePermissionMode returns the mode named s; "" is Read (the default).
func ParsePermissionMode(s string) (PermissionMode, error) {
	if s == "" {
		return Read, nil
	}
	if m := PermissionMode(s); slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("%w %q", ErrInvalidPermissionMode, s)
}

// Grant is what an admin asks for: a connection of the organization to
// Provider in Mode. Actor is who asks ("key:<id>", "user:<id>").
type Grant struct {
	OrgID       string
	WorkspaceID string
	Actor       string
	Provider    string
	Mode        PermissionMode
}

// Flow is an authorization under way, as its state carries it from
// initiate to the callback: the grant, the state's one-time Nonce, when it
// expires and the PKCE code verifier.
type Flow struct {
	Grant
	Nonce     string
	ExpiresAt time.Time
	Verifier  string
}

// Expired reports whether the flow's state is refused at now.
func (f Flow) Expired(now time.Time) bool { return !now.Before(f.ExpiresAt) }

// Token is the provider's answer to a code exchange. It is a secret: it is
// stored sealed and never returned, logged nor put in an event.
type Token struct {
	AccessToken  string
	RefreshToken string
	TokenType    string
	Expiry       time.Time // zero when the provider did not say
	Scopes       []string
}

const redacted = "[redacted token]"

// String hides the token.
func (Token) String() string { return redacted }

// GoString hides the token.
func (Token) GoString() string { return redacted }

// LogValue hides the token.
func (Token) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON hides the token: seal it through a type of your own.
func (Token) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// ID is the id of the connection of org to provider.
func ID(orgID, provider string) string { return orgID + ":" + provider }

// Stream is the stream id of connection id.
func Stream(id string) string { return "mcpconnection-" + id }

// Connection is the aggregate: one organization's connection to one
// provider.
type Connection struct {
	orgID          string
	provider       string
	mode           PermissionMode
	authorizations int
	version        int64
}

// New is a connection with no events yet.
func New(string) *Connection { return &Connection{version: event.NewStream} }

// Apply folds one event.
func (c *Connection) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("mcp connection: %w", err)
	}
	if d, ok := d.(Authorized); ok {
		c.orgID, c.provider, c.mode = d.OrgID, d.Provider, d.PermissionMode
		c.authorizations++
	}
	c.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (c *Connection) Version() int64 { return c.version }

// OrgID is the owning organization ("" before the first authorization).
func (c *Connection) OrgID() string { return c.orgID }

// Provider is the provider connected to.
func (c *Connection) Provider() string { return c.provider }

// Mode is the permission mode of the latest authorization.
func (c *Connection) Mode() PermissionMode { return c.mode }

// Authorizations counts the authorizations folded.
func (c *Connection) Authorizations() int { return c.authorizations }

// Authorize decides the authorization of flow f, whose code exchange gave
// scopes and a token expiring at expiry (zero: unknown). An organization
// may authorize a connection again at any time (a new token, another
// mode); the latest authorization is the connection's.
func (c *Connection) Authorize(f Flow, scopes []string, expiry time.Time) (Authorized, error) {
	switch {
	case f.OrgID == "" || f.Provider == "" || f.Actor == "":
		return Authorized{}, fmt.Errorf("%w: organization, provider and actor are required", ErrInvalidGrant)
	case !slices.Contains(Modes, f.Mode):
		return Authorized{}, fmt.Errorf("%w: %w %q", ErrInvalidGrant, ErrInvalidPermissionMode, f.Mode)
	case c.version != event.NewStream && (c.orgID != f.OrgID || c.provider != f.Provider):
		return Authorized{}, fmt.Errorf("%w: the stream is another connection's", ErrInvalidGrant)
	}
	a := Authorized{OrgID: f.OrgID, WorkspaceID: f.WorkspaceID, Provider: f.Provider, PermissionMode: f.Mode,
		Scopes: append([]string{}, scopes...), AuthorizedBy: f.Actor}
	if !expiry.IsZero() {
		at := expiry.UTC()
		a.ExpiresAt = &at
	}
	return a, nil
}
