package hook

import "svc/eventstore/event"

// Event types of workspace webhook endpoint streams (hook-<id>).
const (
	EventCreated = "WebhookEndpointCreated"
	EventUpdated = "WebhookEndpointUpdated"
	EventDeleted = "WebhookEndpointDeleted"
)

// Created is the data of WebhookEndpointCreated. SealedSecret is the
// signing secret sealed with the service key; it is never shown again.
type Created struct {
	EndpointID   string   `json:"endpoint_id"`
	OrgID        string   `json:"org_id"`
	WorkspaceID  string   `json:"workspace_id"`
	URL          string   `json:"url"`
	Events       []string `json:"events"`
	Description  string   `json:"description"`
	Active       bool     `json:"active"`
	SealedSecret string   `json:"sealed_secret"`
}

// Updated is the data of WebhookEndpointUpdated: the endpoint's settings
// after the change, all of them.
type Updated struct {
	EndpointID  string   `json:"endpoint_id"`
	OrgID       string   `json:"org_id"`
	WorkspaceID string   `json:"workspace_id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	Active      bool     `json:"active"`
}

// Deleted is the data of WebhookEndpointDeleted.
type Deleted struct {
	EndpointID  string `json:"endpoint_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Updated) EventType() string { return EventUpdated }

// EventType implements event.Data.
func (Deleted) EventType() string { return EventDeleted }

// RegisterEvents registers the events of endpoint streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[Updated](r)
	event.Register[Deleted](r)
}

var registry = event.NewRegistry(RegisterEvents)
