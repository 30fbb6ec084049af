package apikey

import "svc/eventstore/event"

// Event types of an API key stream.
const (
	EventCreated = "ApiKeyCreated"
	EventRevoked = "ApiKeyRevoked"
)

// Created is the data of ApiKeyCreated.
type Created struct {
	KeyID       string `json:"key_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	Hash        string `json:"hash"`
	Prefix      string `json:"prefix"`
	Label       string `json:"label"`
	Role        Role   `json:"role"`
	CreatedBy   string `json:"created_by"`
}

// Revoked is the data of ApiKeyRevoked.
type Revoked struct {
	KeyID string `json:"key_id"`
	OrgID string `json:"org_id"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Revoked) EventType() string { return EventRevoked }

// RegisterEvents registers the events of an API key stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[Revoked](r)
}

var registry = event.NewRegistry(RegisterEvents)
