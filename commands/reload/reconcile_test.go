package reload_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"svc/commands"
	"svc/commands/reload"
	"svc/domain/credit"
	"svc/domain/payment"
	"svc/projections"
)

// started is crossed with the reload's payment taken by the processor
// (AutoReloadStarted, payment pi_<n>) and its event not come.
func started(t *testing.T, repos *commands.Repositories, paymentID string) (orgID, reloadID string) {
	t.Helper()
	orgID, reloadID = crossed(t, repos)
	payer := &fakePayer{paid: commands.ReloadPaid{Status: commands.ReloadPaidPending, PaymentID: paymentID}}
	if _, err := reload.New(repos, payer, reload.Config{}, quiet).Pay(context.Background(), reloadID); err != nil {
		t.Fatal(err)
	}
	return orgID, reloadID
}

// ledgerEvents counts the reload successes and auto-reload grants on
// orgID's ledger and lists its reload failures.
func ledgerEvents(t *testing.T, orgID string) (succeeded, grants int, failures []credit.AutoReloadFailed) {
	t.Helper()
	events, err := store.Load(context.Background(), credit.Stream(orgID))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		switch e.Type {
		case credit.EventAutoReloadSucceeded:
			succeeded++
		case credit.EventAutoReloadFailed:
			var f credit.AutoReloadFailed
			if err := json.Unmarshal(e.Data, &f); err != nil {
				t.Fatal(err)
			}
			failures = append(failures, f)
		case credit.EventGranted:
			var g credit.Granted
			if err := json.Unmarshal(e.Data, &g); err != nil {
				t.Fatal(err)
			}
			if g.Reason == credit.ReasonAutoReload {
				grants++
			}
		}
	}
	return succeeded, grants, failures
}

// eventProcessor delivers one processor event, whatever the payload.
type eventProcessor struct {
	commands.PaymentProcessor
	ev payment.Event
}

func (p eventProcessor) Event([]byte, string) (payment.Event, error) { return p.ev, nil }

