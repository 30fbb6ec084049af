package hook

import (
	"time"

	"svc/eventstore/event"
)

// Event types of workspace webhook endpoint streams (hook-<id>).
const (
	EventCreated = "WebhookEndpointCreated"
	EventUpdated = "WebhookEndpointUpdated"
	EventDeleted = "WebhookEndpointDeleted"
	// EventSecretRotated replaces the signing secret; the one before it
	// keeps signing beside it until its overlap ends.
	EventSecretRotated = "WebhookEndpointSecretRotated"
	// EventDeliveryFailed counts a delivery that gave up in the
	// endpoint's run of failures.
	EventDeliveryFailed = "WebhookEndpointDeliveryFailed"
	// EventRecovered ends a run of failures: a delivery arrived.
	EventRecovered = "WebhookEndpointRecovered"
	// EventDisabled turns the endpoint off after DisableAfter failed
	// deliveries in a row.
	EventDisabled = "WebhookEndpointDisabled"
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

// SecretRotated is the data of WebhookEndpointSecretRotated: the new
// secret, sealed, and the one it replaces with the end of its overlap
// (both empty when it stopped signing at once).
type SecretRotated struct {
	EndpointID           string     `json:"endpoint_id"`
	OrgID                string     `json:"org_id"`
	WorkspaceID          string     `json:"workspace_id"`
	SealedSecret         string     `json:"sealed_secret"`
	PreviousSealedSecret string     `json:"previous_sealed_secret,omitempty"`
	PreviousExpiresAt    *time.Time `json:"previous_expires_at,omitempty"`
}

// DeliveryFailed is the data of WebhookEndpointDeliveryFailed: delivery
// DeliveryID gave up, the Failures-th in a row.
type DeliveryFailed struct {
	EndpointID  string `json:"endpoint_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	DeliveryID  string `json:"delivery_id"`
	Failures    int    `json:"failures"`
}

// Recovered is the data of WebhookEndpointRecovered: delivery DeliveryID
// arrived after Failures deliveries in a row had given up.
type Recovered struct {
	EndpointID  string `json:"endpoint_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	DeliveryID  string `json:"delivery_id"`
	Failures    int    `json:"failures"`
}

// Disabled is the data of WebhookEndpointDisabled: the endpoint was
// turned off by the service (Reason "failing": Failures deliveries in a
// row gave up). A PATCH with active true turns it on again.
type Disabled struct {
	EndpointID  string `json:"endpoint_id"`
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	URL         string `json:"url"`
	Failures    int    `json:"failures"`
	Reason      string `json:"reason"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (Updated) EventType() string { return EventUpdated }

// EventType implements event.Data.
func (Deleted) EventType() string { return EventDeleted }

// EventType implements event.Data.
func (SecretRotated) EventType() string { return EventSecretRotated }

// EventType implements event.Data.
func (DeliveryFailed) EventType() string { return EventDeliveryFailed }

// EventType implements event.Data.
func (Recovered) EventType() string { return EventRecovered }

// EventType implements event.Data.
func (Disabled) EventType() string { return EventDisabled }

// RegisterEvents registers the events of endpoint streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[Updated](r)
	event.Register[Deleted](r)
	event.Register[SecretRotated](r)
	event.Register[DeliveryFailed](r)
	event.Register[Recovered](r)
	event.Register[Disabled](r)
}

var registry = event.NewRegistry(RegisterEvents)
