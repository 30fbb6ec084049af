package reload_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"svc/commands"
	"svc/commands/reload"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/test/pgtest"
)

var store *eventstore.Store

func TestMain(m *testing.M) {
	pgtest.Main(m, "reload", func(d *pgtest.DB) { store = eventstore.New(d.Pool) })
}

// fakePayer answers every payment with paid, every status read with
// status and every cancellation with canceled, and counts the calls (by
// idempotency key; the reads and cancellations by payment id).
type fakePayer struct {
	mu       sync.Mutex
	paid     commands.ReloadPaid
	status   commands.ReloadPaid
	canceled commands.ReloadPaid
	// statusErr is ReloadStatus's error
	statusErr error
	calls     map[string]int
	reads     map[string]int
	cancels   map[string]int
	last      commands.ReloadPayment
}

func (f *fakePayer) ReloadStatus(_ context.Context, paymentID string) (commands.ReloadPaid, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reads == nil {
		f.reads = map[string]int{}
	}
	f.reads[paymentID]++
	return f.status, f.statusErr
}

func (f *fakePayer) CancelReload(_ context.Context, paymentID string) (commands.ReloadPaid, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancels == nil {
		f.cancels = map[string]int{}
	}
	f.cancels[paymentID]++
	return f.canceled, nil
}

// readsOf counts the status reads of payment id so far.
func (f *fakePayer) readsOf(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[id]
}

func (f *fakePayer) PayReload(_ context.Context, p commands.ReloadPayment) (commands.ReloadPaid, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[p.ReloadID]++
	f.last = p
	return f.paid, nil
}

type someProcessor struct{ commands.PaymentProcessor }

// crossed is an org with a billing customer whose auto-reload (threshold
// 1,000, amount 25,000) was just requested by a charge: its reload id.
func crossed(t *testing.T, repos *commands.Repositories) (orgID, reloadID string) {
	t.Helper()
	ctx := context.Background()
	a, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{ClientIP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := repos.Orgs.Update(ctx, a.OrgID, a.OrgID, func(o *org.Organization) ([]event.Data, error) {
		l, _ := o.LinkCustomer("cus_reload", "evt_"+a.OrgID)
		return []event.Data{l}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewConfigureAutoReloadHandler(repos, someProcessor{}).Handle(ctx, commands.ConfigureAutoReload{
		OrgID: a.OrgID, Enabled: true, Confirm: true, Threshold: 1_000, Amount: 25_000}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewChargeCreditsHandler(repos).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{
		OrgID: a.OrgID, Amount: 2_000, Reason: "step"}}); err != nil {
		t.Fatal(err)
	}
	l, err := repos.Ledgers.Get(ctx, a.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	p := l.PendingReload()
	if p == nil {
		t.Fatal("the charge requested no reload")
	}
	return a.OrgID, p.ReloadID
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestReloadPaidGrantsItsCreditsOnce(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := crossed(t, repos)
	payer := &fakePayer{paid: commands.ReloadPaid{Status: commands.ReloadPaidSucceeded, PaymentID: "pi_ok"}}
	r := reload.New(repos, payer, reload.Config{}, quiet)
	for range 2 { // the second finds it settled and pays nothing
		if _, err := r.Pay(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if payer.calls[id] != 1 || payer.last.USD != 25 || payer.last.Credits != 25_000 || payer.last.CustomerID != "cus_reload" || payer.last.OrgID != orgID {
		t.Fatalf("payments %v, last %+v", payer.calls, payer.last)
	}
	l, err := repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Balance() != 500+25_000 || l.PendingReload() != nil || l.ReloadSpentUSD(credit.MonthOf(timeNow())) != 25 {
		t.Fatalf("balance %d pending %+v", l.Balance(), l.PendingReload())
	}
}

func TestReloadDeclinedDisablesNothing(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := crossed(t, repos)
	payer := &fakePayer{paid: commands.ReloadPaid{Status: commands.ReloadPaidFailed, PaymentID: "pi_no", Reason: "card_declined", Message: "Your card was declined."}}
	if _, err := reload.New(repos, payer, reload.Config{}, quiet).Pay(ctx, id); err != nil {
		t.Fatal(err)
	}
	l, err := repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Balance() != 500 || l.PendingReload() != nil || !l.AutoReload().Enabled || l.ReloadSpentUSD(credit.MonthOf(timeNow())) != 0 {
		t.Fatalf("after a decline: balance %d pending %+v config %+v", l.Balance(), l.PendingReload(), l.AutoReload())
	}
	var failed int
	events, err := store.Load(ctx, credit.Stream(orgID))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Type == credit.EventAutoReloadFailed {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d failures recorded, want 1", failed)
	}
}

func TestReloadPendingWaitsForTheProcessorsEvent(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := crossed(t, repos)
	payer := &fakePayer{paid: commands.ReloadPaid{Status: commands.ReloadPaidPending, PaymentID: "pi_wait"}}
	r := reload.New(repos, payer, reload.Config{}, quiet)
	for range 2 {
		if _, err := r.Pay(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	l, _ := repos.Ledgers.Get(ctx, orgID)
	if p := l.PendingReload(); payer.calls[id] != 1 || p == nil || p.PaymentID != "pi_wait" {
		t.Fatalf("calls %v pending %+v", payer.calls, p)
	}
}

func timeNow() time.Time { return time.Now() }
