// Package reload pays auto-reloads. The ledger requests a reload
// (AutoReloadRequested) in the append that takes the balance below the
// threshold; this job (a jobs.Runner of kind autoreload) finds requested
// reloads in the auto_reloads read model, takes a lease per reload, asks
// the processor for an off-session payment outside any transaction (the
// reload id is its idempotency key: asking again pays once), and records
// the outcome through the ledger (commands.SettleReload): the grant of
// its credits, the failure, or that the payment was taken and its event
// will tell.
//
// A second leased job (kind autoreload_check) reconciles started reloads
// whose event is overdue (requested more than Config.CheckAfter ago): it
// asks the processor for the payment's state and settles it through the
// same path, so a lost event does not leave the org's reload pending for
// ever; one still pending after Config.GiveUpAfter is canceled at the
// processor and fails with reason timed_out.
package reload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"svc/commands"
	"svc/commands/jobs"
	"svc/domain/credit"
	"svc/domain/payment"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

// Config tunes a Runner; zero values take the defaults.
type Config struct {
	// ID names this process in leases.
	ID string
	// Lease is a reload's lease (jobs.Config's default).
	Lease time.Duration
	// Push: woken when the auto_reloads read model moves (the store's Push
	// runs); the poll is then only a safety net.
	Push bool
	// RetryAfter is the pause before asking again when the processor did
	// not answer; default 1 minute.
	RetryAfter time.Duration
	// CheckAfter is how long after its request a started reload's outcome
	// is overdue, so the processor is asked; default 15 minutes.
	CheckAfter time.Duration
	// CheckEvery is how often overdue reloads are looked for (each is
	// asked about once a look); default 5 minutes.
	CheckEvery time.Duration
	// GiveUpAfter is how long after its request a reload whose payment is
	// still pending is canceled and fails (timed_out); default 24 hours.
	GiveUpAfter time.Duration
}

// ReasonTimedOut is the failure of a reload given up by reconciliation.
const ReasonTimedOut = "timed_out"

// Runner pays requested auto-reloads and reconciles overdue started ones.
type Runner struct {
	repos  *commands.Repositories
	payer  commands.ReloadPayer // nil: no processor, every reload fails
	cfg    Config
	log    *slog.Logger
	jobs   *jobs.Runner
	checks *jobs.Runner
	stop   func()
}

// New returns a runner over repos paying through payer (nil when no
// processor is configured).
func New(repos *commands.Repositories, payer commands.ReloadPayer, cfg Config, log *slog.Logger) *Runner {
	if repos == nil || log == nil {
		panic("reload: nil dependency")
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Minute
	}
	if cfg.CheckAfter <= 0 {
		cfg.CheckAfter = 15 * time.Minute
	}
	if cfg.CheckEvery <= 0 {
		cfg.CheckEvery = 5 * time.Minute
	}
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = 24 * time.Hour
	}
	r := &Runner{repos: repos, payer: payer, cfg: cfg, log: log}
	var wake <-chan struct{}
	if cfg.Push {
		wake, r.stop = repos.Store.SubscribeTypes(projections.Moved(projections.AutoReloads{}.Name()))
	}
	r.jobs = jobs.New(repos.Store.Pool(), jobs.Config{Kind: jobs.KindAutoReload, ID: cfg.ID, Concurrency: 4, Lease: cfg.Lease,
		Wake: wake, Find: func(ctx context.Context, limit int) ([]string, error) {
			return projections.DueReloads(ctx, repos.Store.Pool(), limit)
		}, Run: r.run}, log)
	r.checks = jobs.New(repos.Store.Pool(), jobs.Config{Kind: jobs.KindReloadCheck, ID: cfg.ID, Concurrency: 4, Lease: cfg.Lease,
		Poll: cfg.CheckEvery, Find: func(ctx context.Context, limit int) ([]string, error) {
			return projections.StaleReloads(ctx, repos.Store.Pool(), cfg.CheckAfter, limit)
		}, Run: r.check}, log)
	return r
}

// Run pays requested reloads and reconciles overdue started ones until
// ctx ends.
func (r *Runner) Run(ctx context.Context) {
	if r.stop != nil {
		defer r.stop()
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.checks.Run(ctx) })
	r.jobs.Run(ctx)
	wg.Wait()
}

// Kick hints that reload id was requested.
func (r *Runner) Kick(id string) { r.jobs.Kick(id) }

func (r *Runner) run(ctx context.Context, id string) *time.Time {
	next, err := r.Pay(ctx, id)
	if err != nil && ctx.Err() == nil {
		r.log.Warn("auto-reload payment", "reload_id", id, "error", err)
	}
	return next
}

