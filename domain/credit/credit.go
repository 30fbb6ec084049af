// Package credit is an organization's credit ledger: grants, charges and
// refunds. 1,000 credits are one USD. The balance never goes below zero: a
// charge larger than the balance is refused, and because every change is
// appended with the ledger's expected version, two concurrent charges cannot
// both spend the same credits.
package credit

import (
	"errors"
	"fmt"

	"svc/eventstore"
)

// Event types of a ledger stream.
const (
	EventGranted  = "CreditsGranted"
	EventCharged  = "CreditsCharged"
	EventRefunded = "CreditsRefunded"
)

// Grant reasons.
const (
	ReasonSignup            = "signup"
	ReasonEmailVerification = "email_verification"
	ReasonOperator          = "operator_grant"
	ReasonPurchase          = "purchase"
)

// Amounts fixed by the specification.
const (
	SignupGrant            = 2500
	EmailVerificationGrant = 2500
	PerUSD                 = 1000
)

// Domain errors.
var (
	ErrInsufficient    = errors.New("insufficient credits")
	ErrInvalidAmount   = errors.New("credit amount must be a positive integer")
	ErrMissingReason   = errors.New("a reason is required")
	ErrRefundTooLarge  = errors.New("refund exceeds what the workflow was charged")
	ErrMissingWorkflow = errors.New("a refund names the workflow it refunds")
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

// Stream is the ledger stream of an organization.
func Stream(orgID string) string { return "credits-" + orgID }

// Ledger is the aggregate.
type Ledger struct {
	orgID    string
	balance  int64
	granted  int64
	charged  int64
	refunded int64
	workflow map[string]int64 // net charged per workflow
	version  int64
}

// New is the ledger of an org with no stream yet.
func New(orgID string) *Ledger {
	return &Ledger{orgID: orgID, workflow: map[string]int64{}, version: eventstore.NewStream}
}

// Load folds a ledger stream.
func Load(orgID string, events []eventstore.Event) (*Ledger, error) {
	l := New(orgID)
	for _, e := range events {
		if err := l.Apply(e); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Apply folds one event.
func (l *Ledger) Apply(e eventstore.Event) error {
	switch e.Type {
	case EventGranted:
		var d Granted
		if err := e.Decode(&d); err != nil {
			return err
		}
		l.balance += d.Amount
		l.granted += d.Amount
	case EventCharged:
		var d Charged
		if err := e.Decode(&d); err != nil {
			return err
		}
		l.balance -= d.Amount
		l.charged += d.Amount
		if d.WorkflowID != "" {
			l.workflow[d.WorkflowID] += d.Amount
		}
	case EventRefunded:
		var d Refunded
		if err := e.Decode(&d); err != nil {
			return err
		}
		l.balance += d.Amount
		l.refunded += d.Amount
		l.workflow[d.WorkflowID] -= d.Amount
	default:
		return fmt.Errorf("credit ledger: unexpected event %s", e.Type)
	}
	l.version = e.Version
	return nil
}

// Version is the version of the last event folded (-1 for none).
func (l *Ledger) Version() int64 { return l.version }

// Balance is the credits available.
func (l *Ledger) Balance() int64 { return l.balance }

// Totals returns granted, charged and refunded credits.
func (l *Ledger) Totals() (granted, charged, refunded int64) {
	return l.granted, l.charged, l.refunded
}

// WorkflowCharges returns net credits charged per workflow.
func (l *Ledger) WorkflowCharges() map[string]int64 {
	out := make(map[string]int64, len(l.workflow))
	for k, v := range l.workflow {
		out[k] = v
	}
	return out
}

// Grant decides a grant.
func (l *Ledger) Grant(amount int64, reason, note string) (Granted, error) {
	if amount <= 0 {
		return Granted{}, ErrInvalidAmount
	}
	if reason == "" {
		return Granted{}, ErrMissingReason
	}
	return Granted{OrgID: l.orgID, Amount: amount, Reason: reason, Note: note}, nil
}

// Charge decides a charge; it is refused when the balance does not cover it.
func (l *Ledger) Charge(c Charged) (Charged, error) {
	if c.Amount <= 0 {
		return Charged{}, ErrInvalidAmount
	}
	if c.Reason == "" {
		return Charged{}, ErrMissingReason
	}
	if c.Amount > l.balance {
		return Charged{}, fmt.Errorf("%w: need %d, have %d", ErrInsufficient, c.Amount, l.balance)
	}
	c.OrgID = l.orgID
	return c, nil
}

// Refund decides a refund of credits charged to a workflow.
func (l *Ledger) Refund(workflowID string, amount int64, reason string) (Refunded, error) {
	if workflowID == "" {
		return Refunded{}, ErrMissingWorkflow
	}
	if amount <= 0 {
		return Refunded{}, ErrInvalidAmount
	}
	if reason == "" {
		return Refunded{}, ErrMissingReason
	}
	if amount > l.workflow[workflowID] {
		return Refunded{}, fmt.Errorf("%w: %d asked, %d charged", ErrRefundTooLarge, amount, l.workflow[workflowID])
	}
	return Refunded{OrgID: l.orgID, Amount: amount, Reason: reason, WorkflowID: workflowID}, nil
}

// Clone copies the ledger.
func (l *Ledger) Clone() *Ledger {
	c := *l
	c.workflow = make(map[string]int64, len(l.workflow))
	for k, v := range l.workflow {
		c.workflow[k] = v
	}
	return &c
}

// ChargedTo returns the net credits charged to a workflow.
func (l *Ledger) ChargedTo(workflowID string) int64 { return l.workflow[workflowID] }
