package workspace

import "svc/eventstore/event"

// EventCreated starts a workspace stream.
const EventCreated = "WorkspaceCreated"

// Created is the data of WorkspaceCreated.
type Created struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	IsDefault   bool   `json:"is_default"`
}

// EventType implements event.Data.
func (Created) EventType() string { return EventCreated }

// RegisterEvents registers the events of a workspace stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Created](r)
}
