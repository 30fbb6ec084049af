// Package qualitygate holds the qualitygate product's aggregates and events (spec C).
package qualitygate

import "svc/eventstore/event"

// RegisterEvents registers the qualitygate event types.
func RegisterEvents(r *event.Registry) {}
