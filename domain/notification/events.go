// Package notification holds an organization's in-app notifications
// (spec B, Notifications): what derives one from an event of another
// aggregate (From), and the one event of its own, NotificationsRead, on
// the organization's notification stream (notifications-<org id>).
package notification

import "svc/eventstore/event"

// EventRead is the type of NotificationsRead.
const EventRead = "NotificationsRead"

// Stream is the notification stream of organization orgID: only its
// NotificationsRead events.
func Stream(orgID string) string { return "notifications-" + orgID }

// Read is the data of NotificationsRead: a member or key of the
// organization marked notifications read. With All, every notification of
// the organization derived before this event in the log (its unread ones);
// otherwise the listed ids, each the organization's (the API drops the
// others before appending). By is the actor ("key:<id>", "user:<id>").
type Read struct {
	OrgID string   `json:"org_id"`
	IDs   []string `json:"ids,omitempty"`
	All   bool     `json:"all,omitempty"`
	By    string   `json:"by,omitempty"`
}

// EventType implements event.Data.
func (Read) EventType() string { return EventRead }

// RegisterEvents registers the events of notification streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Read](r)
}
