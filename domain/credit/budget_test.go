package credit_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"svc/domain/credit"
)

const (
	ws    = "11111111-1111-1111-1111-111111111111"
	other = "33333333-3333-3333-3333-333333333333"
	june  = "2031-06"
	july  = "2031-07"
)

func reserveIn(t *testing.T, l *credit.Ledger, wf string, amount int64, b credit.Budget) credit.Reserved {
	t.Helper()
	r, ok, err := l.ReserveIn(wf, amount, b)
	if err != nil || !ok {
		t.Fatalf("reserve %d for %s: %+v %v %v", amount, wf, r, ok, err)
	}
	return r
}

func step(wf string, amount int64, month string) credit.Charged {
	return credit.Charged{Amount: amount, Reason: "workflow_step", WorkflowID: wf, Step: 1, Month: month}
}

// A budget of 1,000 fits two runs of 400 and refuses the third: what the
// open runs hold counts like what was charged, so the check holds before
// anything is spent; the refusal says what is left.
func TestBudgetCountsWhatRunsHold(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 10_000, Reason: credit.ReasonSignup})
	b := credit.Budget{WorkspaceID: ws, Limit: 1000, Month: june}
	fold(t, l, reserveIn(t, l, "wr_a", 400, b))
	fold(t, l, reserveIn(t, l, "wr_b", 400, b))
	_, _, err := l.ReserveIn("wr_c", 400, b)
	var over *credit.BudgetExceededError
	if !errors.As(err, &over) || !errors.Is(err, credit.ErrBudgetExceeded) {
		t.Fatalf("third run: %v", err)
	}
	if *over != (credit.BudgetExceededError{WorkspaceID: ws, Budget: 1000, Used: 0, Reserved: 800, Remaining: 200, Estimated: 400}) {
		t.Fatalf("refusal %+v", *over)
	}
	// exactly what is left fits; another workspace, or none, is not limited
	fold(t, l, reserveIn(t, l, "wr_c", 200, b))
	fold(t, l, reserveIn(t, l, "wr_d", 5000, credit.Budget{WorkspaceID: other, Month: june}))
	fold(t, l, reserveIn(t, l, "wr_e", 100, credit.Budget{}))
	if l.HeldIn(ws) != 1000 || l.HeldIn(other) != 5000 {
		t.Fatalf("held: %d / %d", l.HeldIn(ws), l.HeldIn(other))
	}
	// a charge drawn on a reservation moves it from held to spent
	c := must(l.Charge(step("wr_a", 300, june)))
	if c.WorkspaceID != ws || c.FromReservation != 300 {
		t.Fatalf("charge %+v: the run's workspace is named", c)
	}
	fold(t, l, c)
	if l.SpentIn(ws, june) != 300 || l.HeldIn(ws) != 700 {
		t.Fatalf("after a step: spent %d held %d", l.SpentIn(ws, june), l.HeldIn(ws))
	}
	if _, _, err := l.ReserveIn("wr_f", 1, b); !errors.Is(err, credit.ErrBudgetExceeded) {
		t.Fatalf("a full budget: %v", err)
	}
	// settling releases what a run holds but keeps what it spent
	res := must(l.Settle(credit.Settlement{WorkflowID: "wr_a", Reason: "WorkflowCompleted"}))
	fold(t, l, res.Events...)
	if l.SpentIn(ws, june) != 300 || l.HeldIn(ws) != 600 {
		t.Fatalf("after settling: spent %d held %d", l.SpentIn(ws, june), l.HeldIn(ws))
	}
	fold(t, l, reserveIn(t, l, "wr_f", 100, b))
	// the balance is checked first
	poor := ledger(t, credit.Granted{OrgID: org, Amount: 50, Reason: credit.ReasonSignup})
	if _, _, err := poor.ReserveIn("wr_a", 100, credit.Budget{WorkspaceID: ws, Limit: 10, Month: june}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("short of both: %v", err)
	}
}

// A resume tops up what its run holds: only the difference must fit.
func TestBudgetResumeReservesTheDifference(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 10_000, Reason: credit.ReasonSignup})
	b := credit.Budget{WorkspaceID: ws, Limit: 1000, Month: june}
	fold(t, l, reserveIn(t, l, "wr_a", 600, b))
	fold(t, l, reserveIn(t, l, "wr_a", 1000, b)) // 400 more
	if l.Held("wr_a") != 1000 {
		t.Fatalf("held %d", l.Held("wr_a"))
	}
	if _, ok, err := l.ReserveIn("wr_a", 900, b); ok || err != nil {
		t.Fatalf("holds enough: %v %v", ok, err)
	}
	_, _, err := l.ReserveIn("wr_a", 1100, b)
	var over *credit.BudgetExceededError
	if !errors.As(err, &over) || over.Estimated != 100 || over.Remaining != 0 {
		t.Fatalf("over by 100: %v", err)
	}
}

