// Package jobs runs leased jobs: work of one kind (a workflow to drive, a
// webhook delivery to attempt) that every process of the service may pick
// up but only one may run at a time.
//
// A Runner finds due jobs through its caller's query when it starts, when
// woken (Config.Wake), every Poll, when another owner's lease expires and
// at least once a Config.Lease, or is told of one (Kick); it takes a lease
// on a job in job_leases (migration 0007) before running it, renews its
// leases, all in one statement, every third of Config.Lease while the jobs
// run, and hands each back when its job returns. A crashed process's
// leases expire a Lease after their last renewal at most, and another
// process takes its jobs over as they do. A lease is coordination, not a
// lock on the job's state: jobs record what they did with their stream's
// expected version, so even a process that lost a lease without noticing
// cannot record anything twice.
package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The kinds of job of the service, as job_leases names them (the read
// models' find queries name them in their SQL too).
const (
	// KindWorkflow is a workflow for the worker to drive (commands/worker).
	KindWorkflow = "workflow"
	// KindDelivery is a webhook delivery for the dispatcher to attempt
	// (commands/webhooks).
	KindDelivery = "delivery"
	// KindAutoReload is an auto-reload to pay (commands/reload).
	KindAutoReload = "autoreload"
	// KindReloadCheck is a started auto-reload whose outcome is overdue,
	// to ask the processor about (commands/reload).
	KindReloadCheck = "autoreload_check"
	// KindErasure is a confirmed data deletion to carry out
	// (commands/erasure); its id is the deletion request's.
	KindErasure = "erasure"
)

// kickWithin is the longest pause until a job's next run for which the
// runner sets itself a timer; later runs are found by Find.
const kickWithin = time.Minute

// Causes of a job's context ending (context.Cause).
var (
	// ErrLeaseLost: another owner holds the job's lease now.
	ErrLeaseLost = errors.New("jobs: lease lost to another owner")
	// ErrStopped: the runner stopped (and its StopGrace ran out).
	ErrStopped = errors.New("jobs: runner stopped")
)

// Finder lists up to limit ids of due jobs whose lease is free or expired.
type Finder func(ctx context.Context, limit int) ([]string, error)

// Job runs job id while the runner holds its lease. Its context ends when
// the lease is lost (cause ErrLeaseLost) or the runner stops (ErrStopped);
// the job should return soon after. It returns when the job is due again:
// within a minute the runner runs it again then; nil, or later, leaves it
// to Find and Kick.
type Job func(ctx context.Context, id string) (next *time.Time)

// DB runs statements; *pgxpool.Pool satisfies it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Config tunes a Runner. Kind, Find and Run are required; other zero
// values take the defaults.
type Config struct {
	// Kind names the jobs in job_leases, e.g. KindWorkflow.
	Kind string
	// ID names this process in leases; default DefaultID().
	ID string
	// Concurrency bounds the jobs running at once here; default 8.
	Concurrency int
	// Lease is how long a lease lasts without renewal (renewed every third
	// of it): how soon another process takes a dead one's jobs over;
	// default 10 s.
	Lease time.Duration
	// Poll is how often Find is asked for due jobs; default 500 ms, or
	// 30 s with Wake.
	Poll time.Duration
	// Wake, when set, signals that jobs may have become due (the read
	// model Find reads moved): Find is asked then, at most every
	// wakeEvery.
	Wake <-chan struct{}
	// StopGrace is how long running jobs keep their context once Run's
	// context ends; past it they are abandoned (their context ends). Zero:
	// their context ends with Run's.
	StopGrace time.Duration
	// Find lists due jobs.
	Find Finder
	// Run runs one job.
	Run Job
}

// DefaultID names a process in leases: host:pid:random.
func DefaultID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d:%d", host, os.Getpid(), time.Now().UnixNano()%1_000_000)
}

func (c *Config) defaults() {
	c.ID = cmp.Or(c.ID, DefaultID())
	c.Concurrency = cmp.Or(max(c.Concurrency, 0), 8)
	c.Lease = cmp.Or(max(c.Lease, 0), 10*time.Second)
	poll := 500 * time.Millisecond
	if c.Wake != nil { // the poll is only a safety net
		poll = 30 * time.Second
	}
	c.Poll = cmp.Or(max(c.Poll, 0), poll)
	c.StopGrace = max(c.StopGrace, 0)
}

