package invite

import (
	"time"

	"svc/domain/apikey"
	"svc/eventstore/event"
)

// Event types of an invite stream.
const (
	EventCreated  = "InviteCreated"
	EventAccepted = "InviteAccepted"
	EventRevoked  = "InviteRevoked"
)

// Kinds of invites.
const (
	// Email is an invite mailed to one address: one use, by that address.
	Email = "email"
	// Link is an invite link anyone with the token may use, up to MaxUses.
	Link = "link"
)

// Created is the data of InviteCreated. The token itself is not here in
// clear: TokenHash finds and checks it, TokenSealed (a link's, sealed with
// the service's secret key) lets admins list it again.
type Created struct {
	InviteID    string      `json:"invite_id"`
	OrgID       string      `json:"org_id"`
	WorkspaceID string      `json:"workspace_id"`
	Kind        string      `json:"kind"`
	Email       string      `json:"email,omitempty"`
	Role        apikey.Role `json:"role"`
	ExpiresAt   time.Time   `json:"expires_at"`
	MaxUses     *int        `json:"max_uses"` // nil: unlimited
	TokenHash   string      `json:"token_hash"`
	TokenSealed string      `json:"token_sealed,omitempty"`
	CreatedBy   string      `json:"created_by"`
}

// Accepted is the data of InviteAccepted: one use.
type Accepted struct {
	InviteID    string `json:"invite_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	UserID      string `json:"user_id"`
}

// Revoked is the data of InviteRevoked.
type Revoked struct {
	InviteID    string `json:"invite_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Accepted) EventType() string { return EventAccepted }

// EventType implements event.Data.
func (Revoked) EventType() string { return EventRevoked }

// RegisterEvents registers the events of an invite stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[Accepted](r)
	event.Register[Revoked](r)
}

var registry = event.NewRegistry(RegisterEvents)
