// Package credit is an organization's credit ledger: grants, charges,
// refunds and the reservations of workflow runs. 1,000 credits are one
// USD. The spendable balance (Balance) is what the organization owns less
// what its runs hold in reservation; it never goes below zero: a charge
// the spendable balance (and the charged run's reservation) does not cover
// is refused, and because every change is appended with the ledger's
// expected version, two concurrent decisions cannot both spend the same
// credits.
//
// A workflow's run has an account in the ledger while it is open: from
// its reservation (execute, resume) or its first charge, to the
// settlement appended with the event that ends it (CreditsSettled). The
// account holds what is reserved and not yet drawn, and what the run was
// charged (net of refunds), which a refund may not exceed. Settling
// releases what is left of the reservation and closes the account, so the
// ledger's state grows with the runs in flight, not with its history (its
// snapshot stays small: snapshot.go).
package credit

import (
	"errors"
	"fmt"
	"maps"

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
	ErrMissingWorkflow = errors.New("a refund, reservation or settlement names its workflow")
	ErrSettlement      = errors.New("a settlement charges or refunds, not both")
)

// Stream is the ledger stream of an organization.
func Stream(orgID string) string { return "credits-" + orgID }

// account is an open workflow run in the ledger.
type account struct {
	// Held is reserved for the run and not drawn yet.
	Held int64 `json:"held"`
	// Charged is what the run was charged, less refunds, while open.
	Charged int64 `json:"charged"`
	// Workspace is the run's workspace (its reservation's or charges'),
	// Month the UTC month of its last charge: a refund gives back to it.
	Workspace string `json:"workspace,omitempty"`
	Month     string `json:"month,omitempty"`
}

// Ledger is the aggregate.
type Ledger struct {
	orgID    string
	owned    int64 // granted - charged + refunded
	reserved int64 // the Held of every account
	granted  int64
	charged  int64
	refunded int64
	accounts map[string]account    // open runs by workflow id
	spend    map[string]monthSpend // workspaces' spend in the latest month (budget.go)
	month    string                // the latest month a workspace was charged in
	reload   reloadState           // auto-reload (autoreload.go)
	version  int64
}

// New is the ledger of an org with no stream yet.
func New(orgID string) *Ledger {
	return &Ledger{orgID: orgID, accounts: map[string]account{}, spend: map[string]monthSpend{}, version: event.NewStream}
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
	l.apply(d)
	l.version = e.Version
	return nil
}

func (l *Ledger) apply(d event.Data) {
	switch d := d.(type) {
	case Granted:
		l.owned += d.Amount
		l.granted += d.Amount
	case Charged:
		l.owned -= d.Amount
		l.charged += d.Amount
		l.reserved -= d.FromReservation
		if d.WorkflowID != "" {
			a := l.accounts[d.WorkflowID]
			a.Charged += d.Amount
			a.Held -= d.FromReservation
			if d.WorkspaceID != "" && d.Month != "" {
				a.Workspace, a.Month = d.WorkspaceID, d.Month
			}
			l.put(d.WorkflowID, a)
		}
		l.count(d.WorkspaceID, d.Month, d.Amount)
	case Refunded:
		l.owned += d.Amount
		l.refunded += d.Amount
		a := l.accounts[d.WorkflowID]
		a.Charged -= d.Amount
		l.put(d.WorkflowID, a)
		l.count(d.WorkspaceID, d.Month, -d.Amount)
	case Reserved:
		l.reserved += d.Amount
		a := l.accounts[d.WorkflowID]
		a.Held += d.Amount
		if d.WorkspaceID != "" {
			a.Workspace = d.WorkspaceID
		}
		l.put(d.WorkflowID, a)
	case Settled:
		l.reserved -= d.Released
		delete(l.accounts, d.WorkflowID)
	default:
		l.applyReload(d)
	}
	l.rearm()
}

// put stores a workflow's account; one that holds nothing and was
// charged nothing is no account.
func (l *Ledger) put(id string, a account) {
	if a.Held == 0 && a.Charged == 0 {
		delete(l.accounts, id)
		return
	}
	l.accounts[id] = a
}

// OrgID is the organization whose ledger this is.
func (l *Ledger) OrgID() string { return l.orgID }

// Version is the version of the last event folded (-1 for none).
func (l *Ledger) Version() int64 { return l.version }

// Balance is the spendable balance: the credits the organization owns
// less everything its runs hold in reservation. It is what the API shows
// as the balance, and what every check that does not concern a reserved
// run compares with.
func (l *Ledger) Balance() int64 { return l.owned - l.reserved }