// succeededEvent delivers payment_intent.succeeded of reload id's payment.
func succeededEvent(t *testing.T, repos *commands.Repositories, orgID, id, paymentID string) commands.PaymentEventReceived {
	t.Helper()
	h := commands.NewReceivePaymentEventHandler(repos, eventProcessor{ev: payment.Event{ID: "evt_" + paymentID,
		Type: payment.PaymentIntentSucceeded, Created: time.Now().Unix(), Object: payment.Object{ID: paymentID,
			Metadata: map[string]string{payment.MetaOrgID: orgID, payment.MetaReload: id}}}})
	res, err := h.Handle(context.Background(), commands.ReceivePaymentEvent{Payload: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestReconcilePaidGrantsOnceEvenWhenTheEventComes(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := started(t, repos, "pi_late")
	payer := &fakePayer{status: commands.ReloadPaid{Status: commands.ReloadPaidSucceeded, PaymentID: "pi_late"}}
	r := reload.New(repos, payer, reload.Config{}, quiet)
	out, err := r.Reconcile(ctx, id, time.Now().Add(-20*time.Minute))
	if err != nil || out != payment.OutcomeReloaded {
		t.Fatalf("reconcile: %q, %v", out, err)
	}
	if res := succeededEvent(t, repos, orgID, id, "pi_late"); res.Outcome != payment.OutcomeReloadSettled {
		t.Fatalf("the late event: %+v", res)
	}
	if out, err := r.Reconcile(ctx, id, time.Now().Add(-20*time.Minute)); err != nil || out != "" {
		t.Fatalf("reconciling a settled reload: %q, %v", out, err)
	}
	if payer.reads["pi_late"] != 1 || len(payer.cancels) != 0 {
		t.Fatalf("reads %v cancels %v", payer.reads, payer.cancels)
	}
	l, err := repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	succeeded, grants, failures := ledgerEvents(t, orgID)
	if l.Balance() != 500+25_000 || l.PendingReload() != nil || succeeded != 1 || grants != 1 || len(failures) != 0 {
		t.Fatalf("balance %d pending %+v, %d succeeded, %d grants, failures %v", l.Balance(), l.PendingReload(), succeeded, grants, failures)
	}
}

func TestReconcileRacingTheEventGrantsOnce(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := started(t, repos, "pi_race")
	payer := &fakePayer{status: commands.ReloadPaid{Status: commands.ReloadPaidSucceeded, PaymentID: "pi_race"}}
	r := reload.New(repos, payer, reload.Config{}, quiet)
	var wg sync.WaitGroup
	var outs [2]string
	wg.Go(func() {
		out, err := r.Reconcile(ctx, id, time.Now().Add(-time.Hour))
		if err != nil {
			t.Error(err)
		}
		outs[0] = out
	})
	wg.Go(func() { outs[1] = succeededEvent(t, repos, orgID, id, "pi_race").Outcome })
	wg.Wait()
	// the job may find it settled before asking (""), else one of the two settles it
	settled := 0
	for _, o := range outs {
		if o == payment.OutcomeReloaded {
			settled++
		}
	}
	if succeeded, grants, _ := ledgerEvents(t, orgID); settled != 1 || succeeded != 1 || grants != 1 {
		t.Fatalf("outcomes %q, %d succeeded, %d grants", outs, succeeded, grants)
	}
}

func TestReconcileFailedPayment(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := started(t, repos, "pi_failed")
	payer := &fakePayer{status: commands.ReloadPaid{Status: commands.ReloadPaidFailed, PaymentID: "pi_failed",
		Reason: "insufficient_funds", Message: "Your card has insufficient funds."}}
	out, err := reload.New(repos, payer, reload.Config{}, quiet).Reconcile(ctx, id, time.Now().Add(-20*time.Minute))
	if err != nil || out != payment.OutcomeReloadFailed {
		t.Fatalf("reconcile: %q, %v", out, err)
	}
	l, err := repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	_, grants, failures := ledgerEvents(t, orgID)
	if l.Balance() != 500 || l.PendingReload() != nil || grants != 0 || len(failures) != 1 ||
		failures[0].Reason != "insufficient_funds" || failures[0].PaymentID != "pi_failed" {
		t.Fatalf("balance %d pending %+v grants %d failures %+v", l.Balance(), l.PendingReload(), grants, failures)
	}
}

// A payment the processor does not know: asked again until the limit,
// then given up as timed_out (nothing can have been charged under it).
func TestReconcileUnknownPayment(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := started(t, repos, "pi_unknown")
	payer := &fakePayer{statusErr: fmt.Errorf("%w: no such payment intent", payment.ErrUnknownPayment)}
	r := reload.New(repos, payer, reload.Config{GiveUpAfter: 2 * time.Hour}, quiet)
	if _, err := r.Reconcile(ctx, id, time.Now().Add(-time.Hour)); !errors.Is(err, payment.ErrUnknownPayment) {
		t.Fatalf("reconcile within the limit: %v, want the unknown payment", err)
	}
	if out, err := r.Reconcile(ctx, id, time.Now().Add(-3*time.Hour)); err != nil || out != payment.OutcomeReloadFailed {
		t.Fatalf("reconcile past the limit: %q, %v", out, err)
	}
	l, _ := repos.Ledgers.Get(ctx, orgID)
	_, grants, failures := ledgerEvents(t, orgID)
	if l.PendingReload() != nil || grants != 0 || len(failures) != 1 || failures[0].Reason != reload.ReasonTimedOut || len(payer.cancels) != 0 {
		t.Fatalf("pending %+v grants %d failures %+v cancels %v", l.PendingReload(), grants, failures, payer.cancels)
	}
}

func TestReconcileLeavesAPendingPaymentUntilTheLimit(t *testing.T) {
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	orgID, id := started(t, repos, "pi_slow")
	payer := &fakePayer{status: commands.ReloadPaid{Status: commands.ReloadPaidPending, PaymentID: "pi_slow"},
		canceled: commands.ReloadPaid{Status: commands.ReloadPaidFailed, PaymentID: "pi_slow", Reason: "canceled"}}
	r := reload.New(repos, payer, reload.Config{GiveUpAfter: 2 * time.Hour}, quiet)
	// within the limit: left alone, asked again at the next look
	for range 2 {
		if out, err := r.Reconcile(ctx, id, time.Now().Add(-time.Hour)); err != nil || out != "" {
			t.Fatalf("reconcile within the limit: %q, %v", out, err)
		}
	}
	l, _ := repos.Ledgers.Get(ctx, orgID)
	if p := l.PendingReload(); p == nil || p.PaymentID != "pi_slow" || payer.reads["pi_slow"] != 2 || len(payer.cancels) != 0 {
		t.Fatalf("pending %+v reads %v cancels %v", p, payer.reads, payer.cancels)
	}
	// past it, a payment the processor cannot cancel any more stays pending
	payer.canceled = commands.ReloadPaid{Status: commands.ReloadPaidPending, PaymentID: "pi_slow"}
	if out, err := r.Reconcile(ctx, id, time.Now().Add(-3*time.Hour)); err != nil || out != "" {
		t.Fatalf("reconcile of an uncancelable payment: %q, %v", out, err)
	}
	// and one it cancels is given up: timed_out, nothing granted
	payer.canceled = commands.ReloadPaid{Status: commands.ReloadPaidFailed, PaymentID: "pi_slow", Reason: "canceled"}
	if out, err := r.Reconcile(ctx, id, time.Now().Add(-3*time.Hour)); err != nil || out != payment.OutcomeReloadFailed {
		t.Fatalf("reconcile past the limit: %q, %v", out, err)
	}
	l, _ = repos.Ledgers.Get(ctx, orgID)
	_, grants, failures := ledgerEvents(t, orgID)
	if l.PendingReload() != nil || l.Balance() != 500 || grants != 0 || len(failures) != 1 ||
		failures[0].Reason != reload.ReasonTimedOut || payer.cancels["pi_slow"] != 2 {
		t.Fatalf("pending %+v balance %d grants %d failures %+v cancels %v", l.PendingReload(), l.Balance(), grants, failures, payer.cancels)
	}
	if l.ReloadSpentUSD(credit.MonthOf(time.Now())) != 0 {
		t.Fatalf("a given-up reload counts %d USD", l.ReloadSpentUSD(credit.MonthOf(time.Now())))
	}
}

// TestReconcileJobFindsOverdueReloads runs the job with the auto_reloads
// read model: a started reload older than CheckAfter is found, asked about
// and settled.
func TestReconcileJobFindsOverdueReloads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr := projections.NewRunner(store, quiet, []projections.Projection{projections.AutoReloads{}}, projections.WithPoll(20*time.Millisecond))
	if err := pr.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = pr.Run(ctx) })
	repos := commands.NewRepositories(store)
	orgID, id := started(t, repos, "pi_job")
	payer := &fakePayer{status: commands.ReloadPaid{Status: commands.ReloadPaidSucceeded, PaymentID: "pi_job"}}
	r := reload.New(repos, payer, reload.Config{CheckAfter: 100 * time.Millisecond, CheckEvery: 50 * time.Millisecond}, quiet)
	wg.Go(func() { r.Run(ctx) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, err := repos.Ledgers.Get(ctx, orgID)
		if err != nil {
			t.Fatal(err)
		}
		if l.PendingReload() == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reload %s still pending", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if succeeded, grants, _ := ledgerEvents(t, orgID); succeeded != 1 || grants != 1 || payer.readsOf("pi_job") < 1 {
		t.Fatalf("%d succeeded, %d grants, reads %d", succeeded, grants, payer.readsOf("pi_job"))
	}
}
