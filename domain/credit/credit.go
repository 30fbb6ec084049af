// Package credit is an organization's credit ledger: grants, charges and
// refunds. 1,000 credits are one USD. The balance never goes below zero: a
// charge larger than the balance is refused, and because every change is
// appended with the ledger's expected version, two concurrent charges cannot
// both spend the same credits.
package credit

import (
	"errors"
	"fmt"
	"svc/eventstore/event"
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
	return &Ledger{orgID: orgID, workflow: map[string]int64{}, version: event.NewStream}
}

// Load folds a ledger stream.
func Load(orgID string, events []event.Event) (*Ledger, error) {
	l := New(orgID)
	if err := event.Fold(l, events); err != nil {
		return nil, err
	}
	return l, nil
}

// Apply folds one event.
func (l *Ledger) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("credit ledger: %w", err)
	}
	switch d := d.(type) {
	case Granted:
		l.balance += d.Amount
		l.granted += d.Amount
	case Charged:
		l.balance -= d.Amount
		l.charged += d.Amount
		if d.WorkflowID != "" {
			l.workflow[d.WorkflowID] += d.Amount
		}
	case Refunded:
		l.balance += d.Amount
		l.refunded += d.Amount
		l.workflow[d.WorkflowID] -= d.Amount
	}
	l.version = e.Version
	return nil
}

// OrgID is the organization whose ledger this is.
func (l *Ledger) OrgID() string { return l.orgID }

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

// ChargeAll decides several charges at once: the balance must cover their
// total, so a shortfall refuses them together (ErrInsufficient).
func (l *Ledger) ChargeAll(charges []Charged) ([]event.Data, error) {
	var total int64
	for _, c := range charges {
		total += c.Amount
	}
	if total > l.balance {
		return nil, fmt.Errorf("%w: need %d, have %d", ErrInsufficient, total, l.balance)
	}
	out := make([]event.Data, len(charges))
	for i, c := range charges {
		d, err := l.Charge(c)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// RefundWorkflow decides the refund of everything charged to a workflow;
// ok is false when nothing is left to refund.
func (l *Ledger) RefundWorkflow(workflowID, reason string) (r Refunded, ok bool, err error) {
	amount := l.workflow[workflowID]
	if amount <= 0 {
		return Refunded{}, false, nil
	}
	r, err = l.Refund(workflowID, amount, reason)
	return r, err == nil, err
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
