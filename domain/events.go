package domain

import (
	"svc/domain/apikey"
	"svc/domain/connection"
	"svc/domain/credit"
	"svc/domain/deletion"
	"svc/domain/delivery"
	"svc/domain/folder"
	"svc/domain/hook"
	"svc/domain/invite"
	"svc/domain/notification"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/domain/user"
	"svc/domain/workflow"
	"svc/domain/workspace"
	"svc/eventstore/event"
)

// Events returns a registry of every event type the service stores, from
// each aggregate's RegisterEvents. Projections and subscribers decode with
// it; a stored event it does not know is an error, never skipped.
func Events() *event.Registry {
	return event.NewRegistry(
		org.RegisterEvents,
		apikey.RegisterEvents,
		workspace.RegisterEvents,
		user.RegisterEvents,
		invite.RegisterEvents,
		credit.RegisterEvents,
		workflow.RegisterEvents,
		delivery.RegisterEvents,
		connection.RegisterEvents,
		folder.RegisterEvents,
		payment.RegisterEvents,
		hook.RegisterEvents,
		notification.RegisterEvents,
		deletion.RegisterEvents,
	)
}
