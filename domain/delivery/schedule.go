package delivery

import (
	"slices"
	"time"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// Delivers reports whether workflow events of type typ can become
// deliveries, so a subscriber skips every other event without reading.
func Delivers(typ string) bool { return slices.Contains(delivered, typ) }

// delivered are the workflow event types that can become deliveries.
var delivered = []string{workflow.EventStepCompleted, workflow.EventCompleted, workflow.EventFailed,
	workflow.EventRejected, workflow.EventHalted, workflow.EventTimedOut}

// TypeOf is the webhook event type (the payload's "event") of a workflow
// event's data; ok is false for an event that is not delivered.
func TypeOf(d event.Data) (typ string, ok bool) {
	switch d := d.(type) {
	case workflow.StepCompleted:
		return TypeStepCompleted, true
	case workflow.Completed:
		if d.Partial {
			return TypeWorkflowCompletedPartial, true
		}
		return TypeWorkflowCompleted, true
	case workflow.Failed, workflow.Rejected:
		return TypeWorkflowFailed, true
	case workflow.Halted:
		return TypeWorkflowHalted, true
	case workflow.TimedOut:
		return TypeTimedOut, true
	}
	return "", false
}

// Wants reports whether wf was queued for webhook delivery.
func Wants(wf *workflow.Workflow) bool {
	q := wf.Queued()
	return q != nil && q.Delivery.Method == "webhook" && q.Delivery.WebhookURL != ""
}

// Schedule decides the delivery of workflow event eventID of wf (folded up
// to it) as webhook event typ, with its rendered body: due at once.
func Schedule(wf *workflow.Workflow, eventID, typ string, body []byte, now time.Time) Scheduled {
	q := wf.Queued()
	return Scheduled{DeliveryID: ID(eventID, q.Delivery.WebhookID), OrgID: wf.OrgID(), WorkflowID: wf.ID(), Event: typ,
		URL: q.Delivery.WebhookURL, WebhookID: q.Delivery.WebhookID, SourceEventID: eventID, Body: string(body), NextAttemptAt: now.UTC()}
}

// DeliveredTypes lists the workflow event types Delivers accepts, for a
// subscriber woken by type.
func DeliveredTypes() []string { return slices.Clone(delivered) }