// Runner finds, leases and runs the jobs of one kind.
type Runner struct {
	db    DB
	cfg   Config
	log   *slog.Logger
	idKey string // the log attribute of a job's id, e.g. workflow_id
	kick  chan string

	mu sync.Mutex
	// running holds the jobs started here: nil while the lease is being
	// claimed or handed back, the job (ended when its lease is lost) while
	// it runs under its lease
	running map[string]*leasedJob
	wg      sync.WaitGroup
	// full is set when jobs may have been left waiting for a slot (every
	// slot was taken at a look, or kicks were dropped): the next job to
	// free its slot then signals freed, so the runner looks again at once
	// instead of at its next wake-up or poll
	full  bool
	freed chan struct{}
}

// New returns a runner taking leases through db.
func New(db DB, cfg Config, log *slog.Logger) *Runner {
	if db == nil || log == nil || cfg.Kind == "" || cfg.Find == nil || cfg.Run == nil {
		panic("jobs: nil dependency")
	}
	cfg.defaults()
	return &Runner{db: db, cfg: cfg, log: log, idKey: cfg.Kind + "_id", kick: make(chan string, 1024),
		running: map[string]*leasedJob{}, freed: make(chan struct{}, 1)}
}

// Kick hints that job id is due now, so it starts without waiting for
// Find; a hint that finds the queue full is dropped (Find lists the job).
func (r *Runner) Kick(id string) {
	select {
	case r.kick <- id:
	default:
	}
}

// Run finds and runs jobs until ctx ends. Then it starts none, gives
// running jobs StopGrace before ending their contexts, waits for them and
// hands back every lease of this owner and kind.
func (r *Runner) Run(ctx context.Context) {
	jobCtx, abandon := context.WithCancelCause(context.WithoutCancel(ctx))
	defer abandon(ErrStopped)
	// leases are renewed until the last job has returned (StopGrace)
	keepCtx, stopKeeping := context.WithCancel(context.WithoutCancel(ctx))
	keeping := make(chan struct{})
	go func() {
		defer close(keeping)
		r.keep(keepCtx)
	}()
	r.loop(ctx, jobCtx)
	grace := time.AfterFunc(r.cfg.StopGrace, func() { abandon(ErrStopped) })
	defer grace.Stop()
	r.wg.Wait()
	stopKeeping()
	<-keeping
	r.releaseAll()
}

// wakeEvery spaces the Find calls that wake-ups ask for.
const wakeEvery = 50 * time.Millisecond

// loop starts kicked and found jobs, with jobCtx, until ctx ends: at once,
// then when kicked, woken, every Poll, and when a lease of another owner
// expired unreleased (its process may have died).
//
// The last is watched (watch) when the first live lease of another owner
// expires and at least once a Lease: a lease another owner takes lasts a
// Lease at least, so the next watch finds it live and times its expiry.
// A dead owner's jobs are so taken over within about a lease of its last
// renewal whatever Poll is and whether or not anything wakes the runner;
// a lease handed back in time (deleted) costs no Find.
func (r *Runner) loop(ctx, jobCtx context.Context) {
	ticker := time.NewTicker(r.cfg.Poll)
	defer ticker.Stop()
	expiry := time.NewTimer(0) // the first look, at once
	defer expiry.Stop()
	var (
		wake      = r.cfg.Wake
		freed     = r.freed        // a slot freed after a look that filled them all
		deferred  <-chan time.Time // a wake-up waiting out wakeEvery
		lastWake  time.Time
		lastWatch *time.Time // the database's clock at the last watch
	)
	// watch times the next watch and reports whether a lease of another
	// owner expired since the last one; it is read before Find, so a
	// lease that expires between the two is listed by Find, one that
	// expires after is timed.
	watch := func() bool {
		w := r.watch(ctx, lastWatch)
		if w.at != nil {
			lastWatch = w.at
		}
		expiry.Reset(w.next)
		return w.expired
	}
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-r.kick:
			// a burst of kicks is claimed together: one statement for the
			// kicks waiting now, as many as there are free slots
			ids := []string{id}
		drain:
			for len(ids) < r.cfg.Concurrency {
				select {
				case more := <-r.kick:
					ids = append(ids, more)
				default:
					break drain
				}
			}
			r.startAll(ctx, jobCtx, ids)
			continue
		case <-ticker.C:
			watch()
			r.poll(ctx, jobCtx)
			continue
		case <-expiry.C:
			first := lastWatch == nil
			if expired := watch(); first || expired { // the first look, or a lease expired
				r.poll(ctx, jobCtx)
			}
			continue
		case <-wake:
		case <-freed:
		case <-deferred:
			wake, freed, deferred, lastWake = r.cfg.Wake, r.freed, nil, time.Now()
			r.poll(ctx, jobCtx)
			continue
		}
		// woken, or a slot freed: look, at most every wakeEvery (a burst
		// of wake-ups or of jobs ending is one look)
		if wait := wakeEvery - time.Since(lastWake); wait > 0 {
			wake, freed, deferred = nil, nil, time.After(wait)
			continue
		}
		lastWake = time.Now()
		r.poll(ctx, jobCtx)
	}
}

