package credit_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"svc/domain/credit"
	"svc/eventstore/event"
)

const org = "22222222-2222-2222-2222-222222222222"

// ledger folds data as a stream of org, and returns the ledger.
func ledger(t *testing.T, data ...event.Data) *credit.Ledger {
	t.Helper()
	l := credit.New(org)
	fold(t, l, data...)
	return l
}

// fold appends data to l as the next events of its stream.
func fold(t *testing.T, l *credit.Ledger, data ...event.Data) {
	t.Helper()
	for _, d := range data {
		if err := l.Apply(event.Recorded(credit.Stream(org), l.Version()+1, time.Now(), d)); err != nil {
			t.Fatal(err)
		}
	}
}

// must is v, or a panic (the test fails) on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func reserve(t *testing.T, l *credit.Ledger, wf string, amount int64) credit.Reserved {
	t.Helper()
	r, ok, err := l.Reserve(wf, amount)
	if err != nil || !ok {
		t.Fatalf("reserve %d for %s: %+v %v %v", amount, wf, r, ok, err)
	}
	return r
}

// The report that led to reservations: 2,500 credits, runs estimated at
// 1,850 each. The first reservation fits, every other is refused; the
// balance a refusal reports is the spendable one.
func TestReserveRefusesWhatOtherRunsHold(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 2500, Reason: credit.ReasonSignup})
	fold(t, l, reserve(t, l, "wr_a", 1850))
	if l.Balance() != 650 || l.Reserved() != 1850 || l.Owned() != 2500 || l.Held("wr_a") != 1850 || l.AvailableTo("wr_a") != 2500 {
		t.Fatalf("after one reservation: balance %d reserved %d owned %d held %d", l.Balance(), l.Reserved(), l.Owned(), l.Held("wr_a"))
	}
	if _, _, err := l.Reserve("wr_b", 1850); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("second reservation: %v", err)
	}
	// exactly the spendable balance fits
	fold(t, l, reserve(t, l, "wr_b", 650))
	if l.Balance() != 0 {
		t.Fatalf("balance %d", l.Balance())
	}
	// nothing else may spend what the runs hold
	if _, err := l.Charge(credit.Charged{Amount: 1, Reason: "enhance_llm"}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("a charge outside the runs spent reserved credits: %v", err)
	}
	if _, _, err := l.Reserve("", 5); !errors.Is(err, credit.ErrMissingWorkflow) {
		t.Fatalf("reservation without a workflow: %v", err)
	}
	if _, _, err := l.Reserve("wr_c", -1); !errors.Is(err, credit.ErrInvalidAmount) {
		t.Fatalf("negative reservation: %v", err)
	}
}

// A resume asks for what remains: a workflow that holds that much already
// reserves nothing more, one that holds less reserves the difference.
func TestReserveTopsUp(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 1000, Reason: credit.ReasonSignup})
	fold(t, l, reserve(t, l, "wr_a", 400))
	if _, ok, err := l.Reserve("wr_a", 300); ok || err != nil {
		t.Fatalf("a smaller reservation than held: ok %v err %v", ok, err)
	}
	if _, ok, err := l.Reserve("wr_a", 0); ok || err != nil {
		t.Fatalf("a zero reservation: ok %v err %v", ok, err)
	}
	r := reserve(t, l, "wr_a", 700)
	if r.Amount != 300 || r.WorkflowID != "wr_a" || r.OrgID != org {
		t.Fatalf("top-up %+v, want 300 more", r)
	}
	// the difference is what must be spendable
	if _, _, err := l.Reserve("wr_a", 1001); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("top-up beyond the balance: %v", err)
	}
}

