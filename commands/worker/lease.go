package worker

import (
	"context"
	"time"
)

// claim takes the lease of workflow id if it is free, expired or already
// this worker's.
func (w *Worker) claim(ctx context.Context, id string) (bool, error) {
	tag, err := w.store.Pool().Exec(ctx, `INSERT INTO workflow_leases (workflow_id, owner, expires_at)
		VALUES ($1, $2, now() + make_interval(secs => $3))
		ON CONFLICT (workflow_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, taken_at = now()
		WHERE workflow_leases.expires_at < now() OR workflow_leases.owner = excluded.owner`,
		id, w.cfg.ID, w.cfg.Lease.Seconds())
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// renew extends the lease; false means another worker has it now.
func (w *Worker) renew(ctx context.Context, id string) (bool, error) {
	tag, err := w.store.Pool().Exec(ctx, `UPDATE workflow_leases SET expires_at = now() + make_interval(secs => $3)
		WHERE workflow_id = $1 AND owner = $2`, id, w.cfg.ID, w.cfg.Lease.Seconds())
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// release hands the lease back, even while the worker is stopping.
func (w *Worker) release(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := w.store.Pool().Exec(ctx, `DELETE FROM workflow_leases WHERE workflow_id = $1 AND owner = $2`, id, w.cfg.ID); err != nil {
		w.log.Warn("releasing a lease", "workflow_id", id, "error", err)
	}
}

// keepLease renews the lease of id until ctx ends; when the lease is lost
// it calls lost (which cancels the run).
func (w *Worker) keepLease(ctx context.Context, id string, lost func()) {
	t := time.NewTicker(w.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ok, err := w.renew(ctx, id)
			if err != nil {
				if ctx.Err() == nil {
					w.log.Warn("renewing a lease", "workflow_id", id, "error", err)
				}
				continue // try again next tick; the lease outlives two misses
			}
			if !ok {
				w.log.Warn("lease lost: another worker has the workflow", "workflow_id", id)
				lost()
				return
			}
		}
	}
}
