// Package worker is the process manager of workflow execution: it finds
// queued and running workflows (from the workflows read model, or a hint
// from execute in this process), takes a lease on each, and drives it one
// event at a time through its steps, the quality review and its terminal
// event. A lease that is not renewed expires, and another process takes
// the workflow over from its last recorded event; every append carries the
// stream's expected version, so no step is recorded, or charged, twice.
package worker

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"svc/adapters/llm"
	"svc/commands"
	"svc/commands/jobs"
	"svc/projections"
)

// Config tunes a worker.
type Config struct {
	// ID names this process in leases; default host:pid:random.
	ID string
	// Concurrency is how many workflows this process runs at once.
	Concurrency int
	// Lease is how long a lease lasts without renewal (renewed every
	// third of it); default jobs.Config's.
	Lease time.Duration
	// Poll is how often the read model is searched for work (default
	// 250 ms; with Wake, jobs.Config's).
	Poll time.Duration
	// Wake signals that the workflows read model moved (in any process):
	// the read model is searched then too (see jobs.Config.Wake).
	Wake <-chan struct{}
	// ProbeTimeout bounds the check of a plan's context connection.
	ProbeTimeout time.Duration
	// DisallowDirect makes direct runs fall back to standard execution
	// when they start (SVC_DIRECT_EXECUTION=false).
	DisallowDirect bool
}

func (c *Config) defaults() {
	if c.ID == "" {
		c.ID = jobs.DefaultID()
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.Poll <= 0 && c.Wake == nil { // with Wake, the jobs runner's default
		c.Poll = 250 * time.Millisecond
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = 5 * time.Second
	}
}

// Worker runs workflows.
type Worker struct {
	repos    *commands.Repositories
	llm      llm.Provider
	outbound *http.Client
	cfg      Config
	log      *slog.Logger
	jobs     *jobs.Runner
	charges  *charger // groups the step charges of an org's runs (charge.go)
}

// New returns a worker appending through repos, calling provider for steps
// and outbound (SSRF-guarded) for context connections.
func New(repos *commands.Repositories, provider llm.Provider, outbound *http.Client, cfg Config, log *slog.Logger) *Worker {
	if repos == nil || provider == nil || outbound == nil || log == nil {
		panic("nil dependency")
	}
	cfg.defaults()
	w := &Worker{repos: repos, llm: provider, outbound: outbound, cfg: cfg, log: log.With("worker", cfg.ID), charges: newCharger(repos)}
	w.jobs = jobs.New(repos.Store.Pool(), jobs.Config{Kind: jobs.KindWorkflow, ID: cfg.ID, Concurrency: cfg.Concurrency,
		Lease: cfg.Lease, Poll: cfg.Poll, Wake: cfg.Wake, Find: w.runnable, Run: w.job}, w.log)
	return w
}

// ID is the worker's lease owner name.
func (w *Worker) ID() string { return w.cfg.ID }

// Kick hints that workflow id was just queued, so it starts without
// waiting for the read model.
func (w *Worker) Kick(id string) { w.jobs.Kick(id) }

// Run finds and drives workflows until ctx ends, then stops every run at
// its next boundary and hands the leases back.
func (w *Worker) Run(ctx context.Context) error {
	w.jobs.Run(ctx)
	return nil
}

// runnable lists up to limit workflows to drive whose lease is free.
func (w *Worker) runnable(ctx context.Context, limit int) ([]string, error) {
	return projections.Runnable(ctx, w.repos.Store.Pool(), limit)
}

// job drives workflow id under its lease; a run is never due at a set
// time (the read model lists it while it is runnable).
func (w *Worker) job(ctx context.Context, id string) *time.Time {
	w.drive(ctx, id)
	return nil
}