// Charges of a reserved run draw on its reservation first, so other
// spending meanwhile cannot make them fail; beyond the reservation they
// need the spendable balance. Amounts stay exact.
func TestChargesDrawOnTheReservation(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 2500, Reason: credit.ReasonSignup})
	fold(t, l, reserve(t, l, "wr_a", 1000))
	// something else spends the whole spendable balance
	fold(t, l, must(l.Charge(credit.Charged{Amount: 1500, Reason: "enhance_llm"})))
	if l.Balance() != 0 {
		t.Fatalf("balance %d", l.Balance())
	}
	c := must(l.Charge(credit.Charged{Amount: 300, Reason: "workflow_step", WorkflowID: "wr_a", Step: 1}))
	if c.Amount != 300 || c.FromReservation != 300 || c.OrgID != org {
		t.Fatalf("charge %+v", c)
	}
	fold(t, l, c)
	if l.Held("wr_a") != 700 || l.Reserved() != 700 || l.Owned() != 700 || l.Balance() != 0 || l.ChargedTo("wr_a") != 300 {
		t.Fatalf("after a reserved charge: held %d reserved %d owned %d balance %d charged %d", l.Held("wr_a"), l.Reserved(), l.Owned(), l.Balance(), l.ChargedTo("wr_a"))
	}
	// several at once: 500 + 400 against 700 held and nothing spendable
	if _, err := l.ChargeAll([]credit.Charged{{Amount: 500, Reason: "workflow_step", WorkflowID: "wr_a", Step: 2}, {Amount: 400, Reason: "workflow_step", WorkflowID: "wr_a", Step: 3}}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("charges beyond the reservation with nothing spendable: %v", err)
	}
	fold(t, l, must(l.Grant(100, credit.ReasonOperator, "")))
	all := must(l.ChargeAll([]credit.Charged{{Amount: 500, Reason: "workflow_step", WorkflowID: "wr_a", Step: 2}, {Amount: 250, Reason: "workflow_step", WorkflowID: "wr_a", Step: 3}}))
	if a, b := all[0].(credit.Charged), all[1].(credit.Charged); a.FromReservation != 500 || b.FromReservation != 200 || b.Amount != 250 {
		t.Fatalf("charges %+v %+v", a, b)
	}
	fold(t, l, all...)
	if l.Held("wr_a") != 0 || l.Reserved() != 0 || l.Balance() != 50 || l.ChargedTo("wr_a") != 1050 {
		t.Fatalf("after drawing the reservation out: held %d balance %d charged %d", l.Held("wr_a"), l.Balance(), l.ChargedTo("wr_a"))
	}
	// a charge to another workflow never draws on wr_a's reservation
	l2 := ledger(t, credit.Granted{OrgID: org, Amount: 100, Reason: credit.ReasonSignup})
	fold(t, l2, reserve(t, l2, "wr_a", 100))
	if _, err := l2.Charge(credit.Charged{Amount: 1, Reason: "workflow_step", WorkflowID: "wr_b"}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("a charge to wr_b drew on wr_a's reservation: %v", err)
	}
}

