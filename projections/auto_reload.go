package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
)

// AutoReloads is the read model of auto-reload: each organization's
// configuration with the last failure (auto_reload_configs) and every
// reload with its status (auto_reloads: requested, started, succeeded,
// failed), which the reload job searches for requested ones and GET
// /api/billing/auto-reload sums for the month's spend. A reload's grant is
// a CreditsGranted the billing projection counts like any other.
type AutoReloads struct{}

// Name implements Projection.
func (AutoReloads) Name() string { return "auto_reloads" }

// Tables implements Projection.
func (AutoReloads) Tables() []Table {
	return []Table{
		{
			Name: "auto_reload_configs",
			DDL: `org_id uuid PRIMARY KEY,
				enabled boolean NOT NULL,
				threshold bigint,
				amount bigint,
				monthly_limit_usd bigint,
				updated_at timestamptz NOT NULL,
				last_error text,
				last_error_message text,
				last_failed_at timestamptz,
				last_reload_at timestamptz`,
		},
		{
			Name: "auto_reloads",
			DDL: `reload_id text PRIMARY KEY,
				org_id uuid NOT NULL,
				amount bigint NOT NULL,
				price_usd bigint NOT NULL,
				month text NOT NULL,
				status text NOT NULL,
				payment_id text,
				reason text,
				requested_at timestamptz NOT NULL,
				settled_at timestamptz`,
			Indexes: []string{
				`CREATE INDEX {{table}}_org ON {{table}} (org_id, month)`,
				`CREATE INDEX {{table}}_requested ON {{table}} (requested_at) WHERE status = 'requested'`,
			},
		},
	}
}

// EventTypes implements Projection.
func (AutoReloads) EventTypes() []string {
	return []string{credit.EventAutoReloadConfigured, credit.EventAutoReloadRequested, credit.EventAutoReloadStarted,
		credit.EventAutoReloadSucceeded, credit.EventAutoReloadFailed}
}

// Apply implements Projection.
func (AutoReloads) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	b := &pgx.Batch{}
	configs, reloads := t.Of("auto_reload_configs"), t.Of("auto_reloads")
	for _, e := range events {
		switch d := e.Payload.(type) {
		case credit.AutoReloadConfigured:
			var threshold, amount *int64
			if d.Threshold > 0 {
				threshold, amount = &d.Threshold, &d.Amount
			}
			b.Queue(`INSERT INTO `+configs+` (org_id, enabled, threshold, amount, monthly_limit_usd, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (org_id) DO UPDATE SET enabled = excluded.enabled, threshold = excluded.threshold,
					amount = excluded.amount, monthly_limit_usd = excluded.monthly_limit_usd, updated_at = excluded.updated_at`,
				d.OrgID, d.Enabled, threshold, amount, d.MonthlyLimitUSD, e.RecordedAt)
		case credit.AutoReloadRequested:
			b.Queue(`INSERT INTO `+reloads+` (reload_id, org_id, amount, price_usd, month, status, requested_at)
				VALUES ($1, $2, $3, $4, $5, 'requested', $6) ON CONFLICT (reload_id) DO NOTHING`,
				d.ReloadID, d.OrgID, d.Amount, d.PriceUSD, d.Month, e.RecordedAt)
		case credit.AutoReloadStarted:
			b.Queue(`UPDATE `+reloads+` SET status = 'started', payment_id = $2 WHERE reload_id = $1`, d.ReloadID, d.PaymentID)
		case credit.AutoReloadSucceeded:
			b.Queue(`UPDATE `+reloads+` SET status = 'succeeded', payment_id = coalesce(nullif($2, ''), payment_id), settled_at = $3
				WHERE reload_id = $1`, d.ReloadID, d.PaymentID, e.RecordedAt)
			b.Queue(`UPDATE `+configs+` SET last_reload_at = $2 WHERE org_id = $1`, d.OrgID, e.RecordedAt)
		case credit.AutoReloadFailed:
			b.Queue(`UPDATE `+reloads+` SET status = 'failed', payment_id = coalesce(nullif($2, ''), payment_id), reason = $3,
				settled_at = $4 WHERE reload_id = $1`, d.ReloadID, d.PaymentID, d.Reason, e.RecordedAt)
			b.Queue(`UPDATE `+configs+` SET last_error = $2, last_error_message = nullif($3, ''), last_failed_at = $4
				WHERE org_id = $1`, d.OrgID, d.Reason, d.Message, e.RecordedAt)
		}
	}
	return sendBatch(ctx, tx, b)
}

