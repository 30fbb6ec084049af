package credit_test

import (
	"errors"
	"testing"
	"time"

	"svc/domain/credit"
	"svc/eventstore/event"
)

const reloadOrg = "22222222-2222-2222-2222-222222222222"

// reloadLedger is a test ledger that folds what it decides, asking Follow
// on every append as the repository does.
type reloadLedger struct {
	t   *testing.T
	l   *credit.Ledger
	now time.Time
	log []event.Data
}

func newReloadLedger(t *testing.T, balance int64) *reloadLedger {
	r := &reloadLedger{t: t, l: credit.New(reloadOrg), now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	g, err := r.l.Grant(balance, credit.ReasonOperator, "")
	if err != nil {
		t.Fatal(err)
	}
	r.append(g)
	return r
}

// append appends data and what follows it; it returns what followed.
func (r *reloadLedger) append(data ...event.Data) []event.Data {
	r.t.Helper()
	more := r.l.Follow(data, r.now)
	all := append(append([]event.Data{}, data...), more...)
	for _, d := range all {
		if err := r.l.Apply(event.Recorded(credit.Stream(reloadOrg), r.l.Version()+1, r.now, d)); err != nil {
			r.t.Fatal(err)
		}
	}
	r.log = append(r.log, all...)
	return more
}

func (r *reloadLedger) charge(n int64) []event.Data {
	r.t.Helper()
	c, err := r.l.Charge(credit.Charged{Amount: n, Reason: "step"})
	if err != nil {
		r.t.Fatal(err)
	}
	return r.append(c)
}

func (r *reloadLedger) configure(enabled bool, threshold, amount int64, limit *int64) []event.Data {
	r.t.Helper()
	c, ok, err := r.l.ConfigureAutoReload(enabled, true, threshold, amount, limit)
	if err != nil {
		r.t.Fatal(err)
	}
	if !ok {
		return nil
	}
	return r.append(c)
}

func requested(t *testing.T, data []event.Data) *credit.AutoReloadRequested {
	t.Helper()
	var out *credit.AutoReloadRequested
	for _, d := range data {
		if r, ok := d.(credit.AutoReloadRequested); ok {
			if out != nil {
				t.Fatalf("two requests in one append: %v", data)
			}
			out = &r
		}
	}
	return out
}

func TestAutoReloadOnePerCrossing(t *testing.T) {
	r := newReloadLedger(t, 10_000)
	if got := requested(t, r.configure(true, 5_000, 25_000, nil)); got != nil {
		t.Fatalf("enabling above the threshold requested %+v", got)
	}
	if got := requested(t, r.charge(4_000)); got != nil { // 6,000: above
		t.Fatalf("a charge above the threshold requested %+v", got)
	}
	req := requested(t, r.charge(2_000)) // 4,000: crossed
	if req == nil || req.Amount != 25_000 || req.PriceUSD != 25 || req.Month != "2026-03" || req.Balance != 4_000 {
		t.Fatalf("crossing: %+v", req)
	}
	// below, pending: no other request
	if got := requested(t, r.charge(1_000)); got != nil {
		t.Fatalf("a second request while pending: %+v", got)
	}
	if r.l.PendingReload() == nil || r.l.PendingReload().ReloadID != req.ReloadID {
		t.Fatalf("pending %+v", r.l.PendingReload())
	}
	// success grants the amount; back above, the next crossing requests again
	done, ok := r.l.ReloadSucceeded(req.ReloadID, "pi_1")
	if !ok || len(done) != 2 {
		t.Fatalf("succeeded: %v %v", done, ok)
	}
	r.append(done...)
	if r.l.Balance() != 28_000 || r.l.PendingReload() != nil {
		t.Fatalf("after the reload: balance %d pending %+v", r.l.Balance(), r.l.PendingReload())
	}
	if _, ok := r.l.ReloadSucceeded(req.ReloadID, "pi_1"); ok {
		t.Fatal("a reload succeeded twice")
	}
	second := requested(t, r.charge(24_000))
	if second == nil || second.ReloadID == req.ReloadID {
		t.Fatalf("second crossing: %+v (first %s)", second, req.ReloadID)
	}
	if r.l.ReloadSpentUSD("2026-03") != 50 {
		t.Fatalf("spent %d, want 50", r.l.ReloadSpentUSD("2026-03"))
	}
}

func TestAutoReloadDisabledOrNeverConfigured(t *testing.T) {
	r := newReloadLedger(t, 10_000)
	if got := requested(t, r.charge(9_950)); got != nil {
		t.Fatalf("never configured: %+v", got)
	}
	r = newReloadLedger(t, 10_000)
	r.configure(true, 5_000, 5_000, nil)
	r.configure(false, 0, 0, nil)
	if got := requested(t, r.charge(9_000)); got != nil {
		t.Fatalf("disabled: %+v", got)
	}
	if c := r.l.AutoReload(); c.Enabled || c.Threshold != 5_000 || c.Amount != 5_000 {
		t.Fatalf("disabling keeps the values: %+v", c)
	}
	if _, ok, _ := r.l.ConfigureAutoReload(false, false, 0, 0, nil); ok {
		t.Fatal("disabling a disabled configuration appends")
	}
}

func TestAutoReloadEnablingBelowThresholdRequestsAtOnce(t *testing.T) {
	r := newReloadLedger(t, 1_000)
	if got := requested(t, r.configure(true, 5_000, 5_000, nil)); got == nil {
		t.Fatal("enabling below the threshold requested nothing")
	}
}

func TestAutoReloadFailureDisablesNothingAndWaitsForTheNextCrossing(t *testing.T) {
	r := newReloadLedger(t, 6_000)
	r.configure(true, 5_000, 5_000, nil)
	req := requested(t, r.charge(2_000))
	if req == nil {
		t.Fatal("no request")
	}
	failed, ok := r.l.ReloadFailed(req.ReloadID, "pi_1", "card_declined", "Your card was declined.")
	if !ok {
		t.Fatal("not pending")
	}
	r.append(failed)
	if !r.l.AutoReload().Enabled || r.l.PendingReload() != nil || r.l.ReloadSpentUSD("2026-03") != 0 {
		t.Fatalf("after the failure: %+v pending %+v spent %d", r.l.AutoReload(), r.l.PendingReload(), r.l.ReloadSpentUSD("2026-03"))
	}
	if got := requested(t, r.charge(100)); got != nil {
		t.Fatalf("a charge below the threshold after a failure requested again: %+v", got)
	}
	// saving the configuration again is the admin's retry
	if got := requested(t, r.configure(true, 5_000, 5_000, nil)); got == nil {
		t.Fatal("saving again requested nothing")
	}
}

func TestAutoReloadMonthlyLimit(t *testing.T) {
	limit := int64(30)
	r := newReloadLedger(t, 6_000)
	r.configure(true, 5_000, 25_000, &limit)
	req := requested(t, r.charge(2_000))
	if req == nil {
		t.Fatal("no first request")
	}
	done, _ := r.l.ReloadSucceeded(req.ReloadID, "pi")
	r.append(done...)                                      // 29,000
	if got := requested(t, r.charge(25_000)); got != nil { // 25 + 25 > 30
		t.Fatalf("past the monthly limit: %+v", got)
	}
	// the next month, the next change of the balance requests it
	r.now = r.now.AddDate(0, 1, 0)
	got := requested(t, r.charge(100))
	if got == nil || got.Month != "2026-04" {
		t.Fatalf("next month: %+v", got)
	}
}

func TestAutoReloadValidation(t *testing.T) {
	l := credit.New(reloadOrg)
	low, high := int64(4), int64(10_001)
	for _, c := range []struct {
		confirm           bool
		threshold, amount int64
		limit             *int64
		want              error
	}{
		{false, 1000, 5000, nil, credit.ErrReloadConfirm},
		{true, 99, 5000, nil, credit.ErrReloadThreshold},
		{true, 100_001, 5000, nil, credit.ErrReloadThreshold},
		{true, 1000, 6000, nil, credit.ErrReloadAmount},
		{true, 1000, 5000, &low, credit.ErrReloadMonthlyLimit},
		{true, 1000, 5000, &high, credit.ErrReloadMonthlyLimit},
	} {
		if _, _, err := l.ConfigureAutoReload(true, c.confirm, c.threshold, c.amount, c.limit); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c, err, c.want)
		}
	}
}

func TestAutoReloadSnapshotRoundTrip(t *testing.T) {
	r := newReloadLedger(t, 6_000)
	limit := int64(100)
	r.configure(true, 5_000, 5_000, &limit)
	r.charge(2_000)
	b, err := r.l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	back, err := credit.FromSnapshot(reloadOrg, r.l.Version(), b)
	if err != nil {
		t.Fatal(err)
	}
	if back.PendingReload() == nil || *back.PendingReload() != *r.l.PendingReload() || *back.AutoReload().MonthlyLimitUSD != 100 {
		t.Fatalf("round trip: %+v %+v", back.PendingReload(), back.AutoReload())
	}
}
