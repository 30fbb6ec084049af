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
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"svc/adapters/llm"
	"svc/commands"
	"svc/eventstore"
	"svc/projections"
)

// Config tunes a worker.
type Config struct {
	// ID names this process in leases; default host:pid.
	ID string
	// Concurrency is how many workflows this process runs at once.
	Concurrency int
	// Lease is how long a lease lasts without renewal (renewed every
	// third of it).
	Lease time.Duration
	// Poll is how often the read model is searched for work.
	Poll time.Duration
	// ProbeTimeout bounds the check of a plan's context connection.
	ProbeTimeout time.Duration
	// DisallowDirect makes direct runs fall back to standard execution
	// when they start (SVC_DIRECT_EXECUTION=false).
	DisallowDirect bool
}

func (c *Config) defaults() {
	if c.ID == "" {
		host, _ := os.Hostname()
		c.ID = fmt.Sprintf("%s:%d:%d", host, os.Getpid(), time.Now().UnixNano()%1_000_000)
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.Lease <= 0 {
		c.Lease = 30 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = 250 * time.Millisecond
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = 5 * time.Second
	}
}

// Worker runs workflows.
type Worker struct {
	store    *eventstore.Store
	repos    *commands.Repositories
	llm      llm.Provider
	outbound *http.Client
	cfg      Config
	log      *slog.Logger
	kick     chan string

	mu      sync.Mutex
	running map[string]bool
	wg      sync.WaitGroup
}

// New returns a worker appending through repos, calling provider for steps
// and outbound (SSRF-guarded) for context connections.
func New(repos *commands.Repositories, provider llm.Provider, outbound *http.Client, cfg Config, log *slog.Logger) *Worker {
	if repos == nil || provider == nil || outbound == nil || log == nil {
		panic("nil dependency")
	}
	cfg.defaults()
	return &Worker{store: repos.Store, repos: repos, llm: provider, outbound: outbound, cfg: cfg, log: log.With("worker", cfg.ID),
		kick: make(chan string, 1024), running: map[string]bool{}}
}

// ID is the worker's lease owner name.
func (w *Worker) ID() string { return w.cfg.ID }

// Kick hints that workflow id was just queued, so it starts without
// waiting for the read model.
func (w *Worker) Kick(id string) {
	select {
	case w.kick <- id:
	default: // the poll finds it
	}
}

// Run finds and drives workflows until ctx ends, then stops every run at
// its next boundary and hands the leases back.
func (w *Worker) Run(ctx context.Context) error {
	ticker := time.NewTicker(w.cfg.Poll)
	defer ticker.Stop()
	defer w.wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case id := <-w.kick:
			w.try(ctx, id)
		case <-ticker.C:
			free := w.free()
			if free == 0 {
				continue
			}
			ids, err := projections.Runnable(ctx, w.store.Pool(), free)
			if err != nil {
				if ctx.Err() == nil {
					w.log.Warn("looking for runnable workflows", "error", err)
				}
				continue
			}
			for _, id := range ids {
				w.try(ctx, id)
			}
		}
	}
}

func (w *Worker) free() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cfg.Concurrency - len(w.running)
}

// try claims id and drives it in the background, unless it runs here
// already, the worker is full, or another process holds its lease.
func (w *Worker) try(ctx context.Context, id string) {
	w.mu.Lock()
	if w.running[id] || len(w.running) >= w.cfg.Concurrency {
		w.mu.Unlock()
		return
	}
	w.running[id] = true
	w.mu.Unlock()
	done := func() {
		w.mu.Lock()
		delete(w.running, id)
		w.mu.Unlock()
	}
	ok, err := w.claim(ctx, id)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			w.log.Warn("claiming a workflow", "workflow_id", id, "error", err)
		}
		done()
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer done()
		w.drive(ctx, id)
	}()
}
