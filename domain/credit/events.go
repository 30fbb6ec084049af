package credit

import "svc/eventstore/event"

// Event types of a ledger stream.
const (
	EventGranted  = "CreditsGranted"
	EventCharged  = "CreditsCharged"
	EventRefunded = "CreditsRefunded"
)

// Granted is the data of CreditsGranted.
type Granted struct {
	OrgID  string `json:"org_id"`
	Amount int64  `json:"amount"`
	Reason string `json:"reason"`
	Note   string `json:"note,omitempty"`
}

// Charged is the data of CreditsCharged.
type Charged struct {
	OrgID      string `json:"org_id"`
	Amount     int64  `json:"amount"`
	Reason     string `json:"reason"`
	WorkflowID string `json:"workflow_id,omitempty"`
	Step       int    `json:"step,omitempty"`
	KeyID      string `json:"key_id,omitempty"`
	AgentID    string `json:"agent_id,omitempty"`
}

// Refunded is the data of CreditsRefunded.
type Refunded struct {
	OrgID      string `json:"org_id"`
	Amount     int64  `json:"amount"`
	Reason     string `json:"reason"`
	WorkflowID string `json:"workflow_id"`
}

// EventType implements event.Data.
func (Granted) EventType() string { return EventGranted }

// EventType implements event.Data.
func (Charged) EventType() string { return EventCharged }

// EventType implements event.Data.
func (Refunded) EventType() string { return EventRefunded }

// RegisterEvents registers the events of a ledger stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Granted](r)
	event.Register[Charged](r)
	event.Register[Refunded](r)
}

var registry = event.NewRegistry(RegisterEvents)
