package projections

import (
	"context"
	"errors"
	"fmt"
	"svc/eventstore/event"

	"github.com/jackc/pgx/v5"
)

// ErrRebuildRunning means another rebuild of the projection holds its lock.
var ErrRebuildRunning = errors.New("a rebuild of this projection is already running")

// Progress is told how many events a rebuild has applied out of a total.
type Progress func(done, total int64)

// Rebuild builds a fresh generation of p from the whole event log in short
// batches while the live generation keeps serving, then switches the views to
// it and drops the old one. It returns the number of events applied.
func (r *Runner) Rebuild(ctx context.Context, p Projection, progress Progress) (int64, error) {
	pool := r.store.Pool()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockID("rebuild:"+p.Name())).Scan(&locked); err != nil {
		return 0, fmt.Errorf("rebuild lock: %w", err)
	}
	if !locked {
		return 0, ErrRebuildRunning
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockID("rebuild:"+p.Name())) //nolint:errcheck

	if err := r.Setup(ctx); err != nil {
		return 0, err
	}
	gen, err := r.newGeneration(ctx, p)
	if err != nil {
		return 0, err
	}
	total, err := r.store.CountAfter(ctx, pool, event.Position{})
	if err != nil {
		return 0, err
	}
	var done int64
	report := func() {
		if progress != nil {
			progress(done, max(total, done))
		}
	}
	report()
	for {
		var n int
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			cp, ok, err := lockCheckpoint(ctx, tx, p.Name(), gen, false)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("generation %d of %s vanished", gen, p.Name())
			}
			n, _, err = r.applyBatch(ctx, tx, p, cp)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("rebuild %s: %w", p.Name(), err)
		}
		done += int64(n)
		report()
		if n < r.batch {
			break
		}
	}
	old, final, err := r.switchTo(ctx, p, gen)
	if err != nil {
		return done, err
	}
	done += final
	report()
	if err := dropTables(ctx, pool, p, old); err != nil {
		r.log.Warn("old projection generation not dropped", "projection", p.Name(), "generation", old, "error", err)
	}
	r.log.Info("projection rebuilt", "projection", p.Name(), "generation", gen, "events", done)
	return done, nil
}

// newGeneration clears any leftover inactive generation and creates the next one.
func (r *Runner) newGeneration(ctx context.Context, p Projection) (int, error) {
	var gen int
	err := pgx.BeginFunc(ctx, r.store.Pool(), func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "DELETE FROM projection_checkpoints WHERE name = $1 AND NOT active RETURNING generation", p.Name())
		if err != nil {
			return err
		}
		stale, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		for _, g := range stale {
			if err := dropTables(ctx, tx, p, g); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(generation), 0) + 1 FROM projection_checkpoints WHERE name = $1", p.Name()).Scan(&gen); err != nil {
			return err
		}
		if err := createTables(ctx, tx, p, gen); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO projection_checkpoints (name, generation, active, schema_version) VALUES ($1, $2, false, $3)", p.Name(), gen, schemaVersion(p))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("new generation of %s: %w", p.Name(), err)
	}
	return gen, nil
}

// switchTo locks the live generation (waiting for its runner's batch), applies
// what the new one still lacks, and points the views at it, in one transaction.
func (r *Runner) switchTo(ctx context.Context, p Projection, gen int) (old int, applied int64, err error) {
	var last event.Position
	err = pgx.BeginFunc(ctx, r.store.Pool(), func(tx pgx.Tx) error {
		live, ok, err := lockCheckpoint(ctx, tx, p.Name(), 0, false)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no active generation of %s", p.Name())
		}
		cp, ok, err := lockCheckpoint(ctx, tx, p.Name(), gen, false)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("generation %d of %s vanished", gen, p.Name())
		}
		for {
			var n int
			n, cp, err = r.applyBatch(ctx, tx, p, cp)
			if err != nil {
				return err
			}
			applied += int64(n)
			if n == 0 {
				break
			}
		}
		if _, err := tx.Exec(ctx, "UPDATE projection_checkpoints SET active = false WHERE name = $1 AND generation = $2", p.Name(), live.Generation); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE projection_checkpoints SET active = true WHERE name = $1 AND generation = $2", p.Name(), gen); err != nil {
			return err
		}
		if err := pointViews(ctx, tx, p, gen); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM projection_checkpoints WHERE name = $1 AND generation = $2", p.Name(), live.Generation); err != nil {
			return err
		}
		old, last = live.Generation, cp.Position
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("switch %s to generation %d: %w", p.Name(), gen, err)
	}
	r.moved(p.Name(), last)
	return old, applied, nil
}
