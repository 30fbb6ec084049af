package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/deletion"
	"svc/eventstore"
	"svc/eventstore/event"
)

// DeletionRequests is the read model of data deletion requests (spec B's
// Deletion request resource), by organization. Once an organization is
// erased its requests are gone but the one that erased it, which
// OrganizationErased rewrites without the organization (org_id and
// requested_by null, org_hash set): the anonymized request.
type DeletionRequests struct{}

// Name implements Projection.
func (DeletionRequests) Name() string { return "deletion_requests" }

// Tables implements Projection.
func (DeletionRequests) Tables() []Table {
	return []Table{{
		Name: "deletion_requests",
		DDL: `request_id text PRIMARY KEY,
			org_id uuid,
			org_hash text,
			requested_by text,
			status text NOT NULL,
			requested_at timestamptz NOT NULL,
			expires_at timestamptz,
			soft_deleted_at timestamptz,
			hard_deleted_at timestamptz,
			completed_at timestamptz,
			deletion_log jsonb NOT NULL DEFAULT '[]',
			error text,
			attempts integer NOT NULL DEFAULT 0`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, requested_at)`},
	}}
}

// EventTypes implements Projection.
func (DeletionRequests) EventTypes() []string {
	return []string{deletion.EventRequested, deletion.EventConfirmed, deletion.EventStepDone, deletion.EventFailed, deletion.EventErased}
}

// Apply implements Projection.
func (DeletionRequests) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	table := t.Of("deletion_requests")
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case deletion.Requested:
			b.Queue(`INSERT INTO `+table+` (request_id, org_id, requested_by, status, requested_at, expires_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, d.RequestID, d.OrgID, d.RequestedBy, deletion.StatusPending, e.RecordedAt, d.ExpiresAt)
		case deletion.Confirmed:
			entry, err := logLine(deletion.LogEntry{Step: deletion.StepConfirmed, At: e.RecordedAt.UTC()})
			if err != nil {
				return err
			}
			b.Queue(`UPDATE `+table+` SET status = $2, soft_deleted_at = $3, deletion_log = deletion_log || $4::jsonb WHERE request_id = $1`,
				d.RequestID, deletion.StatusErasing, e.RecordedAt, entry)
		case deletion.StepDone:
			entry, err := logLine(deletion.LogEntry{Step: d.Step, Count: d.Count, At: e.RecordedAt.UTC()})
			if err != nil {
				return err
			}
			b.Queue(`UPDATE `+table+` SET deletion_log = deletion_log || $2::jsonb WHERE request_id = $1`, d.RequestID, entry)
		case deletion.Failed:
			b.Queue(`UPDATE `+table+` SET error = $2, attempts = $3 WHERE request_id = $1`, d.RequestID, d.Error, d.Attempt)
		case deletion.Erased:
			log, err := json.Marshal(d.Log)
			if err != nil {
				return fmt.Errorf("deletion log: %w", err)
			}
			// every column, so that the row equals the one a rebuild
			// inserts from this event alone
			b.Queue(`INSERT INTO `+table+` AS r (request_id, org_id, org_hash, requested_by, status, requested_at, expires_at,
					soft_deleted_at, hard_deleted_at, completed_at, deletion_log, error, attempts)
				VALUES ($1, NULL, $2, NULL, $3, $4, NULL, $5, $6, $7, $8::jsonb, NULL, $9)
				ON CONFLICT (request_id) DO UPDATE SET org_id = NULL, org_hash = excluded.org_hash, requested_by = NULL,
					status = excluded.status, requested_at = excluded.requested_at, expires_at = NULL,
					soft_deleted_at = excluded.soft_deleted_at, hard_deleted_at = excluded.hard_deleted_at,
					completed_at = excluded.completed_at, deletion_log = excluded.deletion_log, error = NULL, attempts = excluded.attempts`,
				d.RequestID, d.OrgHash, deletion.StatusCompleted, d.RequestedAt, d.SoftDeletedAt, d.HardDeletedAt, e.RecordedAt, string(log), d.Attempts)
		}
	}
	return sendBatch(ctx, tx, b)
}

// logLine is one deletion log entry as a one-element JSON array.
func logLine(l deletion.LogEntry) (string, error) {
	raw, err := json.Marshal([]deletion.LogEntry{l})
	if err != nil {
		return "", fmt.Errorf("deletion log: %w", err)
	}
	return string(raw), nil
}

