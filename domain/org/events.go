package org

import "svc/eventstore/event"

// Event types of the organization stream.
const (
	EventCreated       = "OrganizationCreated"
	EventEmailVerified = "EmailVerified"
	EventTierChanged   = "TierChanged"
	// EventWorkspaceAdded counts a workspace created after the default one,
	// so that the tier's limit holds under concurrent creations.
	EventWorkspaceAdded = "OrgWorkspaceAdded"
	// EventEmailReserved is the only event of an email's reservation stream;
	// appending it to a new stream makes an email belong to one org at most.
	EventEmailReserved = "EmailReserved"
	// EventSubscriptionChanged and EventCustomerLinked are the payment
	// processor's side of the organization (subscription.go).
	EventSubscriptionChanged = "SubscriptionChanged"
	EventCustomerLinked      = "BillingCustomerLinked"
)

// Created is the data of OrganizationCreated.
type Created struct {
	OrgID       string `json:"org_id"`
	Name        string `json:"name"`
	Email       string `json:"email,omitempty"`
	Tier        Tier   `json:"tier"`
	WorkspaceID string `json:"workspace_id"`
	// VerificationHash is the SHA-256 of the emailed verification token.
	VerificationHash string `json:"verification_hash,omitempty"`
	ClientIP         string `json:"client_ip,omitempty"`
}

// EmailVerified is the data of EmailVerified.
type EmailVerified struct {
	Email string `json:"email"`
}

// TierChanged is the data of TierChanged.
type TierChanged struct {
	From   Tier   `json:"from"`
	To     Tier   `json:"to"`
	Source string `json:"source"` // "operator", "billing", ...
}

// EmailReserved is the data of EmailReserved.
type EmailReserved struct {
	OrgID string `json:"org_id"`
}

// WorkspaceAdded is the data of OrgWorkspaceAdded.
type WorkspaceAdded struct {
	WorkspaceID string `json:"workspace_id"`
}

// EventType implements event.Data.
func (WorkspaceAdded) EventType() string { return EventWorkspaceAdded }

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// EventType implements event.Data.
func (EmailVerified) EventType() string { return EventEmailVerified }

// EventType implements event.Data.
func (TierChanged) EventType() string { return EventTierChanged }

// EventType implements event.Data.
func (EmailReserved) EventType() string { return EventEmailReserved }

// RegisterEvents registers the events of organization and email
// reservation streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
	event.Register[EmailVerified](r)
	event.Register[TierChanged](r)
	event.Register[EmailReserved](r)
	event.Register[WorkspaceAdded](r)
	event.Register[SubscriptionChanged](r)
	event.Register[CustomerLinked](r)
}

var registry = event.NewRegistry(RegisterEvents)
