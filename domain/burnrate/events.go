// Package burnrate holds the burnrate product's aggregates and events (spec C).
package burnrate

import "svc/eventstore/event"

// RegisterEvents registers the burnrate event types.
func RegisterEvents(r *event.Registry) {}
