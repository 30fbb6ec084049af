package credit

import (
	"errors"
	"fmt"
	"time"
)

// Workspace budgets. A workspace may have a monthly credit budget (set on
// the workspace's stream; the caller passes it in a Budget). The ledger
// counts, per workspace, what its charges cost in the latest UTC month
// (net of the refunds given back to that month), and what the open runs
// of the workspace hold in reservation. A reservation the budget does not
// cover (ReserveIn) is refused with a *BudgetExceededError: since
// reservations are appended with the ledger's expected version under the
// org's lock, two runs racing for the last credits of a budget cannot
// both pass.
//
// A charge counts in the month it names (Charged.Month, stamped by
// whoever decides it: a run's step, its fee, enhance), a refund in the
// month of the refunded run's last charge. Only the latest month is kept
// per workspace: the state stays the size of the org's workspaces.

// ErrBudgetExceeded is a reservation the workspace's monthly budget does
// not cover.
var ErrBudgetExceeded = errors.New("workspace monthly budget exceeded")

// Budget is the monthly budget a reservation is checked against.
type Budget struct {
	// WorkspaceID is the run's workspace; "" for none (nothing counted).
	WorkspaceID string
	// Limit is the workspace's monthly credit budget; 0 for no limit.
	Limit int64
	// Month is the current UTC month (MonthOf).
	Month string
}

// MonthOf is the UTC month of t as charges name it: "2006-01".
func MonthOf(t time.Time) string { return t.UTC().Format("2006-01") }

// MonthStart is the start of t's UTC month.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// NextMonth is the start of the UTC month after t's: when a budget resets.
func NextMonth(t time.Time) time.Time { return MonthStart(t).AddDate(0, 1, 0) }

// BudgetExceededError refuses a reservation the budget does not cover:
// Used is what the workspace's charges cost this month, Reserved what its
// open runs hold, Remaining what is left (never below zero) and Estimated
// what the run asked for beyond what it holds.
type BudgetExceededError struct {
	WorkspaceID                                  string
	Budget, Used, Reserved, Remaining, Estimated int64
}

func (e *BudgetExceededError) Error() string {
	return fmt.Sprintf("workspace monthly budget exceeded: %d needed, %d of %d remaining (%d used, %d reserved)",
		e.Estimated, e.Remaining, e.Budget, e.Used, e.Reserved)
}

// Unwrap makes errors.Is(err, ErrBudgetExceeded) hold.
func (e *BudgetExceededError) Unwrap() error { return ErrBudgetExceeded }

// monthSpend is what a workspace's charges cost in Month, net of refunds.
type monthSpend struct {
	Month string `json:"month"`
	Spent int64  `json:"spent"`
}

// count adds n credits to workspace ws's spend in month. The ledger keeps
// only the latest month: a later one drops the others, an earlier one is
// not counted (it has ended).
func (l *Ledger) count(ws, month string, n int64) {
	if ws == "" || month == "" || month < l.month {
		return
	}
	if month > l.month {
		l.month = month
		for k, s := range l.spend {
			if s.Month < month {
				delete(l.spend, k)
			}
		}
	}
	s := l.spend[ws]
	s.Month = month
	s.Spent += n
	if s.Spent == 0 {
		delete(l.spend, ws)
		return
	}
	l.spend[ws] = s
}

// SpentIn is what workspace ws's charges cost in month, net of the refunds
// given back to it (never below zero); 0 for a month other than the
// latest the ledger counted.
func (l *Ledger) SpentIn(ws, month string) int64 {
	if s, ok := l.spend[ws]; ok && s.Month == month {
		return max(s.Spent, 0)
	}
	return 0
}

// HeldIn is what the open runs of workspace ws hold in reservation.
func (l *Ledger) HeldIn(ws string) int64 {
	var n int64
	for _, a := range l.accounts {
		if a.Workspace == ws && a.Held > 0 {
			n += a.Held
		}
	}
	return n
}

// ReserveIn is Reserve for a run of workspace b.WorkspaceID: the
// reservation names the workspace, and when the workspace has a budget
// (b.Limit), what it needs beyond what the run holds must also fit what
// is left of it this month: the budget less what the workspace's charges
// cost in b.Month and what its open runs hold (else *BudgetExceededError).
// The spendable balance is checked first (ErrInsufficient).
func (l *Ledger) ReserveIn(workflowID string, amount int64, b Budget) (r Reserved, ok bool, err error) {
	if workflowID == "" {
		return Reserved{}, false, ErrMissingWorkflow
	}
	if amount < 0 {
		return Reserved{}, false, ErrInvalidAmount
	}
	need := amount - l.Held(workflowID)
	if need <= 0 {
		return Reserved{}, false, nil
	}
	if need > l.Balance() {
		return Reserved{}, false, fmt.Errorf("%w: need %d, have %d", ErrInsufficient, need, l.Balance())
	}
	if b.WorkspaceID != "" && b.Limit > 0 {
		used, held := l.SpentIn(b.WorkspaceID, b.Month), l.HeldIn(b.WorkspaceID)
		if left := b.Limit - used - held; need > left {
			return Reserved{}, false, &BudgetExceededError{WorkspaceID: b.WorkspaceID, Budget: b.Limit, Used: used,
				Reserved: held, Remaining: max(left, 0), Estimated: need}
		}
	}
	return Reserved{OrgID: l.orgID, WorkflowID: workflowID, Amount: need, WorkspaceID: b.WorkspaceID}, true, nil
}
