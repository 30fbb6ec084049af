// Package delivery is the webhook delivery aggregate: one event of a
// workflow to send to the webhook URL its execute named (a stream
// delivery-<delivery_id>), every attempt made and its outcome, and the
// retry schedule that decides when the next attempt is due.
package delivery

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"svc/eventstore/event"
)

// Event types of a delivery stream (delivery-<delivery_id>).
const (
	// EventDeliveryScheduled starts a delivery stream: one event of a
	// workflow to send to its webhook.
	EventDeliveryScheduled = "WebhookDeliveryScheduled"
	// EventDeliveryAttempted records one attempt and its outcome.
	EventDeliveryAttempted = "WebhookDeliveryAttempted"
)

// Webhook event types (the payload's "event" and the X-Svc-Event header).
const (
	TypeStepCompleted            = "step_completed"
	TypeWorkflowCompleted        = "workflow_completed"
	TypeWorkflowCompletedPartial = "workflow_completed_partial"
	TypeWorkflowFailed           = "workflow_failed"
	TypeWorkflowHalted           = "workflow_halted"
	TypeTimedOut                 = "timed_out"
)

// StreamPrefix starts the stream id of every delivery.
const StreamPrefix = "delivery-"

// Stream is the stream id of delivery id.
func Stream(deliveryID string) string { return StreamPrefix + deliveryID }

// ID derives the id of the delivery of source event eventID to the
// webhook registration webhookID: "dlv_" and 32 hex characters. The same
// event always gives the same id, so scheduling it twice (a redelivered
// message) is a version conflict on a stream that exists already.
func ID(eventID, webhookID string) string {
	sum := sha256.Sum256([]byte("webhook-delivery\x00" + eventID + "\x00" + webhookID))
	return "dlv_" + hex.EncodeToString(sum[:16])
}

// Scheduled is the data of WebhookDeliveryScheduled.
type Scheduled struct {
	DeliveryID string `json:"delivery_id"`
	OrgID      string `json:"org_id"`
	WorkflowID string `json:"workflow_id"`
	// Event is the webhook event, e.g. step_completed.
	Event string `json:"event_type"`
	URL   string `json:"url"`
	// WebhookID is the registration stream holding the sealed secret: a
	// workflow's WebhookRegistered, or a workspace endpoint's stream
	// (hook-<id>).
	WebhookID string `json:"webhook_id"`
	// EndpointID and WorkspaceID are set for a delivery to a workspace
	// webhook endpoint (spec B), empty for a workflow's own webhook.
	EndpointID  string `json:"endpoint_id,omitempty"`
	WorkspaceID string `json:"workspace_id,omitempty"`
	// SourceEventID is the workflow event being delivered.
	SourceEventID string `json:"source_event_id"`
	// Body is the JSON payload as text, so that every attempt sends, and
	// signs, the same bytes (jsonb would reorder its keys).
	Body string `json:"body"`
	// NextAttemptAt is when the first attempt is due: at once.
	NextAttemptAt time.Time `json:"next_attempt_at"`
}

// Attempted is the data of WebhookDeliveryAttempted, and an entry of the
// delivery log.
type Attempted struct {
	Attempt     int       `json:"attempt"`
	AttemptedAt time.Time `json:"attempted_at"`
	// StatusCode is the receiver's HTTP status; nil when none arrived.
	StatusCode *int `json:"status_code"`
	// Error says why the attempt did not deliver; nil when delivered.
	Error           *string `json:"error"`
	Delivered       bool    `json:"delivered"`
	DurationMS      int64   `json:"duration_ms"`
	ResponseSnippet string  `json:"response_snippet"`
	// NextAttemptAt is when the next attempt is due; nil when delivered or
	// given up.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// GaveUp is true when no further attempt will be made.
	GaveUp bool `json:"gave_up"`
}

// EventType implements event.Data.
func (Scheduled) EventType() string { return EventDeliveryScheduled }

// EventType implements event.Data.
func (Attempted) EventType() string { return EventDeliveryAttempted }

// RegisterEvents registers the events of a delivery stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Scheduled](r)
	event.Register[Attempted](r)
}

var registry = event.NewRegistry(RegisterEvents)