// The end of a run: the fee drawn on the reservation, the rest released
// and the account closed; a failure refunds and releases; a run with no
// reservation (queued before reservations) settles from the balance.
func TestSettle(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 3000, Reason: credit.ReasonSignup})
	fold(t, l, reserve(t, l, "wr_a", 1850))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 1000, Reason: "workflow_step", WorkflowID: "wr_a", Step: 1})))
	res := must(l.Settle(credit.Settlement{WorkflowID: "wr_a", Reason: "WorkflowCompleted", Charges: []credit.Charged{{Amount: 530, Reason: "orchestration_fee"}}}))
	if len(res.Events) != 2 || res.Released != 320 {
		t.Fatalf("settlement %+v", res)
	}
	fee, settled := res.Events[0].(credit.Charged), res.Events[1].(credit.Settled)
	if fee.WorkflowID != "wr_a" || fee.FromReservation != 530 || settled.Released != 320 || settled.Reason != "WorkflowCompleted" || settled.WorkflowID != "wr_a" {
		t.Fatalf("fee %+v settled %+v", fee, settled)
	}
	fold(t, l, res.Events...)
	if l.Reserved() != 0 || l.Balance() != 3000-1530 || l.Owned() != 3000-1530 || l.Held("wr_a") != 0 {
		t.Fatalf("after settling: reserved %d balance %d", l.Reserved(), l.Balance())
	}
	// the account is closed: nothing more to refund or settle
	if len(l.WorkflowCharges()) != 0 || l.ChargedTo("wr_a") != 0 {
		t.Fatalf("open accounts after the settlement: %v", l.WorkflowCharges())
	}
	if res := must(l.Settle(credit.Settlement{WorkflowID: "wr_a", Reason: "WorkflowCancelled"})); len(res.Events) != 0 {
		t.Fatalf("a settled run settled again: %+v", res)
	}

	// a failed run: every charge refunded, the reservation released
	fold(t, l, reserve(t, l, "wr_b", 1000))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 400, Reason: "workflow_step", WorkflowID: "wr_b", Step: 1})))
	res = must(l.Settle(credit.Settlement{WorkflowID: "wr_b", Reason: "WorkflowFailed", Refund: "workflow_failed"}))
	if res.Refunded != 400 || res.Released != 600 || len(res.Events) != 2 {
		t.Fatalf("failed run's settlement %+v", res)
	}
	before := l.Owned()
	fold(t, l, res.Events...)
	if l.Owned() != before+400 || l.Reserved() != 0 || l.Balance() != l.Owned() {
		t.Fatalf("after the failure: owned %d reserved %d", l.Owned(), l.Reserved())
	}

	// a run queued before reservations: its charges take from the
	// balance; a fee it no longer covers is refused; it settles anyway
	l3 := ledger(t, credit.Granted{OrgID: org, Amount: 600, Reason: credit.ReasonSignup},
		credit.Charged{OrgID: org, Amount: 200, Reason: "workflow_step", WorkflowID: "wr_old", Step: 1})
	if _, err := l3.Settle(credit.Settlement{WorkflowID: "wr_old", Reason: "WorkflowCompleted", Charges: []credit.Charged{{Amount: 530, Reason: "orchestration_fee"}}}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("uncovered fee: %v", err)
	}
	res = must(l3.Settle(credit.Settlement{WorkflowID: "wr_old", Reason: "WorkflowHalted"}))
	if len(res.Events) != 1 || res.Released != 0 {
		t.Fatalf("unreserved run's settlement %+v", res)
	}
	// a free run has no account: nothing to append
	if res := must(l3.Settle(credit.Settlement{WorkflowID: "wr_free", Reason: "WorkflowCompleted"})); len(res.Events) != 0 {
		t.Fatalf("free run's settlement %+v", res)
	}
	for _, bad := range []credit.Settlement{{Reason: "x"}, {WorkflowID: "wr_old"}, {WorkflowID: "wr_old", Reason: "x", Refund: "y", Charges: []credit.Charged{{Amount: 1, Reason: "z"}}}} {
		if _, err := l3.Settle(bad); err == nil {
			t.Fatalf("settlement %+v accepted", bad)
		}
	}
}

// The snapshot of a ledger with open reservations decodes to the same
// ledger, and goes on deciding the same; a snapshot of another org, of
// another shape or whose figures disagree is refused.
func TestSnapshotRoundTrip(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 5000, Reason: credit.ReasonSignup})
	fold(t, l, reserve(t, l, "wr_a", 1850))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 300, Reason: "workflow_step", WorkflowID: "wr_a", Step: 1})))
	fold(t, l, must(l.Charge(credit.Charged{Amount: 70, Reason: "workflow_step", WorkflowID: "wr_b", Step: 1})))
	fold(t, l, must(l.Refund("wr_b", 20, "x")))
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
	next := credit.Charged{Amount: 1600, Reason: "workflow_step", WorkflowID: "wr_a", Step: 2}
	a, errA := l.Charge(next)
	b, errB := got.Charge(next)
	if a != b || errA != nil || errB != nil {
		t.Fatalf("decisions differ: %+v %v / %+v %v", a, errA, b, errB)
	}
	if _, err := credit.FromSnapshot("33333333-3333-3333-3333-333333333333", l.Version(), data); !errors.Is(err, credit.ErrSnapshot) {
		t.Fatalf("another org's snapshot: %v", err)
	}
	for _, bad := range []string{`{"org_id":"` + org + `","balance":5}`, `{"org_id":"` + org + `","owned":5}`, `{"org_id":"` + org + `","reserved":5}`, `not json`} {
		if _, err := credit.FromSnapshot(org, 3, []byte(bad)); !errors.Is(err, credit.ErrSnapshot) {
			t.Fatalf("snapshot %s: %v", bad, err)
		}
	}
}

