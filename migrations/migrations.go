// Package migrations holds the SQL schema of the event store and the
// projection bookkeeping, applied in order by Apply.
//
// Each file is named NNNN_description.sql; its first line is a comment
// "-- NNNN description: note" that is recorded with the version. Read-model
// tables are not here: each projection creates its own tables per generation
// (see package projections), so a rebuild can build a fresh copy beside the
// live one.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed *.sql
var files embed.FS

// lockKey serialises concurrent migrators (several instances starting at once).
const lockKey = 7_240_001

// Migration is one schema version.
type Migration struct {
	Version int
	Name    string
	Note    string
	SQL     string
}

// All returns the embedded migrations in version order.
func All() ([]Migration, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", name, err)
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", name, err)
		}
		text := string(body)
		first, _, _ := strings.Cut(text, "\n")
		out = append(out, Migration{Version: v, Name: name, Note: strings.TrimSpace(strings.TrimPrefix(first, "--")), SQL: text})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share a version", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}

// Apply applies every pending migration, each in its own transaction, under an
// advisory lock so concurrent callers wait for each other. It returns the
// versions it applied.
func Apply(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) ([]int, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey) //nolint:errcheck

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		note       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	for _, v := range versions {
		applied[v] = true
	}
	var done []int
	for _, m := range all {
		if applied[m.Version] {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, note) VALUES ($1, $2, $3)`, m.Version, m.Name, m.Note)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if log != nil {
			log.Info("migration applied", "schema_version", m.Version, "name", m.Name)
		}
		done = append(done, m.Version)
	}
	return done, nil
}
