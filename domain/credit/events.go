package credit

import "svc/eventstore/event"

// Event types of a ledger stream.
const (
	EventGranted  = "CreditsGranted"
	EventCharged  = "CreditsCharged"
	EventRefunded = "CreditsRefunded"
	EventReserved = "CreditsReserved"
	EventSettled  = "CreditsSettled"
)

// Granted is the data of CreditsGranted.
type Granted struct {
	OrgID  string `json:"org_id"`
	Amount int64  `json:"amount"`
	Reason string `json:"reason"`
	Note   string `json:"note,omitempty"`
}

// Charged is the data of CreditsCharged. A charge to a workflow that holds
// a reservation draws on it first: FromReservation is the part of Amount
// taken from the reservation (the rest came from the spendable balance).
// Amount is always the whole charge.
type Charged struct {
	OrgID           string `json:"org_id"`
	Amount          int64  `json:"amount"`
	Reason          string `json:"reason"`
	WorkflowID      string `json:"workflow_id,omitempty"`
	Step            int    `json:"step,omitempty"`
	KeyID           string `json:"key_id,omitempty"`
	AgentID         string `json:"agent_id,omitempty"`
	FromReservation int64  `json:"from_reservation,omitempty"`
	// WorkspaceID and Month (UTC, "2006-01") count the charge against the
	// workspace's monthly budget (budget.go); charges made before budgets
	// existed have neither and count against none.
	WorkspaceID string `json:"workspace_id,omitempty"`
	Month       string `json:"month,omitempty"`
}

// Refunded is the data of CreditsRefunded.
type Refunded struct {
	OrgID      string `json:"org_id"`
	Amount     int64  `json:"amount"`
	Reason     string `json:"reason"`
	WorkflowID string `json:"workflow_id"`
	// WorkspaceID and Month are those of the refunded run's last charge:
	// the refund gives back to that month of the workspace (budget.go).
	WorkspaceID string `json:"workspace_id,omitempty"`
	Month       string `json:"month,omitempty"`
}

// Reserved is the data of CreditsReserved: Amount more credits set aside
// for the run of a workflow (its estimate at execute, what remains at a
// resume). Reserved credits still belong to the organization but are not
// spendable by anything else; the workflow's charges draw on them first.
type Reserved struct {
	OrgID      string `json:"org_id"`
	WorkflowID string `json:"workflow_id"`
	Amount     int64  `json:"amount"`
	// WorkspaceID is the run's workspace: what it holds counts against
	// that workspace's monthly budget until it is charged or released.
	WorkspaceID string `json:"workspace_id,omitempty"`
}

// Settled is the data of CreditsSettled, appended with the event that ends
// a workflow's run: Released is what was left of its reservation, back in
// the spendable balance, and the workflow's account in the ledger closes
// (see Ledger). Reason is the type of the terminal event.
type Settled struct {
	OrgID      string `json:"org_id"`
	WorkflowID string `json:"workflow_id"`
	Released   int64  `json:"released"`
	Reason     string `json:"reason"`
}

// EventType implements event.Data.
func (Granted) EventType() string { return EventGranted }

// EventType implements event.Data.
func (Charged) EventType() string { return EventCharged }

// EventType implements event.Data.
func (Refunded) EventType() string { return EventRefunded }

// EventType implements event.Data.
func (Reserved) EventType() string { return EventReserved }

// EventType implements event.Data.
func (Settled) EventType() string { return EventSettled }

// RegisterEvents registers the events of a ledger stream.
func RegisterEvents(r *event.Registry) {
	event.Register[Granted](r)
	event.Register[Charged](r)
	event.Register[Refunded](r)
	event.Register[Reserved](r)
	event.Register[Settled](r)
	registerAutoReload(r)
}

var registry = event.NewRegistry(RegisterEvents)
