package domain

import (
	"svc/domain/apikey"
	"svc/domain/burnrate"
	"svc/domain/connection"
	"svc/domain/credit"
	"svc/domain/dedupq"
	"svc/domain/deletion"
	"svc/domain/delivery"
	"svc/domain/folder"
	"svc/domain/guardrail"
	"svc/domain/hook"
	"svc/domain/invite"
	"svc/domain/notification"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/domain/pitfalldb"
	"svc/domain/qualitygate"
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
		// the agent-infrastructure suite (spec C)
		dedupq.RegisterEvents,
		burnrate.RegisterEvents,
		qualitygate.RegisterEvents,
		guardrail.RegisterEvents,
		pitfalldb.RegisterEvents,
	)
}
