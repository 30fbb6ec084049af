package delivery

import (
	"slices"
	"time"

	"svc/domain/hook"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// endpointSources are the workflow event types a workspace webhook
// endpoint can be sent (spec B's six events).
var endpointSources = []string{workflow.EventStepCompleted, workflow.EventStepIncomplete, workflow.EventCompleted,
	workflow.EventFailed, workflow.EventHalted, workflow.EventRejected, workflow.EventApprovalRequested, workflow.EventTimedOut}

// EndpointSourceTypes lists the workflow event types EndpointTypeOf maps,
// for a reader that selects by type.
func EndpointSourceTypes() []string { return slices.Clone(endpointSources) }

// Spec B's workspace webhook events beside the ones spec A's deliveries
// share (step_completed, workflow_completed, workflow_failed, timed_out).
const (
	TypeStepFailed        = "step_failed"
	TypeApprovalRequested = "approval_requested"
)

// EndpointTypeOf is the workspace webhook event (hook.Events) of a
// workflow event's data: a step that will have no result is step_failed,
// a completion (partial too) workflow_completed, a failure, halt or
// rejection workflow_failed. ok is false for the others.
func EndpointTypeOf(d event.Data) (typ string, ok bool) {
	switch d.(type) {
	case workflow.StepCompleted:
		return TypeStepCompleted, true
	case workflow.StepIncomplete:
		return TypeStepFailed, true
	case workflow.Completed:
		return TypeWorkflowCompleted, true
	case workflow.Failed, workflow.Halted, workflow.Rejected:
		return TypeWorkflowFailed, true
	case workflow.ApprovalRequested:
		return TypeApprovalRequested, true
	case workflow.TimedOut:
		return TypeTimedOut, true
	}
	return "", false
}

// EndpointDeliveryID is the id of the delivery of event eventID to
// workspace webhook endpoint endpointID: the same for every attempt and
// every instance that decides it (ID over the endpoint's stream).
func EndpointDeliveryID(eventID, endpointID string) string {
	return ID(eventID, hook.Stream(endpointID))
}

// ScheduleEndpoint decides the delivery of workflow event eventID (of
// workflow workflowID, organization orgID) to endpoint e as event typ with
// its rendered body: due at once.
func ScheduleEndpoint(e *hook.Endpoint, orgID, workflowID, eventID, typ string, body []byte, now time.Time) Scheduled {
	return Scheduled{DeliveryID: EndpointDeliveryID(eventID, e.ID()), OrgID: orgID, WorkflowID: workflowID, Event: typ,
		URL: e.Settings().URL, WebhookID: hook.Stream(e.ID()), EndpointID: e.ID(), WorkspaceID: e.WorkspaceID(),
		SourceEventID: eventID, Body: string(body), NextAttemptAt: now.UTC()}
}