// DeletionRow is a deletion request as the read model has it.
type DeletionRow struct {
	ID            string
	Status        string // pending (expired once past ExpiresAt), erasing, completed
	RequestedAt   time.Time
	ExpiresAt     *time.Time
	SoftDeletedAt *time.Time
	HardDeletedAt *time.Time
	CompletedAt   *time.Time
	Log           []deletion.LogEntry
	Error         *string
	Attempts      int
}

const deletionColumns = `request_id, status, requested_at, expires_at, soft_deleted_at, hard_deleted_at, completed_at, deletion_log, error, attempts`

func scanDeletion(r pgx.CollectableRow) (DeletionRow, error) {
	var (
		d   DeletionRow
		log []byte
	)
	if err := r.Scan(&d.ID, &d.Status, &d.RequestedAt, &d.ExpiresAt, &d.SoftDeletedAt, &d.HardDeletedAt, &d.CompletedAt, &log, &d.Error, &d.Attempts); err != nil {
		return d, err
	}
	if err := json.Unmarshal(log, &d.Log); err != nil {
		return d, fmt.Errorf("deletion log of %s: %w", d.ID, err)
	}
	if d.Status == deletion.StatusPending && d.ExpiresAt != nil && !time.Now().Before(*d.ExpiresAt) {
		d.Status = deletion.StatusExpired
	}
	return d, nil
}

// DeletionRequests lists orgID's deletion requests, newest first.
func (q *Queries) DeletionRequests(ctx context.Context, orgID string) ([]DeletionRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT `+deletionColumns+` FROM deletion_requests WHERE org_id = $1
		ORDER BY requested_at DESC, request_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("deletion requests: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanDeletion)
	if err != nil {
		return nil, fmt.Errorf("deletion requests: %w", err)
	}
	return out, nil
}

// DeletionRequest is deletion request id, whichever organization's (the
// erasure's record names none); ErrNotFound when the read model has no
// such request.
func (q *Queries) DeletionRequest(ctx context.Context, id string) (DeletionRow, error) {
	return deletionRequest(ctx, q.store.Pool(), id)
}

func deletionRequest(ctx context.Context, db eventstore.DB, id string) (DeletionRow, error) {
	rows, err := db.Query(ctx, `SELECT `+deletionColumns+` FROM deletion_requests WHERE request_id = $1`, id)
	if err != nil {
		return DeletionRow{}, fmt.Errorf("deletion request: %w", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDeletion)
	if errors.Is(err, pgx.ErrNoRows) {
		return DeletionRow{}, ErrNotFound
	}
	if err != nil {
		return DeletionRow{}, fmt.Errorf("deletion request: %w", err)
	}
	return d, nil
}

// ErasureOutcome is how an erasure stood when AwaitErasure returned.
type ErasureOutcome struct {
	// Completed: the organization is erased (OrganizationErased applied).
	Completed bool
	// Failed: an attempt failed (DeletionFailed); it is retried in the
	// background. Error is its message.
	Failed bool
	Error  string
}

// AwaitErasure waits, at most bound, until erasure request id completed
// (its record applied and its queue row gone) or an attempt of it failed, reading the read model after each append
// to the request's streams (any process's, while the store's Push runs)
// and every 250 ms. Past the bound it returns neither (still running);
// ctx's end is an error.
func (q *Queries) AwaitErasure(ctx context.Context, orgID, id string, bound time.Duration) (ErasureOutcome, error) {
	progress, stop := q.store.SubscribeStream(deletion.Stream(orgID))
	defer stop()
	erased, stopErased := q.store.SubscribeStream(deletion.ErasureStream(id))
	defer stopErased()
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		d, err := deletionRequest(ctx, q.store.Pool(), id)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return ErasureOutcome{}, err
		case d.Status == deletion.StatusCompleted:
			// and the erasure's last sweep is done (its queue row, which
			// names the organization, goes last)
			var queued bool
			if err := q.store.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM erasures WHERE request_id = $1)`, id).Scan(&queued); err != nil {
				return ErasureOutcome{}, fmt.Errorf("erasure queue: %w", err)
			}
			if !queued {
				return ErasureOutcome{Completed: true}, nil
			}
		case d.Attempts > 0 && d.Error != nil:
			return ErasureOutcome{Failed: true, Error: *d.Error}, nil
		}
		select {
		case <-ctx.Done():
			return ErasureOutcome{}, ctx.Err()
		case <-deadline.C:
			return ErasureOutcome{}, nil
		case <-progress:
		case <-erased:
		case <-tick.C:
		}
	}
}
