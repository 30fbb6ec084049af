// Package reload pays auto-reloads. The ledger requests a reload
// (AutoReloadRequested) in the append that takes the balance below the
// threshold; this job (a jobs.Runner of kind autoreload) finds requested
// reloads in the auto_reloads read model, takes a lease per reload, asks
// the processor for an off-session payment outside any transaction (the
// reload id is its idempotency key: asking again pays once), and records
// the outcome through the ledger (commands.SettleReload): the grant of
// its credits, the failure, or that the payment was taken and its event
// will tell.
package reload

import (
	"context"
	"fmt"
	"log/slog"
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
}

// Runner pays requested auto-reloads.
type Runner struct {
	repos *commands.Repositories
	payer commands.ReloadPayer // nil: no processor, every reload fails
	cfg   Config
	log   *slog.Logger
	jobs  *jobs.Runner
	stop  func()
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
	r := &Runner{repos: repos, payer: payer, cfg: cfg, log: log}
	var wake <-chan struct{}
	if cfg.Push {
		wake, r.stop = repos.Store.SubscribeTypes(projections.Moved(projections.AutoReloads{}.Name()))
	}
	r.jobs = jobs.New(repos.Store.Pool(), jobs.Config{Kind: jobs.KindAutoReload, ID: cfg.ID, Concurrency: 4, Lease: cfg.Lease,
		Wake: wake, Find: func(ctx context.Context, limit int) ([]string, error) {
			return projections.DueReloads(ctx, repos.Store.Pool(), limit)
		}, Run: r.run}, log)
	return r
}

// Run pays requested reloads until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	if r.stop != nil {
		defer r.stop()
	}
	r.jobs.Run(ctx)
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
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var outcome string
	_, err = r.repos.Store.Run(rctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: orgID, Actor: "system", CausationID: id}},
		func(tx *eventstore.Tx) error {
			outcome, err = commands.SettleReload(tx, r.repos, orgID, id, paid)
			return err
		})
	if err != nil {
		return nil, err
	}
	switch outcome {
	case payment.OutcomeReloadFailed:
		r.log.Warn("auto-reload payment failed", "org_id", orgID, "reload_id", id, "reason", paid.Reason,
			"message", paid.Message, "payment_id", paid.PaymentID)
	case payment.OutcomeReloaded:
		r.log.Info("auto-reload paid", "org_id", orgID, "reload_id", id, "credits", p.Amount, "payment_id", paid.PaymentID)
	}
	return nil, nil
}
