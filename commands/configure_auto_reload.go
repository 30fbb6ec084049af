package commands

import (
	"context"
	"fmt"

	"svc/domain/credit"
	"svc/domain/payment"
	"svc/eventstore"
)

// ConfigureAutoReload saves an organization's auto-reload configuration
// (spec B, Billing: PUT /api/billing/auto-reload).
type ConfigureAutoReload struct {
	OrgID             string
	Enabled, Confirm  bool
	Threshold, Amount int64
	MonthlyLimitUSD   *int64
}

// AutoReloadConfigured is the outcome of ConfigureAutoReload: the
// configuration as saved.
type AutoReloadConfigured struct {
	Config credit.AutoReloadConfigured
}

// ConfigureAutoReloadHandler handles ConfigureAutoReload.
type ConfigureAutoReloadHandler struct {
	repos     *Repositories
	processor PaymentProcessor // nil: billing unavailable
}

// NewConfigureAutoReloadHandler returns a handler over repos and processor
// (nil when none is configured).
func NewConfigureAutoReloadHandler(repos *Repositories, processor PaymentProcessor) ConfigureAutoReloadHandler {
	return ConfigureAutoReloadHandler{repos: must(repos), processor: processor}
}

// Handle appends AutoReloadConfigured to the organization's ledger under
// its lock (the ledger's rules: credit.ErrReload*). Enabling needs a
// processor (payment.ErrUnavailable) and a processor customer, which the
// organization has once it bought something (payment.ErrNoBillingAccount).
// Disabling always works. The append requests a reload at once when the
// balance is below the threshold (credit.Ledger.Follow).
func (h ConfigureAutoReloadHandler) Handle(ctx context.Context, cmd ConfigureAutoReload) (AutoReloadConfigured, error) {
	var out AutoReloadConfigured
	if cmd.Enabled {
		if h.processor == nil {
			return out, payment.ErrUnavailable
		}
		o, err := h.repos.Orgs.Get(ctx, cmd.OrgID)
		if err != nil {
			return out, err
		}
		if o.CustomerID() == "" {
			return out, payment.ErrNoBillingAccount
		}
	}
	_, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		ledger, err := LoadLedger(tx, h.repos, cmd.OrgID)
		if err != nil {
			return err
		}
		c, ok, err := ledger.ConfigureAutoReload(cmd.Enabled, cmd.Confirm, cmd.Threshold, cmd.Amount, cmd.MonthlyLimitUSD)
		if err != nil {
			return err
		}
		out.Config = ledger.AutoReload()
		if !ok {
			return nil
		}
		out.Config = c
		_, err = h.repos.Ledgers.Save(tx, cmd.OrgID, ledger, c)
		return err
	})
	if err != nil {
		return AutoReloadConfigured{}, fmt.Errorf("configure auto-reload: %w", err)
	}
	out.Config.OrgID = cmd.OrgID
	return out, nil
}