// AutoReloadRow is an organization's auto-reload as the read model has it
// in a month.
type AutoReloadRow struct {
	Enabled                    bool
	Threshold, Amount          *int64
	MonthlyLimitUSD            *int64
	MonthlySpentUSD            int64 // the month's succeeded and pending reloads
	Pending                    bool  // a reload waits for its payment
	LastError, LastErrorDetail *string
	LastFailedAt, LastReloadAt *time.Time
	UpdatedAt                  *time.Time
}

// AutoReload is orgID's auto-reload in now's UTC month (disabled, with
// nothing set, when never configured).
func (q *Queries) AutoReload(ctx context.Context, orgID string, now time.Time) (AutoReloadRow, error) {
	var r AutoReloadRow
	err := q.store.Pool().QueryRow(ctx, `SELECT c.enabled, c.threshold, c.amount, c.monthly_limit_usd, c.last_error,
			c.last_error_message, c.last_failed_at, c.last_reload_at, c.updated_at
		FROM auto_reload_configs c WHERE c.org_id = $1`, orgID).Scan(&r.Enabled, &r.Threshold, &r.Amount, &r.MonthlyLimitUSD,
		&r.LastError, &r.LastErrorDetail, &r.LastFailedAt, &r.LastReloadAt, &r.UpdatedAt)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("auto-reload: %w", err)
	}
	err = q.store.Pool().QueryRow(ctx, `SELECT coalesce(sum(price_usd) FILTER (WHERE month = $2 AND status <> 'failed'), 0),
			count(*) FILTER (WHERE status IN ('requested', 'started')) > 0
		FROM auto_reloads WHERE org_id = $1`, orgID, credit.MonthOf(now)).Scan(&r.MonthlySpentUSD, &r.Pending)
	if err != nil {
		return r, fmt.Errorf("auto-reload: %w", err)
	}
	return r, nil
}

// DueReloads lists up to limit requested reloads whose job lease (kind
// autoreload) is free or expired, oldest first: the reload job's Find.
func DueReloads(ctx context.Context, db eventstore.DB, limit int) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT r.reload_id FROM auto_reloads r
		LEFT JOIN job_leases l ON l.kind = 'autoreload' AND l.job_id = r.reload_id
		WHERE r.status = 'requested' AND (l.job_id IS NULL OR l.expires_at < now())
		ORDER BY r.requested_at LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("due auto-reloads: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("due auto-reloads: %w", err)
	}
	return ids, nil
}

// StaleReloads lists up to limit started reloads (their payment taken,
// its event awaited) requested more than olderThan ago whose check lease
// (kind autoreload_check) is free or expired, oldest first: the
// reconciliation's Find (commands/reload).
func StaleReloads(ctx context.Context, db eventstore.DB, olderThan time.Duration, limit int) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT r.reload_id FROM auto_reloads r
		LEFT JOIN job_leases l ON l.kind = 'autoreload_check' AND l.job_id = r.reload_id
		WHERE r.status = 'started' AND r.requested_at < now() - make_interval(secs => $1)
			AND (l.job_id IS NULL OR l.expires_at < now())
		ORDER BY r.requested_at LIMIT $2`, olderThan.Seconds(), limit)
	if err != nil {
		return nil, fmt.Errorf("stale auto-reloads: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("stale auto-reloads: %w", err)
	}
	return ids, nil
}

// ReloadRequestedAt is when reload id was requested (ok false when the
// read model does not have it).
func ReloadRequestedAt(ctx context.Context, db eventstore.DB, id string) (at time.Time, ok bool, err error) {
	err = db.QueryRow(ctx, `SELECT requested_at FROM auto_reloads WHERE reload_id = $1`, id).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("auto-reload %s: %w", id, err)
	}
	return at, true, nil
}
