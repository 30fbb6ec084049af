package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// releaseTimeout bounds handing leases back, which happens while stopping
// too.
const releaseTimeout = 5 * time.Second

// Querier reads one row; a pgx.Tx, a connection or a pool satisfies it.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Held reports whether any owner holds a live lease on job id of kind,
// read through db (a caller's transaction, say): the job is being run.
func Held(ctx context.Context, db Querier, kind, id string) (bool, error) {
	var held bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM job_leases
		WHERE kind = $1 AND job_id = $2 AND expires_at > now())`, kind, id).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("jobs: read the lease of %s %s: %w", kind, id, err)
	}
	return held, nil
}

// claim takes the leases of jobs ids that are free, expired or already
// this owner's (a stale one whose release failed: the runner never runs a
// job twice at once in one process), in one statement, and returns those
// it took.
func (r *Runner) claim(ctx context.Context, ids []string) (map[string]bool, error) {
	taken := make(map[string]bool, len(ids))
	err := r.async(ctx, func(rows pgx.Rows) error {
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, id := range got {
			taken[id] = true
		}
		return err
	}, `INSERT INTO job_leases (kind, job_id, owner, expires_at)
		SELECT $1, id, $3, now() + make_interval(secs => $4) FROM unnest($2::text[]) AS id
		ON CONFLICT (kind, job_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, taken_at = now()
		WHERE job_leases.expires_at < now() OR job_leases.owner = excluded.owner
		RETURNING job_id`, r.cfg.Kind, ids, r.cfg.ID, r.cfg.Lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("jobs: claim %d %s jobs: %w", len(ids), r.cfg.Kind, err)
	}
	return taken, nil
}

// batcher is a DB that sends statements together (*pgxpool.Pool).
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// async runs a claim or a release, sql with args, in a transaction that
// commits without waiting for the WAL flush, the transaction's statements
// sent together (one round trip); rows reads what sql returns (nil: none).
// A lease is coordination: one a database crash loses is taken again (a
// lost release just expires; every job's append carries its stream's
// expected version). A flush per claim, made by the runner's loop before
// the jobs start, bounded how fast a burst of jobs could start, and one
// per release held the job's slot. A DB that sends no batches runs sql as
// is.
func (r *Runner) async(ctx context.Context, rows func(pgx.Rows) error, sql string, args ...any) error {
	read := func(q func() (pgx.Rows, error)) error {
		res, err := q()
		if err != nil {
			return err
		}
		defer res.Close()
		if rows != nil {
			return rows(res)
		}
		res.Close() // reads what is left
		return res.Err()
	}
	b, ok := r.db.(batcher)
	if !ok {
		return read(func() (pgx.Rows, error) { return r.db.Query(ctx, sql, args...) })
	}
	batch := &pgx.Batch{}
	batch.Queue("BEGIN")
	batch.Queue("SET LOCAL synchronous_commit = off")
	batch.Queue(sql, args...)
	batch.Queue("COMMIT")
	res := b.SendBatch(ctx, batch)
	_, err := res.Exec()
	if err == nil {
		_, err = res.Exec()
	}
	if err == nil {
		err = read(res.Query)
	}
	if err == nil {
		_, err = res.Exec()
	}
	return errors.Join(err, res.Close())
}

// renew extends every lease this owner holds on jobs of its kind, in one
// statement, and returns the jobs whose lease it still holds.
func (r *Runner) renew(ctx context.Context) (map[string]bool, error) {
	rows, err := r.db.Query(ctx, `UPDATE job_leases SET expires_at = now() + make_interval(secs => $3)
		WHERE kind = $1 AND owner = $2 RETURNING job_id`, r.cfg.Kind, r.cfg.ID, r.cfg.Lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("jobs: renew %s leases: %w", r.cfg.Kind, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("jobs: renew %s leases: %w", r.cfg.Kind, err)
	}
	held := make(map[string]bool, len(ids))
	for _, id := range ids {
		held[id] = true
	}
	return held, nil
}

// keep renews this runner's leases every third of the lease while any job
// runs, until ctx ends; a job whose lease another owner took has its
// context ended (cause ErrLeaseLost). A failed renewal is tried again at
// the next tick: the lease outlives two misses.
func (r *Runner) keep(ctx context.Context) {
	t := time.NewTicker(max(r.cfg.Lease/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		before := make(map[string]*leasedJob, len(r.running))
		for id, j := range r.running {
			if j != nil {
				before[id] = j
			}
		}
		r.mu.Unlock()
		if len(before) == 0 {
			continue
		}
		held, err := r.renew(ctx)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("renewing leases", "kind", r.cfg.Kind, "error", err)
			}
			continue
		}
		r.mu.Lock()
		for id, j := range before {
			// a job that ended (and released) meanwhile is no loss
			if !held[id] && r.running[id] == j {
				r.log.Warn("lease lost: another owner has the job", r.idKey, id)
				j.cancel(ErrLeaseLost)
			}
		}
		r.mu.Unlock()
	}
}

// release hands the lease of job id back, even while stopping.
func (r *Runner) release(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	err := r.async(ctx, nil, `DELETE FROM job_leases WHERE kind = $1 AND job_id = $2 AND owner = $3`, r.cfg.Kind, id, r.cfg.ID)
	if err != nil {
		r.log.Warn("releasing a lease", r.idKey, id, "error", err)
	}
}

// releaseAll hands back every lease of this owner and kind still held
// (none, unless a release failed).
func (r *Runner) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	_, err := r.db.Exec(ctx, `DELETE FROM job_leases WHERE kind = $1 AND owner = $2`, r.cfg.Kind, r.cfg.ID)
	if err != nil {
		r.log.Warn("releasing leases", "kind", r.cfg.Kind, "error", err)
	}
}