// History keeps what every workflow was charged, settled runs included,
// where the ledger keeps only open accounts.
func TestHistoryKeepsSettledRuns(t *testing.T) {
	data := []event.Data{
		credit.Granted{OrgID: org, Amount: 3000, Reason: credit.ReasonSignup},
		credit.Reserved{OrgID: org, WorkflowID: "wr_a", Amount: 1000},
		credit.Charged{OrgID: org, Amount: 400, Reason: "workflow_step", WorkflowID: "wr_a", Step: 1, FromReservation: 400},
		credit.Settled{OrgID: org, WorkflowID: "wr_a", Released: 600, Reason: "WorkflowHalted"},
		credit.Charged{OrgID: org, Amount: 50, Reason: "workflow_step", WorkflowID: "wr_b", Step: 1},
	}
	var events []event.Event
	for i, d := range data {
		events = append(events, event.Recorded(credit.Stream(org), int64(i), time.Now(), d))
	}
	l, charges, err := credit.History(org, events)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(charges, map[string]int64{"wr_a": 400, "wr_b": 50}) || !reflect.DeepEqual(l.WorkflowCharges(), map[string]int64{"wr_b": 50}) {
		t.Fatalf("history %v, open %v", charges, l.WorkflowCharges())
	}
	if l.Balance() != 2550 || l.Reserved() != 0 || l.Version() != 4 {
		t.Fatalf("balance %d reserved %d version %d", l.Balance(), l.Reserved(), l.Version())
	}
}

// Decide: the step charges of one run and the endings of two others, for
// one append; each settlement sees the ledger the decisions before it
// leave, so two unreserved fees cannot both spend the same balance.
func TestDecideChargesAndSettlementsTogether(t *testing.T) {
	l := ledger(t, credit.Granted{OrgID: org, Amount: 1000, Reason: credit.ReasonSignup})
	fold(t, l, reserve(t, l, "wr_a", 300))
	fold(t, l, reserve(t, l, "wr_b", 200))
	// balance 500: wr_a's step (400: 300 held, 100 spent), wr_b's fee
	// (250: 200 held, 50 spent), wr_c's fee (unreserved, 300)
	events, results, err := l.Decide(
		[]credit.Charged{{Amount: 400, Reason: "workflow_step", WorkflowID: "wr_a", Step: 1}},
		[]credit.Settlement{
			{WorkflowID: "wr_b", Reason: "WorkflowCompleted", Charges: []credit.Charged{{Amount: 250, Reason: "orchestration_fee"}}},
			{WorkflowID: "wr_c", Reason: "WorkflowCompleted", Charges: []credit.Charged{{Amount: 300, Reason: "orchestration_fee"}}},
		})
	if err != nil || len(results) != 2 || results[0].Released != 0 {
		t.Fatalf("decide: %v %+v", err, results)
	}
	fold(t, l, events...)
	if l.Balance() != 50 || l.Reserved() != 0 || l.ChargedTo("wr_a") != 400 || l.Held("wr_b") != 0 {
		t.Fatalf("after: balance %d reserved %d", l.Balance(), l.Reserved())
	}
	// two unreserved fees of 40 against a balance of 50: refused together
	if _, _, err := l.Decide(nil, []credit.Settlement{
		{WorkflowID: "wr_d", Reason: "WorkflowCompleted", Charges: []credit.Charged{{Amount: 40, Reason: "orchestration_fee"}}},
		{WorkflowID: "wr_e", Reason: "WorkflowCompleted", Charges: []credit.Charged{{Amount: 40, Reason: "orchestration_fee"}}},
	}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("two fees beyond the balance: %v", err)
	}
	if l.Balance() != 50 {
		t.Fatalf("a refused decision changed the ledger: balance %d", l.Balance())
	}
}