// Owned is the credits the organization owns: granted less charged plus
// refunded, reservations included.
func (l *Ledger) Owned() int64 { return l.owned }

// Reserved is what the organization's runs hold in reservation.
func (l *Ledger) Reserved() int64 { return l.reserved }

// Held is what workflow id holds in reservation.
func (l *Ledger) Held(workflowID string) int64 { return max(l.accounts[workflowID].Held, 0) }

// AvailableTo is what a charge to workflow id may draw on: the spendable
// balance and the workflow's own reservation.
func (l *Ledger) AvailableTo(workflowID string) int64 { return l.Balance() + l.Held(workflowID) }

// Totals returns granted, charged and refunded credits.
func (l *Ledger) Totals() (granted, charged, refunded int64) {
	return l.granted, l.charged, l.refunded
}

// WorkflowCharges returns the net credits charged to each workflow whose
// account is open (History has every workflow's).
func (l *Ledger) WorkflowCharges() map[string]int64 {
	out := make(map[string]int64, len(l.accounts))
	for k, a := range l.accounts {
		if a.Charged != 0 {
			out[k] = a.Charged
		}
	}
	return out
}

// ChargedTo returns the net credits charged to a workflow whose account is
// open (0 once its run has settled).
func (l *Ledger) ChargedTo(workflowID string) int64 { return l.accounts[workflowID].Charged }

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

// Reserve decides that workflow id holds at least amount credits in
// reservation: CreditsReserved with the difference, or ok false when it
// holds that much already (or amount is 0). It is refused
// (ErrInsufficient) when the spendable balance does not cover the
// difference.
func (l *Ledger) Reserve(workflowID string, amount int64) (r Reserved, ok bool, err error) {
	return l.ReserveIn(workflowID, amount, Budget{})
}

// Charge decides a charge. A charge to a workflow draws on its reservation
// first (FromReservation); the rest must be covered by the spendable
// balance, or the charge is refused (ErrInsufficient).
func (l *Ledger) Charge(c Charged) (Charged, error) {
	out, err := l.ChargeAll([]Charged{c})
	if err != nil {
		return Charged{}, err
	}
	return out[0].(Charged), nil
}

// ChargeAll decides several charges at once, each drawing on its
// workflow's reservation first: the spendable balance must cover the
// rest of their total, so a shortfall refuses them together
// (ErrInsufficient).
func (l *Ledger) ChargeAll(charges []Charged) ([]event.Data, error) {
	var (
		out   = make([]event.Data, len(charges))
		drawn = map[string]int64{}
		spent int64
	)
	for i, c := range charges {
		if c.Amount <= 0 {
			return nil, ErrInvalidAmount
		}
		if c.Reason == "" {
			return nil, ErrMissingReason
		}
		c.OrgID, c.FromReservation = l.orgID, 0
		if c.WorkspaceID == "" && c.WorkflowID != "" {
			c.WorkspaceID = l.accounts[c.WorkflowID].Workspace
		}
		if c.WorkflowID != "" {
			if left := l.Held(c.WorkflowID) - drawn[c.WorkflowID]; left > 0 {
				c.FromReservation = min(c.Amount, left)
				drawn[c.WorkflowID] += c.FromReservation
			}
		}
		spent += c.Amount - c.FromReservation
		out[i] = c
	}
	if spent > l.Balance() {
		return nil, fmt.Errorf("%w: need %d, have %d", ErrInsufficient, spent, l.Balance())
	}
	return out, nil
}

// Refund decides a refund of credits charged to a workflow whose account
// is open.
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
	if charged := l.ChargedTo(workflowID); amount > charged {
		return Refunded{}, fmt.Errorf("%w: %d asked, %d charged", ErrRefundTooLarge, amount, charged)
	}
	a := l.accounts[workflowID]
	return Refunded{OrgID: l.orgID, Amount: amount, Reason: reason, WorkflowID: workflowID, WorkspaceID: a.Workspace, Month: a.Month}, nil
}

// RefundWorkflow decides the refund of everything charged to a workflow;
// ok is false when nothing is left to refund.
func (l *Ledger) RefundWorkflow(workflowID, reason string) (r Refunded, ok bool, err error) {
	amount := l.ChargedTo(workflowID)
	if amount <= 0 {
		return Refunded{}, false, nil
	}
	r, err = l.Refund(workflowID, amount, reason)
	return r, err == nil, err
}

