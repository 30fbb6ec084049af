// Package guardrail holds the guardrail product's aggregates and events (spec C).
package guardrail

import "svc/eventstore/event"

// RegisterEvents registers the guardrail event types.
func RegisterEvents(r *event.Registry) {}