// leaseWatch is what one look at the other owners' leases found.
type leaseWatch struct {
	// next is when to watch again: a little after the first live lease of
	// another owner expires, a Lease from now at the latest.
	next time.Duration
	// expired: a lease of another owner expired, unreleased, since the
	// last watch.
	expired bool
	// at is the database's clock at the watch (nil when it failed).
	at *time.Time
}

// watch looks at the leases of other owners on jobs of this kind, since
// the last watch at since (nil: none before). A lease that expired before
// since is not reported again: one whose job is not due (a dead owner's,
// of a job that had ended) would otherwise be reported at every watch.
func (r *Runner) watch(ctx context.Context, since *time.Time) leaseWatch {
	var (
		at      time.Time
		secs    *float64
		expired bool
	)
	err := r.db.QueryRow(ctx, `SELECT now(), extract(epoch FROM min(expires_at) FILTER (WHERE expires_at > now()) - now())::float8,
			coalesce(bool_or(expires_at <= now() AND expires_at > $3), false)
		FROM job_leases WHERE kind = $1 AND owner <> $2`, r.cfg.Kind, r.cfg.ID, since).Scan(&at, &secs, &expired)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("reading lease expiries", "kind", r.cfg.Kind, "error", err)
		}
		return leaseWatch{next: r.cfg.Lease}
	}
	w := leaseWatch{next: r.cfg.Lease, expired: expired, at: &at}
	if secs != nil {
		w.next = min(max(time.Duration(*secs*float64(time.Second)), 0)+50*time.Millisecond, r.cfg.Lease)
	}
	return w
}

// poll starts the due jobs Find lists, as many as there are free slots.
func (r *Runner) poll(ctx, jobCtx context.Context) {
	r.mu.Lock()
	free := r.cfg.Concurrency - len(r.running)
	if free <= 0 {
		r.full = true
	}
	r.mu.Unlock()
	if free <= 0 {
		return
	}
	ids, err := r.cfg.Find(ctx, free)
	if len(ids) == free { // maybe more are due
		r.mu.Lock()
		r.full = true
		r.mu.Unlock()
	}
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("looking for due jobs", "kind", r.cfg.Kind, "error", err)
		}
		return
	}
	r.startAll(ctx, jobCtx, ids)
}

// startAll runs the jobs of ids in the background, each under its lease,
// except those that run here already, those past the free slots, and
// those whose lease another owner holds.
func (r *Runner) startAll(ctx, jobCtx context.Context, ids []string) {
	r.mu.Lock()
	var take []string
	for _, id := range ids {
		if _, busy := r.running[id]; busy || len(r.running) >= r.cfg.Concurrency {
			r.full = r.full || !busy
			continue
		}
		r.running[id] = nil
		take = append(take, id)
	}
	r.mu.Unlock()
	if len(take) == 0 {
		return
	}
	// The claims are made here, together, before the jobs' goroutines
	// start: a burst of kicks then starts jobs as fast as their leases are
	// taken (one statement for the burst) rather than all at once, and a
	// job whose lease another owner holds costs no goroutine.
	claimed, err := r.claim(ctx, take)
	if err != nil && ctx.Err() == nil {
		r.log.Warn("claiming leases", "kind", r.cfg.Kind, "jobs", len(take), "error", err)
	}
	for _, id := range take {
		if !claimed[id] {
			r.mu.Lock()
			delete(r.running, id)
			r.mu.Unlock()
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			next := r.runLeased(jobCtx, id)
			r.mu.Lock()
			delete(r.running, id)
			full := r.full
			r.full = false
			r.mu.Unlock()
			if full {
				select {
				case r.freed <- struct{}{}:
				default:
				}
			}
			if next != nil && ctx.Err() == nil {
				if pause := time.Until(*next); pause < kickWithin {
					time.AfterFunc(max(pause, 0), func() { r.Kick(id) })
				}
			}
		}()
	}
}

// leasedJob is a job running under its lease.
type leasedJob struct{ cancel context.CancelCauseFunc }

// runLeased runs job id, whose lease was claimed, while the runner renews
// the lease (keep), and hands the lease back when the job returns.
func (r *Runner) runLeased(jobCtx context.Context, id string) *time.Time {
	run, cancel := context.WithCancelCause(jobCtx)
	r.mu.Lock()
	r.running[id] = &leasedJob{cancel: cancel}
	r.mu.Unlock()
	next := r.cfg.Run(run, id)
	r.mu.Lock()
	r.running[id] = nil // its slot is freed once the lease is handed back
	r.mu.Unlock()
	cancel(context.Canceled)
	r.release(id)
	return next
}