// Pay pays reload id if it is still requested and records the outcome; it
// returns when to try again (the processor did not answer), else nil.
func (r *Runner) Pay(ctx context.Context, id string) (*time.Time, error) {
	orgID, ok := credit.ReloadOrg(id)
	if !ok {
		return nil, fmt.Errorf("reload: %q is not a reload id", id)
	}
	ledger, err := r.repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		return nil, err
	}
	p := ledger.PendingReload()
	if p == nil || p.ReloadID != id || p.PaymentID != "" {
		return nil, nil // settled, or taken by the processor: its event tells
	}
	o, err := r.repos.Orgs.Get(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var paid commands.ReloadPaid
	switch {
	case r.payer == nil:
		paid = commands.ReloadPaid{Status: commands.ReloadPaidFailed, Reason: "billing_unavailable",
			Message: "No payment processor is configured."}
	case o.CustomerID() == "":
		paid = commands.ReloadPaid{Status: commands.ReloadPaidFailed, Reason: "no_billing_account",
			Message: "The organization has no billing account with a saved payment method."}
	default:
		paid, err = r.payer.PayReload(ctx, commands.ReloadPayment{OrgID: orgID, ReloadID: id, CustomerID: o.CustomerID(),
			USD: p.PriceUSD, Credits: p.Amount})
		if err != nil {
			next := time.Now().Add(r.cfg.RetryAfter)
			return &next, err
		}
	}
	_, err = r.settle(ctx, orgID, id, p.Amount, paid)
	return nil, err
}

// settle records paid, the outcome of reload id of orgID, through the
// ledger (commands.SettleReload, once per reload whoever learns it
// first) and logs it; it returns the outcome recorded (payment.Outcome*).
func (r *Runner) settle(ctx context.Context, orgID, id string, credits int64, paid commands.ReloadPaid) (string, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var outcome string
	_, err := r.repos.Store.Run(rctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: orgID, Actor: "system", CausationID: id}},
		func(tx *eventstore.Tx) error {
			var err error
			outcome, err = commands.SettleReload(tx, r.repos, orgID, id, paid)
			return err
		})
	if err != nil {
		return "", err
	}
	switch outcome {
	case payment.OutcomeReloadFailed:
		r.log.Warn("auto-reload payment failed", "org_id", orgID, "reload_id", id, "reason", paid.Reason,
			"message", paid.Message, "payment_id", paid.PaymentID)
	case payment.OutcomeReloaded:
		r.log.Info("auto-reload paid", "org_id", orgID, "reload_id", id, "credits", credits, "payment_id", paid.PaymentID)
	}
	return outcome, nil
}

func (r *Runner) check(ctx context.Context, id string) *time.Time {
	requested, ok, err := projections.ReloadRequestedAt(ctx, r.repos.Store.Pool(), id)
	if err == nil && ok {
		_, err = r.Reconcile(ctx, id, requested)
	}
	if err != nil && ctx.Err() == nil {
		r.log.Warn("auto-reload reconciliation", "reload_id", id, "error", err)
	}
	return nil // still pending: the next look (CheckEvery) lists it again
}

// Reconcile settles reload id, requested at requested, when it is started
// (its payment taken) and still pending: it asks the processor for the
// payment's state and records a success or a failure through the settle
// path of Pay and of the processor's events, so an event arriving as well
// changes nothing. A payment still pending is left to a later look until
// GiveUpAfter has passed since the request: then it is canceled at the
// processor and the reload fails with reason timed_out (paid meanwhile:
// granted; one the processor can no longer cancel stays pending, its
// outcome is near). It returns the outcome recorded (payment.Outcome*),
// "" when nothing was.
func (r *Runner) Reconcile(ctx context.Context, id string, requested time.Time) (string, error) {
	orgID, ok := credit.ReloadOrg(id)
	if !ok {
		return "", fmt.Errorf("reload: %q is not a reload id", id)
	}
	ledger, err := r.repos.Ledgers.Get(ctx, orgID)
	if err != nil {
		return "", err
	}
	p := ledger.PendingReload()
	if p == nil || p.ReloadID != id || p.PaymentID == "" {
		return "", nil // settled, or not started yet (Pay's)
	}
	giveUp := time.Since(requested) >= r.cfg.GiveUpAfter
	paid := commands.ReloadPaid{Status: commands.ReloadPaidPending}
	if r.payer != nil {
		paid, err = r.payer.ReloadStatus(ctx, p.PaymentID)
		switch {
		case errors.Is(err, payment.ErrUnknownPayment) && giveUp:
			// nothing was charged under an id the processor does not know
			paid = commands.ReloadPaid{Status: commands.ReloadPaidFailed, Reason: ReasonTimedOut,
				Message: "The payment processor does not know the reload's payment; nothing was charged."}
		case err != nil:
			return "", err
		}
		if paid.Status == commands.ReloadPaidPending && giveUp {
			if paid, err = r.payer.CancelReload(ctx, p.PaymentID); err != nil {
				return "", err
			}
			if paid.Status == commands.ReloadPaidFailed {
				paid.Reason, paid.Message = ReasonTimedOut, fmt.Sprintf("The payment was still pending %s after the reload was requested; it was canceled.", r.cfg.GiveUpAfter)
			}
		}
	} else if giveUp { // no processor to ask or cancel: nothing else will settle it
		paid = commands.ReloadPaid{Status: commands.ReloadPaidFailed, Reason: ReasonTimedOut,
			Message: "The payment's outcome never came and no payment processor is configured."}
	}
	if paid.Status == commands.ReloadPaidPending {
		r.log.Info("auto-reload payment still pending", "org_id", orgID, "reload_id", id, "payment_id", p.PaymentID,
			"requested_at", requested)
		return "", nil
	}
	paid.PaymentID = cmp.Or(paid.PaymentID, p.PaymentID)
	return r.settle(ctx, orgID, id, p.Amount, paid)
}
