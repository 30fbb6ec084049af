package projections

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Billing is the read model of credit balances and per-workflow charges.
// A batch is folded in memory first, so a rebuild writes one row per org and
// workflow per batch rather than one per event. An org's balance is its
// spendable balance (what it owns less what its runs hold in reservation,
// as credit.Ledger.Balance), reserved what they hold.
type Billing struct{}

// Name implements Projection.
func (Billing) Name() string { return "billing" }

// SchemaVersion implements Versioned: 2 added reserved, and balance became
// the spendable balance.
func (Billing) SchemaVersion() int { return 2 }

// Tables implements Projection.
func (Billing) Tables() []Table {
	return []Table{
		{
			Name: "balances",
			DDL: `org_id uuid PRIMARY KEY,
				balance bigint NOT NULL,
				reserved bigint NOT NULL,
				granted bigint NOT NULL,
				charged bigint NOT NULL,
				refunded bigint NOT NULL,
				updated_at timestamptz NOT NULL`,
			Storage: "fillfactor = 50",
		},
		{
			Name: "workflow_charges",
			DDL: `org_id uuid NOT NULL,
				workflow_id text NOT NULL,
				charged bigint NOT NULL,
				refunded bigint NOT NULL,
				updated_at timestamptz NOT NULL,
				PRIMARY KEY (org_id, workflow_id)`,
			Storage: "fillfactor = 70",
		},
	}
}

type balanceDelta struct {
	granted, charged, refunded, reserved int64
	at                                   time.Time
}

type chargeKey struct{ org, workflow string }

// EventTypes implements Projection.
func (Billing) EventTypes() []string {
	return []string{credit.EventGranted, credit.EventCharged, credit.EventRefunded, credit.EventReserved, credit.EventSettled}
}

// Apply implements Projection.
func (Billing) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	orgs := map[string]*balanceDelta{}
	flows := map[chargeKey]*balanceDelta{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case credit.Granted:
			bump(orgs, d.OrgID, e.RecordedAt).granted += d.Amount
		case credit.Charged:
			o := bump(orgs, d.OrgID, e.RecordedAt)
			o.charged += d.Amount
			o.reserved -= d.FromReservation
			if d.WorkflowID != "" {
				bump(flows, chargeKey{d.OrgID, d.WorkflowID}, e.RecordedAt).charged += d.Amount
			}
		case credit.Refunded:
			bump(orgs, d.OrgID, e.RecordedAt).refunded += d.Amount
			bump(flows, chargeKey{d.OrgID, d.WorkflowID}, e.RecordedAt).refunded += d.Amount
		case credit.Reserved:
			bump(orgs, d.OrgID, e.RecordedAt).reserved += d.Amount
		case credit.Settled:
			bump(orgs, d.OrgID, e.RecordedAt).reserved -= d.Released
		}
	}
	if len(orgs) > 0 {
		n := len(orgs)
		ids, granted, charged, refunded, reserved, at := make([]string, 0, n), make([]int64, 0, n), make([]int64, 0, n), make([]int64, 0, n), make([]int64, 0, n), make([]time.Time, 0, n)
		for _, id := range sortedKeys(orgs) {
			d := orgs[id]
			ids, granted, charged, refunded, reserved, at = append(ids, id), append(granted, d.granted), append(charged, d.charged), append(refunded, d.refunded), append(reserved, d.reserved), append(at, d.at)
		}
		table := t.Of("balances")
		_, err := tx.Exec(ctx, `INSERT INTO `+table+` AS b (org_id, balance, reserved, granted, charged, refunded, updated_at)
			SELECT o::uuid, g - c + r - res, res, g, c, r, at
			FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::timestamptz[]) AS u(o, g, c, r, res, at)
			ON CONFLICT (org_id) DO UPDATE SET
				balance = b.balance + excluded.balance, reserved = b.reserved + excluded.reserved, granted = b.granted + excluded.granted,
				charged = b.charged + excluded.charged, refunded = b.refunded + excluded.refunded,
				updated_at = excluded.updated_at`, ids, granted, charged, refunded, reserved, at)
		if err != nil {
			return fmt.Errorf("apply balances: %w", err)
		}
	}
	if len(flows) > 0 {
		n := len(flows)
		orgIDs, wfIDs, charged, refunded, at := make([]string, 0, n), make([]string, 0, n), make([]int64, 0, n), make([]int64, 0, n), make([]time.Time, 0, n)
		keys := make([]chargeKey, 0, n)
		for k := range flows {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i].org < keys[j].org || keys[i].org == keys[j].org && keys[i].workflow < keys[j].workflow
		})
		for _, k := range keys {
			d := flows[k]
			orgIDs, wfIDs, charged, refunded, at = append(orgIDs, k.org), append(wfIDs, k.workflow), append(charged, d.charged), append(refunded, d.refunded), append(at, d.at)
		}
		table := t.Of("workflow_charges")
		_, err := tx.Exec(ctx, `INSERT INTO `+table+` AS w (org_id, workflow_id, charged, refunded, updated_at)
			SELECT o::uuid, wf, c, r, at FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::timestamptz[]) AS u(o, wf, c, r, at)
			ON CONFLICT (org_id, workflow_id) DO UPDATE SET
				charged = w.charged + excluded.charged, refunded = w.refunded + excluded.refunded, updated_at = excluded.updated_at`,
			orgIDs, wfIDs, charged, refunded, at)
		if err != nil {
			return fmt.Errorf("apply workflow charges: %w", err)
		}
	}
	return nil
}

// bump returns the delta of k in m, created if needed, stamped at.
func bump[K comparable](m map[K]*balanceDelta, k K, at time.Time) *balanceDelta {
	d := m[k]
	if d == nil {
		d = &balanceDelta{}
		m[k] = d
	}
	d.at = at
	return d
}

// sortedKeys orders upserts so concurrent writers lock rows in one order.
func sortedKeys(m map[string]*balanceDelta) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// BalanceRow is an org's balance as the read model has it: Balance is the
// spendable balance, Reserved what its runs hold in reservation (they own
// Balance + Reserved).
type BalanceRow struct {
	OrgID                                         string
	Balance, Reserved, Granted, Charged, Refunded int64
}

// Balance returns an org's balance; an org with no ledger event has none.
func Balance(ctx context.Context, db eventstore.DB, orgID string) (BalanceRow, error) {
	r := BalanceRow{OrgID: orgID}
	err := db.QueryRow(ctx, `SELECT balance, reserved, granted, charged, refunded FROM balances WHERE org_id = $1`, orgID).
		Scan(&r.Balance, &r.Reserved, &r.Granted, &r.Charged, &r.Refunded)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("read balance: %w", err)
	}
	return r, nil
}

// WorkflowCharges returns an org's net charge per workflow.
func WorkflowCharges(ctx context.Context, db eventstore.DB, orgID string) (map[string]int64, error) {
	rows, err := db.Query(ctx, `SELECT workflow_id, charged - refunded FROM workflow_charges WHERE org_id = $1`, orgID)
	if err != nil {
		return nil, fmt.Errorf("read workflow charges: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var (
			id  string
			net int64
		)
		if err := rows.Scan(&id, &net); err != nil {
			return nil, err
		}
		out[id] = net
	}
	return out, rows.Err()
}
