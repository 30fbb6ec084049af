package connection

import (
	"time"

	"svc/eventstore/event"
)

// Event types of an MCP connection stream (OAuth) and of an organization's
// gateway stream (context-server connections, spec A).
const (
	EventAuthorized = "McpConnectionAuthorized"

	EventCreated    = "ContextConnectionCreated"
	EventUpdated    = "ContextConnectionUpdated"
	EventTested     = "ContextConnectionTested"
	EventTestFailed = "ContextConnectionTestFailed"
	EventToolCalled = "ContextConnectionToolCalled"
	EventRevoked    = "ContextConnectionRevoked"
)

// Authorized is the data of McpConnectionAuthorized: an admin authorized
// the organization's connection to a provider (OAuth authorization code
// flow). It never carries the token: that is sealed in mcp_tokens.
type Authorized struct {
	OrgID          string         `json:"org_id"`
	WorkspaceID    string         `json:"workspace_id"`
	Provider       string         `json:"provider"`
	PermissionMode PermissionMode `json:"permission_mode"`
	// Scopes are those the provider granted (the requested ones when its
	// answer names none).
	Scopes []string `json:"scopes"`
	// ExpiresAt is when the access token expires; nil when the provider
	// did not say.
	ExpiresAt    *time.Time `json:"expires_at"`
	AuthorizedBy string     `json:"authorized_by"`
}

// Created is the data of ContextConnectionCreated: an admin registered a
// context server. It never carries the credential: that is sealed in
// connection_credentials (migration 0013). OAuthLinked: an oauth
// connection without an access token of its own, which uses the token of
// the organization's OAuth authorization of Provider (mcp_tokens).
type Created struct {
	ConnectionID   string         `json:"connection_id"`
	OrgID          string         `json:"org_id"`
	WorkspaceID    string         `json:"workspace_id"` // "" at org scope
	Scope          Scope          `json:"scope"`
	DisplayName    string         `json:"display_name"`
	Label          string         `json:"label"`
	Provider       string         `json:"provider"`
	ServerURL      string         `json:"server_url"`
	Transport      string         `json:"transport"`
	AuthType       AuthType       `json:"auth_type"`
	PermissionMode PermissionMode `json:"permission_mode"`
	OAuthLinked    bool           `json:"oauth_linked"`
	CreatedBy      string         `json:"created_by"`
}

// Updated is the data of ContextConnectionUpdated: the connection's
// settings after a change, all of them; CredentialReplaced says the
// sealed credential was replaced (never what it is).
type Updated struct {
	ConnectionID       string         `json:"connection_id"`
	OrgID              string         `json:"org_id"`
	WorkspaceID        string         `json:"workspace_id"`
	DisplayName        string         `json:"display_name"`
	Label              string         `json:"label"`
	PermissionMode     PermissionMode `json:"permission_mode"`
	OAuthLinked        bool           `json:"oauth_linked"`
	CredentialReplaced bool           `json:"credential_replaced"`
	UpdatedBy          string         `json:"updated_by"`
}

// Tested is the data of ContextConnectionTested: every address of the
// server's host is public and the server answered MCP initialize; the
// connection is active.
type Tested struct {
	ConnectionID string       `json:"connection_id"`
	OrgID        string       `json:"org_id"`
	WorkspaceID  string       `json:"workspace_id"`
	ResolvedIPs  []string     `json:"resolved_ips"`
	Capabilities Capabilities `json:"capabilities"`
}

// TestFailed is the data of ContextConnectionTestFailed: the test was
// refused (Reason ReasonBlocked: an address of the host is private or
// reserved) or the server did not answer initialize; the connection's
// status is error.
type TestFailed struct {
	ConnectionID string   `json:"connection_id"`
	OrgID        string   `json:"org_id"`
	WorkspaceID  string   `json:"workspace_id"`
	ResolvedIPs  []string `json:"resolved_ips"`
	Reason       string   `json:"reason"`
	Error        string   `json:"error"`
}

// ToolCalled is the data of ContextConnectionToolCalled, appended by the
// gateway at a connection's first tool call: from then on its
// display_name, part of the tool names agents saw, is immutable. Nothing
// appends it yet: the gateway executes resource list and read only.
type ToolCalled struct {
	ConnectionID string `json:"connection_id"`
	OrgID        string `json:"org_id"`
	WorkspaceID  string `json:"workspace_id"`
	Tool         string `json:"tool"`
}

// Revoked is the data of ContextConnectionRevoked: the connection was
// deleted (spec A's soft delete); its record stays, its credential is
// cleared in the same transaction.
type Revoked struct {
	ConnectionID string `json:"connection_id"`
	OrgID        string `json:"org_id"`
	WorkspaceID  string `json:"workspace_id"`
	RevokedBy    string `json:"revoked_by"`
}

// EventType implements event.Data.
func (Authorized) EventType() string { return EventAuthorized }

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Updated) EventType() string { return EventUpdated }

// EventType implements event.Data.
func (Tested) EventType() string { return EventTested }

// EventType implements event.Data.
func (TestFailed) EventType() string { return EventTestFailed }

// EventType implements event.Data.
func (ToolCalled) EventType() string { return EventToolCalled }

// EventType implements event.Data.
func (Revoked) EventType() string { return EventRevoked }

// GatewayEvents are the event types of a gateway stream.
var GatewayEvents = []string{EventCreated, EventUpdated, EventTested, EventTestFailed, EventToolCalled, EventRevoked}

// RegisterEvents registers the events of MCP connection and gateway
// streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Authorized](r)
	event.Register[Created](r)
	event.Register[Updated](r)
	event.Register[Tested](r)
	event.Register[TestFailed](r)
	event.Register[ToolCalled](r)
	event.Register[Revoked](r)
}

var registry = event.NewRegistry(RegisterEvents)
