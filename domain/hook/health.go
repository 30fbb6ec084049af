package hook

import (
	"slices"

	"svc/eventstore/event"
)

// DisableAfter is how many deliveries in a row may give up (every attempt
// failed, or the receiver refused one for good) before the endpoint is
// disabled.
const DisableAfter = 20

// ReasonFailing is Disabled.Reason for an endpoint whose deliveries kept
// failing.
const ReasonFailing = "failing"

// Subscribed reports whether a delivery of event typ goes to the endpoint:
// it exists, is active and subscribes to typ.
func (h *Endpoint) Subscribed(typ string) bool {
	return h.Exists() && h.settings.Active && slices.Contains(h.settings.Events, typ)
}

// Failures is the number of deliveries in a row that gave up.
func (h *Endpoint) Failures() int { return h.failures }

// Delivered decides what delivery deliveryID arriving tells the endpoint:
// the end of a run of failures, or nothing.
func (h *Endpoint) Delivered(deliveryID string) []event.Data {
	if !h.Exists() || h.failures == 0 {
		return nil
	}
	return []event.Data{Recovered{EndpointID: h.id, OrgID: h.orgID, WorkspaceID: h.workspaceID, DeliveryID: deliveryID, Failures: h.failures}}
}

// GaveUp decides what delivery deliveryID giving up tells the endpoint:
// one more failure in the run and, when the run reaches limit
// (DisableAfter when limit < 1) while the endpoint is active, its
// disabling.
func (h *Endpoint) GaveUp(deliveryID string, limit int) []event.Data {
	if !h.Exists() {
		return nil
	}
	if limit < 1 {
		limit = DisableAfter
	}
	n := h.failures + 1
	out := []event.Data{DeliveryFailed{EndpointID: h.id, OrgID: h.orgID, WorkspaceID: h.workspaceID, DeliveryID: deliveryID, Failures: n}}
	if n >= limit && h.settings.Active {
		out = append(out, Disabled{EndpointID: h.id, OrgID: h.orgID, WorkspaceID: h.workspaceID, URL: h.settings.URL,
			Failures: n, Reason: ReasonFailing})
	}
	return out
}
