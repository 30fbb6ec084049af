package connection

import (
	"time"

	"svc/eventstore/event"
)

// Event types of an MCP connection stream.
const (
	EventAuthorized = "McpConnectionAuthorized"
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

// EventType implements event.Data.
func (Authorized) EventType() string { return EventAuthorized }

// RegisterEvents registers the events of an MCP connection stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Authorized](r)
}

var registry = event.NewRegistry(RegisterEvents)
