package projections

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
)

// BillingReport compares an org's billing read model with the ledger
// recomputed from the event log, both as of the billing checkpoint.
type BillingReport struct {
	OrgID      string
	Checkpoint event.Position
	Events     int
	Log        BalanceRow
	ReadModel  BalanceRow
	Workflows  int
	// LogOrg and ModelOrg are the organization's tier and subscription as
	// its stream says (cut at the organizations projection's checkpoint)
	// and as the organizations read model shows them.
	LogOrg, ModelOrg OrgBilling
	Differences      []string
}

// OrgBilling is an organization's tier and payment processor state.
type OrgBilling struct {
	Tier               org.Tier
	SubscriptionStatus string // "active" for an organization that never subscribed
	SubscriptionID     string
	CustomerID         string
}

// ReplayBilling recomputes the org's balance, its reservations and the
// per-workflow charges by folding its ledger stream with the domain's own
// rules (credit.History), and compares them
// with the billing read model. Both are read in one snapshot and the log is
// cut at the projection's checkpoint, so a lagging projection is no
// difference.
func ReplayBilling(ctx context.Context, store *eventstore.Store, orgID string) (BillingReport, error) {
	rep := BillingReport{OrgID: orgID}
	err := pgx.BeginTxFunc(ctx, store.Pool(), pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		cp, err := ActiveCheckpoint(ctx, tx, Billing{}.Name())
		if err != nil {
			return err
		}
		rep.Checkpoint = cp.Position
		events, err := store.LoadFrom(ctx, tx, credit.Stream(orgID), 0)
		if err != nil {
			return err
		}
		var seen []event.Event
		for _, e := range events {
			if cp.Position.Reached(e.Position) {
				seen = append(seen, e)
			}
		}
		rep.Events = len(seen)
		ledger, charges, err := credit.History(orgID, seen)
		if err != nil {
			return err
		}
		g, c, r := ledger.Totals()
		rep.Log = BalanceRow{OrgID: orgID, Balance: ledger.Balance(), Reserved: ledger.Reserved(), Granted: g, Charged: c, Refunded: r}
		rep.ReadModel, err = Balance(ctx, tx, orgID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		model, err := WorkflowCharges(ctx, tx, orgID)
		if err != nil {
			return err
		}
		rep.Differences = compareBilling(rep.Log, rep.ReadModel, charges, model)
		rep.Workflows = len(charges)
		if rep.LogOrg, rep.ModelOrg, err = replayOrg(ctx, store, tx, orgID); err != nil {
			return err
		}
		rep.Differences = append(rep.Differences, compareOrg(rep.LogOrg, rep.ModelOrg)...)
		return nil
	})
	if err != nil {
		return BillingReport{}, fmt.Errorf("replay billing of %s: %w", orgID, err)
	}
	return rep, nil
}

func compareBilling(log, model BalanceRow, logFlows, modelFlows map[string]int64) []string {
	var diffs []string
	cmp := func(what string, a, b int64) {
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s: log %d, read model %d (difference %d)", what, a, b, b-a))
		}
	}
	cmp("balance", log.Balance, model.Balance)
	cmp("reserved", log.Reserved, model.Reserved)
	cmp("granted", log.Granted, model.Granted)
	cmp("charged", log.Charged, model.Charged)
	cmp("refunded", log.Refunded, model.Refunded)
	ids := map[string]bool{}
	for id := range logFlows {
		ids[id] = true
	}
	for id := range modelFlows {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		cmp("workflow "+id+" charges", logFlows[id], modelFlows[id])
	}
	return diffs
}

// replayOrg folds the organization's stream up to the organizations
// projection's checkpoint and reads that projection's row, in tx.
func replayOrg(ctx context.Context, store *eventstore.Store, tx pgx.Tx, orgID string) (log, model OrgBilling, err error) {
	cp, err := ActiveCheckpoint(ctx, tx, Organizations{}.Name())
	if errors.Is(err, pgx.ErrNoRows) { // a store without that read model: nothing to compare
		return log, model, nil
	}
	if err != nil {
		return log, model, err
	}
	events, err := store.LoadFrom(ctx, tx, org.Stream(orgID), 0)
	if err != nil {
		return log, model, err
	}
	o := org.New()
	for _, e := range events {
		if !cp.Position.Reached(e.Position) {
			break
		}
		if err := o.Apply(e); err != nil {
			return log, model, err
		}
	}
	sub := o.Subscription()
	log = OrgBilling{Tier: o.Tier(), SubscriptionStatus: string(sub.Status), SubscriptionID: sub.ID, CustomerID: o.CustomerID()}
	if log.SubscriptionStatus == "" {
		log.SubscriptionStatus = "active"
	}
	if o.Version() == event.NewStream {
		log.Tier = ""
	}
	err = tx.QueryRow(ctx, `SELECT tier, subscription_status, coalesce(subscription_id, ''), coalesce(billing_customer_id, '')
		FROM organizations WHERE org_id = $1`, orgID).Scan(&model.Tier, &model.SubscriptionStatus, &model.SubscriptionID, &model.CustomerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return log, OrgBilling{}, nil
	}
	return log, model, err
}

// compareOrg lists where the organization's tier and subscription differ.
func compareOrg(log, model OrgBilling) []string {
	var diffs []string
	cmp := func(what, a, b string) {
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s: log %q, read model %q", what, a, b))
		}
	}
	cmp("tier", string(log.Tier), string(model.Tier))
	cmp("subscription status", log.SubscriptionStatus, model.SubscriptionStatus)
	cmp("subscription", log.SubscriptionID, model.SubscriptionID)
	cmp("processor customer", log.CustomerID, model.CustomerID)
	return diffs
}

// OrgIDs lists every organization the log holds, in the order they were
// created: what `svc replay billing --all` checks.
func OrgIDs(ctx context.Context, store *eventstore.Store) ([]string, error) {
	rows, err := store.Pool().Query(ctx, `SELECT stream_id FROM events WHERE type = $1 ORDER BY transaction_id, position`, org.EventCreated)
	if err != nil {
		return nil, fmt.Errorf("list organizations: %w", err)
	}
	streams, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list organizations: %w", err)
	}
	ids := make([]string, 0, len(streams))
	for _, s := range streams {
		ids = append(ids, strings.TrimPrefix(s, org.Stream("")))
	}
	return ids, nil
}
