// Package pgtest gives each test package a PostgreSQL database of its own,
// migrated and dropped afterwards, so packages can run in parallel against the
// real server named by DATABASE_URL (or the local default).
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/eventstore"
	"svc/migrations"
)

// DefaultURL is the server tests use when DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/svc?sslmode=disable"

var unsafe = regexp.MustCompile(`[^a-z0-9_]+`)

// URL returns a URL for a database named svc_test_<name>_<pid> on the test server.
func URL(name string) string {
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		base = DefaultURL
	}
	u, err := url.Parse(base)
	if err != nil {
		panic(fmt.Sprintf("pgtest: DATABASE_URL: %v", err))
	}
	db := fmt.Sprintf("svc_test_%s_%d", unsafe.ReplaceAllString(strings.ToLower(name), "_"), os.Getpid())
	if len(db) > 63 {
		db = db[:63]
	}
	u.Path = "/" + db
	return u.String()
}

// DB is a migrated database for one test package.
type DB struct {
	URL  string
	Pool *pgxpool.Pool
}

// New creates (afresh) and migrates the database for name. Call Close when done,
// usually from TestMain.
func New(name string) (*DB, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := URL(name)
	if err := eventstore.DropDatabase(ctx, u); err != nil {
		return nil, fmt.Errorf("pgtest: drop old %s: %w", name, err)
	}
	pool, err := eventstore.Connect(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if _, err := migrations.Apply(ctx, pool, nil); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgtest: migrate: %w", err)
	}
	return &DB{URL: u, Pool: pool}, nil
}

// Close closes the pool and drops the database.
func (d *DB) Close() {
	d.Pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = eventstore.DropDatabase(ctx, d.URL)
}

// Main is a TestMain body: it creates the package database, runs the tests
// and drops it. setup receives the database before the tests run.
func Main(m *testing.M, name string, setup func(*DB)) {
	db, err := New(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	setup(db)
	code := m.Run()
	db.Close()
	os.Exit(code)
}

// Reset empties the event store, every read model, the consumer offsets,
// the leases and the snapshots, for tests that need a clean log. Projection tables (rm_*)
// and their views are dropped.
func (d *DB) Reset(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `DO $$
	DECLARE r record;
	BEGIN
		FOR r IN SELECT viewname FROM pg_views WHERE schemaname = 'public' LOOP
			EXECUTE 'DROP VIEW IF EXISTS ' || quote_ident(r.viewname) || ' CASCADE';
		END LOOP;
		FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'rm\_%' LOOP
			EXECUTE 'DROP TABLE IF EXISTS ' || quote_ident(r.tablename) || ' CASCADE';
		END LOOP;
	END $$;
	TRUNCATE events, projection_checkpoints, watermill_offsets_events, job_leases, snapshots RESTART IDENTITY`)
	if err != nil {
		t.Fatalf("pgtest: reset: %v", err)
	}
}