// Settlement is what the end of a workflow's run does to the ledger.
type Settlement struct {
	WorkflowID string
	// Charges are charged as the run ends (the orchestration fee), to
	// the workflow, drawn on its reservation first.
	Charges []Charged
	// Refund, when set, is the reason of a refund of everything the run
	// was charged (a failed run).
	Refund string
	// Reason says why the run ended: the terminal event's type.
	Reason string
}

// SettleResult is what Settle decided: the events to append, in order,
// and what they refund and release.
type SettleResult struct {
	Events   []event.Data
	Refunded int64
	Released int64
}

// Settle decides the ledger's side of the end of a workflow's run: the
// final charges (drawn on the reservation first; refused together with
// ErrInsufficient when the rest is not covered), or the refund of what the
// run was charged, then CreditsSettled, which releases what is left of its
// reservation and closes its account. A workflow without an account (a
// free run, or one never reserved nor charged) settles with no event.
func (l *Ledger) Settle(s Settlement) (SettleResult, error) {
	if s.WorkflowID == "" {
		return SettleResult{}, ErrMissingWorkflow
	}
	if s.Reason == "" {
		return SettleResult{}, ErrMissingReason
	}
	if s.Refund != "" && len(s.Charges) > 0 {
		return SettleResult{}, ErrSettlement
	}
	var out SettleResult
	_, open := l.accounts[s.WorkflowID]
	var drawn int64
	if len(s.Charges) > 0 {
		charges := make([]Charged, len(s.Charges))
		for i, c := range s.Charges {
			c.WorkflowID = s.WorkflowID
			charges[i] = c
		}
		events, err := l.ChargeAll(charges)
		if err != nil {
			return SettleResult{}, err
		}
		for _, d := range events {
			drawn += d.(Charged).FromReservation
		}
		out.Events = append(out.Events, events...)
	}
	if s.Refund != "" {
		r, ok, err := l.RefundWorkflow(s.WorkflowID, s.Refund)
		if err != nil {
			return SettleResult{}, err
		}
		if ok {
			out.Events, out.Refunded = append(out.Events, r), r.Amount
		}
	}
	if !open && len(s.Charges) == 0 {
		return out, nil
	}
	out.Released = max(l.Held(s.WorkflowID)-drawn, 0)
	out.Events = append(out.Events, Settled{OrgID: l.orgID, WorkflowID: s.WorkflowID, Released: out.Released, Reason: s.Reason})
	return out, nil
}

// Decide decides charges together (ChargeAll) and then each settlement
// (Settle), each on the ledger as the decisions before it leave it: the
// step charges and the run endings of several runs of the org, for one
// append. A refusal of any of them refuses them all (the caller decides
// them again one run at a time). results holds one SettleResult per
// settlement, in order.
func (l *Ledger) Decide(charges []Charged, settlements []Settlement) (events []event.Data, results []SettleResult, err error) {
	w := l.Clone()
	if len(charges) > 0 {
		decided, err := w.ChargeAll(charges)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range decided {
			w.apply(d)
		}
		events = append(events, decided...)
	}
	for _, st := range settlements {
		res, err := w.Settle(st)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range res.Events {
			w.apply(d)
		}
		events = append(events, res.Events...)
		results = append(results, res)
	}
	return events, results, nil
}

// Clone copies the ledger.
func (l *Ledger) Clone() *Ledger {
	c := *l
	c.accounts = maps.Clone(l.accounts)
	if c.accounts == nil {
		c.accounts = map[string]account{}
	}
	c.spend = maps.Clone(l.spend)
	if c.spend == nil {
		c.spend = map[string]monthSpend{}
	}
	if l.reload.Pending != nil {
		p := *l.reload.Pending
		c.reload.Pending = &p
	}
	if l.reload.Config.MonthlyLimitUSD != nil {
		v := *l.reload.Config.MonthlyLimitUSD
		c.reload.Config.MonthlyLimitUSD = &v
	}
	return &c
}

// History folds a ledger stream like Load and also returns the net
// credits charged to every workflow over the whole stream, settled runs
// included: for audits (svc replay billing), not for decisions.
func History(orgID string, events []event.Event) (*Ledger, map[string]int64, error) {
	l := New(orgID)
	charges := map[string]int64{}
	for _, e := range events {
		d, err := registry.Decode(e)
		if err != nil {
			return nil, nil, fmt.Errorf("credit ledger: %w", err)
		}
		switch d := d.(type) {
		case Charged:
			if d.WorkflowID != "" {
				charges[d.WorkflowID] += d.Amount
			}
		case Refunded:
			charges[d.WorkflowID] -= d.Amount
		}
		l.apply(d)
		l.version = e.Version
	}
	return l, charges, nil
}