// Spend counts in the month each charge names: a new month starts from
// zero (what open runs hold still counts), a charge of an ended month is
// not counted, and a refund gives back to the month of the run's last
// charge.
func TestBudgetResetsEachMonth(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 10_000, Reason: credit.ReasonSignup})
	jun := credit.Budget{WorkspaceID: ws, Limit: 1000, Month: june}
	jul := credit.Budget{WorkspaceID: ws, Limit: 1000, Month: july}
	fold(t, l, reserveIn(t, l, "wr_a", 900, jun))
	fold(t, l, must(l.Charge(step("wr_a", 900, june))))
	fold(t, l, must(l.Settle(credit.Settlement{WorkflowID: "wr_a", Reason: "WorkflowCompleted"})).Events...)
	if _, _, err := l.ReserveIn("wr_b", 200, jun); !errors.Is(err, credit.ErrBudgetExceeded) {
		t.Fatalf("june is spent: %v", err)
	}
	// in July nothing is spent yet
	fold(t, l, reserveIn(t, l, "wr_b", 700, jul))
	if l.SpentIn(ws, july) != 0 || l.SpentIn(ws, june) != 900 {
		t.Fatalf("spent: june %d july %d", l.SpentIn(ws, june), l.SpentIn(ws, july))
	}
	// a run that spans the months: its July charges count in July
	fold(t, l, must(l.Charge(step("wr_b", 500, july))))
	if l.SpentIn(ws, july) != 500 || l.SpentIn(ws, june) != 0 || l.HeldIn(ws) != 200 {
		t.Fatalf("july: spent %d (june %d), held %d", l.SpentIn(ws, july), l.SpentIn(ws, june), l.HeldIn(ws))
	}
	// a late charge named June is not counted in July
	fold(t, l, must(l.Charge(credit.Charged{Amount: 50, Reason: "enhance_llm", WorkspaceID: ws, Month: june})))
	if l.SpentIn(ws, july) != 500 {
		t.Fatalf("a June charge counted in July: %d", l.SpentIn(ws, july))
	}
	// a failed run is refunded into its month
	r := must(l.Refund("wr_b", 500, "workflow_failed"))
	if r.WorkspaceID != ws || r.Month != july {
		t.Fatalf("refund %+v", r)
	}
	fold(t, l, r)
	if l.SpentIn(ws, july) != 0 {
		t.Fatalf("after the refund: %d", l.SpentIn(ws, july))
	}
	// charges without a workspace or a month count against nothing
	fold(t, l, must(l.Charge(credit.Charged{Amount: 10, Reason: "enhance_llm"})))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 10, Reason: "enhance_llm", WorkspaceID: ws})))
	if l.SpentIn(ws, july) != 0 {
		t.Fatalf("unnamed charges counted: %d", l.SpentIn(ws, july))
	}
}

// A refund given back to a month that has ended does not lower the
// current month's spend.
func TestBudgetRefundOfAnEndedMonth(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 10_000, Reason: credit.ReasonSignup})
	fold(t, l, reserveIn(t, l, "wr_a", 500, credit.Budget{WorkspaceID: ws, Limit: 1000, Month: june}))
	fold(t, l, must(l.Charge(step("wr_a", 300, june))))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 100, Reason: "enhance_llm", WorkspaceID: ws, Month: july})))
	fold(t, l, must(l.Refund("wr_a", 300, "workflow_failed")))
	if l.SpentIn(ws, july) != 100 {
		t.Fatalf("july %d, want 100", l.SpentIn(ws, july))
	}
}

// The ledger's state carries the budgets' figures through a snapshot.
func TestBudgetSnapshot(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 10_000, Reason: credit.ReasonSignup})
	b := credit.Budget{WorkspaceID: ws, Limit: 1000, Month: june}
	fold(t, l, reserveIn(t, l, "wr_a", 600, b))
	fold(t, l, must(l.Charge(step("wr_a", 250, june))))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 70, Reason: "enhance_llm", WorkspaceID: other, Month: june})))
	data, err := l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	got, err := credit.FromSnapshot(org, l.Version(), data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, l) {
		t.Fatalf("decoded %+v, want %+v", got, l)
	}
	_, _, errA := l.ReserveIn("wr_b", 500, b)
	_, _, errB := got.ReserveIn("wr_b", 500, b)
	if errA == nil || errA.Error() != errB.Error() {
		t.Fatalf("decisions differ: %v / %v", errA, errB)
	}
	bad := `{"org_id":"` + org + `","month":"2031-07","spend":{"w":{"month":"2031-06","spent":5}}}`
	if _, err := credit.FromSnapshot(org, 3, []byte(bad)); !errors.Is(err, credit.ErrSnapshot) {
		t.Fatalf("snapshot %s: %v", bad, err)
	}
}

func TestMonths(t *testing.T) {
	at := time.Date(2031, 12, 31, 23, 59, 59, 0, time.FixedZone("x", -3600))
	if credit.MonthOf(at) != "2032-01" || !credit.NextMonth(at).Equal(time.Date(2032, 2, 1, 0, 0, 0, 0, time.UTC)) ||
		!credit.MonthStart(at).Equal(time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("%s %v %v", credit.MonthOf(at), credit.NextMonth(at), credit.MonthStart(at))
	}
}
