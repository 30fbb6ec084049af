package credit_test

import (
	"encoding/json"
	"errors"
	"testing"

	"svc/domain/credit"
	"svc/eventstore/event"
)

func stored(t *testing.T, version int64, typ string, data any) event.Event {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return event.Event{Type: typ, Data: b, Version: version}
}

func TestLedgerFoldsAndDecides(t *testing.T) {
	const org = "11111111-1111-1111-1111-111111111111"
	l, err := credit.Load(org, []event.Event{
		stored(t, 0, credit.EventGranted, credit.Granted{OrgID: org, Amount: 2500, Reason: credit.ReasonSignup}),
		stored(t, 1, credit.EventCharged, credit.Charged{OrgID: org, Amount: 300, Reason: "step", WorkflowID: "wr_1"}),
		stored(t, 2, credit.EventRefunded, credit.Refunded{OrgID: org, Amount: 100, Reason: "failed", WorkflowID: "wr_1"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if l.Balance() != 2300 || l.Version() != 2 {
		t.Fatalf("balance %d version %d, want 2300 and 2", l.Balance(), l.Version())
	}
	if g, c, r := l.Totals(); g != 2500 || c != 300 || r != 100 {
		t.Fatalf("totals %d %d %d", g, c, r)
	}
	if got := l.WorkflowCharges()["wr_1"]; got != 200 {
		t.Fatalf("wr_1 net %d, want 200", got)
	}
	if _, err := l.Charge(credit.Charged{Amount: 2301, Reason: "step"}); !errors.Is(err, credit.ErrInsufficient) {
		t.Fatalf("overdraft: %v", err)
	}
	c, err := l.Charge(credit.Charged{Amount: 2300, Reason: "step"})
	if err != nil || c.OrgID != org {
		t.Fatalf("exact balance charge: %+v %v", c, err)
	}
	for _, bad := range []credit.Charged{{Amount: 0, Reason: "x"}, {Amount: -5, Reason: "x"}, {Amount: 1}} {
		if _, err := l.Charge(bad); err == nil {
			t.Fatalf("charge %+v accepted", bad)
		}
	}
	if _, err := l.Refund("wr_1", 201, "x"); !errors.Is(err, credit.ErrRefundTooLarge) {
		t.Fatalf("refund over charge: %v", err)
	}
	if _, err := l.Refund("", 1, "x"); !errors.Is(err, credit.ErrMissingWorkflow) {
		t.Fatalf("refund without workflow: %v", err)
	}
	if _, err := l.Grant(0, "x", ""); !errors.Is(err, credit.ErrInvalidAmount) {
		t.Fatalf("zero grant: %v", err)
	}
	if _, err := l.Grant(5, "", ""); !errors.Is(err, credit.ErrMissingReason) {
		t.Fatalf("grant without reason: %v", err)
	}
}

func TestLedgerRejectsForeignEvents(t *testing.T) {
	if _, err := credit.Load("o", []event.Event{stored(t, 0, "Unexpected", map[string]int{})}); err == nil {
		t.Fatal("unexpected event type folded silently")
	}
}
