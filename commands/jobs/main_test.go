package jobs_test

// Tests of the runner against the real PostgreSQL: this file holds
// TestMain (the package database) and the fixtures the tests share. Each
// test uses a kind of job of its own, so the tests share one lease table.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/commands/jobs"
	"svc/test/pgtest"
)

var (
	db *pgtest.DB
	// quiet discards the runners' log unless JOBS_TEST_LOG is set.
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) {
	if os.Getenv("JOBS_TEST_LOG") != "" {
		quiet = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	pgtest.Main(m, "jobs", func(d *pgtest.DB) { db = d })
}

// kinds numbers the kinds kindOf hands out, so that a test run again
// (-count) meets no lease of its previous run.
var kinds atomic.Int64

// kindOf is a kind of job of the test's own; its leases are deleted when
// the test ends.
func kindOf(t *testing.T) string {
	kind := fmt.Sprintf("%s-%d", strings.ToLower(t.Name()), kinds.Add(1))
	t.Cleanup(func() {
		if _, err := db.Pool.Exec(context.Background(), `DELETE FROM job_leases WHERE kind LIKE $1 || '%'`, kind); err != nil {
			t.Error(err)
		}
	})
	return kind
}

// nothing is a Finder that finds nothing: jobs start only when kicked.
func nothing(context.Context, int) ([]string, error) { return nil, nil }

// start runs a runner with cfg (its Poll 10 ms unless set, its Find
// nothing unless set) until the returned stop is called, or the test ends.
func start(t *testing.T, cfg jobs.Config) (r *jobs.Runner, stop func()) {
	t.Helper()
	if cfg.Poll == 0 {
		cfg.Poll = 10 * time.Millisecond
	}
	if cfg.Find == nil {
		cfg.Find = nothing
	}
	r = jobs.New(db.Pool, cfg, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("runner %s did not stop within 30 s", cfg.ID)
		}
	})
	t.Cleanup(stop)
	return r, stop
}

// waitFor checks cond every few milliseconds until it holds, failing the
// test after timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	expired := time.After(timeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-expired:
			t.Fatalf("%s: not within %v", what, timeout)
		}
	}
}

// receive waits for a value on ch, failing the test after timeout.
func receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// lease is a row of job_leases.
type lease struct {
	owner   string
	expires time.Time
}

// leaseOf returns the lease row of job id of kind, ok false when none.
func leaseOf(t *testing.T, kind, id string) (l lease, ok bool) {
	t.Helper()
	err := db.Pool.QueryRow(context.Background(), `SELECT owner, expires_at FROM job_leases WHERE kind = $1 AND job_id = $2`,
		kind, id).Scan(&l.owner, &l.expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return lease{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return l, true
}

// insertLease writes a lease row of job id that lasts for ttl (negative:
// expired).
func insertLease(t *testing.T, kind, id, owner string, ttl time.Duration) {
	t.Helper()
	_, err := db.Pool.Exec(context.Background(), `INSERT INTO job_leases (kind, job_id, owner, expires_at)
		VALUES ($1, $2, $3, now() + make_interval(secs => $4))`, kind, id, owner, ttl.Seconds())
	if err != nil {
		t.Fatal(err)
	}
}

// blocking is a job that reports its start, then runs until it is let go
// (release) or its context ends, and reports why it returned.
type blocking struct {
	started chan string
	release chan struct{}
	// ended receives context.Cause of the job's context as it returned
	// (nil: it was let go while its context lived).
	ended chan error
}

func newBlocking() *blocking {
	return &blocking{started: make(chan string, 100), release: make(chan struct{}), ended: make(chan error, 100)}
}

// run is the blocking job.
func (b *blocking) run(ctx context.Context, id string) *time.Time {
	b.started <- id
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	b.ended <- context.Cause(ctx)
	return nil
}

// kickBlocking starts a runner with cfg (Poll an hour unless set) running
// a blocking job, kicks job id and waits for it to start.
func kickBlocking(t *testing.T, cfg jobs.Config, id string) (b *blocking, stop func()) {
	t.Helper()
	b = newBlocking()
	cfg.Run = b.run
	cfg.Poll = cmp.Or(cfg.Poll, time.Hour)
	r, stop := start(t, cfg)
	r.Kick(id)
	if got := receive(t, "the kicked job", b.started); got != id {
		t.Fatalf("started %q, want %q", got, id)
	}
	return b, stop
}
