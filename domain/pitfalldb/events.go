// Package pitfalldb holds the pitfalldb product's aggregates and events (spec C).
package pitfalldb

import "svc/eventstore/event"

// RegisterEvents registers the pitfalldb event types.
func RegisterEvents(r *event.Registry) {}
