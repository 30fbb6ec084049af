// Package dedupq holds the dedupq product's aggregates and events (spec C).
package dedupq

import "svc/eventstore/event"

// RegisterEvents registers the dedupq event types.
func RegisterEvents(r *event.Registry) {}
