package commands_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"svc/commands"
	"svc/domain/credit"
	"svc/domain/org"
	"svc/domain/payment"
	"svc/eventstore"
	"svc/eventstore/event"
)

// reloadProcessor is a payment processor for auto-reload's commands: it
// only needs to exist.
type reloadProcessor struct{ commands.PaymentProcessor }

// reloadOrg is an org with 2,500 credits and a billing customer, its
// auto-reload enabled at threshold (amount 5,000 credits).
func reloadOrg(t *testing.T, threshold int64) commands.OrganizationCreated {
	t.Helper()
	ctx := context.Background()
	a := signup(t, "")
	repos := commands.NewRepositories(store)
	if _, _, err := repos.Orgs.Update(ctx, a.OrgID, a.OrgID, func(o *org.Organization) ([]event.Data, error) {
		l, _ := o.LinkCustomer("cus_"+a.OrgID[:8], "evt_"+a.OrgID[:8])
		return []event.Data{l}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewConfigureAutoReloadHandler(repos, reloadProcessor{}).Handle(ctx, commands.ConfigureAutoReload{
		OrgID: a.OrgID, Enabled: true, Confirm: true, Threshold: threshold, Amount: 5_000}); err != nil {
		t.Fatal(err)
	}
	return a
}

// requests are the reloads requested on orgID's ledger.
func requests(t *testing.T, orgID string) []credit.AutoReloadRequested {
	t.Helper()
	var out []credit.AutoReloadRequested
	for _, e := range mustLoad(t, credit.Stream(orgID)) {
		if e.Type != credit.EventAutoReloadRequested {
			continue
		}
		var d credit.AutoReloadRequested
		if err := e.Decode(&d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// 40 charges of 50 race from 2,500 credits across a threshold of 1,000,
// through the optimistic single-stream path (ChargeCredits, enhance) and
// in transactions under the org's lock (as the worker charges): exactly
// one reload is requested, in the append whose charge crossed. (The two
// paths are raced separately: a fold-cache entry's mutex held across a
// pool acquire can deadlock against transactions that hold every pool
// connection, a limit of the store's cache, not of the ledger's rule.)
func TestConcurrentChargesCrossingTheThresholdRequestOneReload(t *testing.T) {
	for _, locked := range []bool{false, true} {
		t.Run(map[bool]string{false: "optimistic", true: "locked"}[locked], func(t *testing.T) {
			a := reloadOrg(t, 1_000)
			repos := commands.NewRepositories(store)
			charge := commands.NewChargeCreditsHandler(repos)
			var wg sync.WaitGroup
			for range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := credit.Charged{OrgID: a.OrgID, Amount: 50, Reason: "step"}
					if !locked {
						if _, err := charge.Handle(context.Background(), commands.ChargeCredits{Charge: c}); err != nil {
							t.Errorf("charge: %v", err)
						}
						return
					}
					_, err := repos.Store.Run(context.Background(), eventstore.TxOptions{Metadata: event.Metadata{OrgID: a.OrgID}}, func(tx *eventstore.Tx) error {
						l, err := commands.LoadLedger(tx, repos, a.OrgID)
						if err != nil {
							return err
						}
						d, err := l.Charge(c)
						if err != nil {
							return err
						}
						_, err = repos.Ledgers.Save(tx, a.OrgID, l, d)
						return err
					})
					if err != nil {
						t.Errorf("locked charge: %v", err)
					}
				}()
			}
			wg.Wait()
			if b := balance(t, a.OrgID); b != 500 {
				t.Fatalf("balance %d, want 500", b)
			}
			reqs := requests(t, a.OrgID)
			if len(reqs) != 1 {
				t.Fatalf("%d reloads requested, want 1: %+v", len(reqs), reqs)
			}
			if r := reqs[0]; r.Amount != 5_000 || r.PriceUSD != 5 || r.Balance >= 1_000 || r.Balance < 950 {
				t.Fatalf("request %+v", r)
			}
		})
	}
}

// Enabling needs a processor and a billing customer; disabling does not.
func TestConfigureAutoReloadNeedsABillingAccount(t *testing.T) {
	ctx := context.Background()
	a := signup(t, "")
	repos := commands.NewRepositories(store)
	cmd := commands.ConfigureAutoReload{OrgID: a.OrgID, Enabled: true, Confirm: true, Threshold: 1_000, Amount: 5_000}
	if _, err := commands.NewConfigureAutoReloadHandler(repos, nil).Handle(ctx, cmd); !errors.Is(err, payment.ErrUnavailable) {
		t.Fatalf("without a processor: %v", err)
	}
	if _, err := commands.NewConfigureAutoReloadHandler(repos, reloadProcessor{}).Handle(ctx, cmd); !errors.Is(err, payment.ErrNoBillingAccount) {
		t.Fatalf("without a customer: %v", err)
	}
	if _, err := commands.NewConfigureAutoReloadHandler(repos, nil).Handle(ctx, commands.ConfigureAutoReload{OrgID: a.OrgID}); err != nil {
		t.Fatalf("disabling: %v", err)
	}
}
