package eventstore_test

// Append throughput benchmarks; docs/benchmarks.md explains them and
// test/bench/run.sh runs them beside pgbench. Run with
//
//	go test -run '^$' -bench . ./eventstore
//
// They use this package's pgtest database and empty its log (testDB.Reset)
// before each run. Nothing here asserts a duration.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
)

// BenchmarkAppend appends one event per Store.Append call from c goroutines,
// each on a stream of its own with its expected version tracked (no
// conflicts), over a pool of exactly c connections: the figure beside
// pgbench's single-row insert at the same concurrency.
func BenchmarkAppend(b *testing.B) {
	for _, c := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) { benchAppend(b, c, 1) })
	}
}

// BenchmarkAppendBatch appends 100 events per Store.Append call (one
// transaction each), from c goroutines on streams of their own.
func BenchmarkAppendBatch(b *testing.B) {
	for _, c := range []int{1, 4} {
		b.Run(fmt.Sprintf("size=100/c=%d", c), func(b *testing.B) { benchAppend(b, c, 100) })
	}
}

// benchPool opens a pool of exactly n connections on the test database and
// opens them all before returning, so no run pays for connecting.
func benchPool(b *testing.B, n int) *pgxpool.Pool {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(testDB.URL)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns, cfg.MinConns = int32(n), int32(n)
	ctx := context.Background()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	conns := make([]*pgxpool.Conn, n)
	for i := range conns {
		if conns[i], err = pool.Acquire(ctx); err != nil {
			b.Fatal(err)
		}
		if err := conns[i].Ping(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range conns {
		c.Release()
	}
	return pool
}

// benchAppend runs b.N Append calls of size events each, spread over c
// goroutines, and reports events/s and per-call latency percentiles.
func benchAppend(b *testing.B, c, size int) {
	testDB.Reset(b)
	store := eventstore.New(benchPool(b, c))
	ctx := context.Background()
	run := uuid.NewString()[:8]

	// Each writer appends credit charges to its own ledger-like stream, with
	// the metadata a request carries, marshalled on each call as commands do.
	type writer struct {
		stream    string
		version   int64
		events    []event.New
		latencies []time.Duration
	}
	writers := make([]*writer, c)
	for g := range writers {
		org := uuid.NewString()
		w := &writer{stream: fmt.Sprintf("bench-%s-%d", run, g), version: event.NewStream}
		for i := 0; i < size; i++ {
			w.events = append(w.events, event.New{
				Data: credit.Charged{OrgID: org, Amount: int64(1 + i%40), Reason: "workflow_step",
					WorkflowID: fmt.Sprintf("wr_%s_%d", run, i/8), Step: i % 8, KeyID: org, AgentID: "agent_1"},
				Metadata: event.Metadata{OrgID: org, Actor: "key:" + org, RequestID: "req_" + run},
			})
		}
		w.latencies = make([]time.Duration, 0, b.N/c+1)
		writers[g] = w
	}

	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for _, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				start := time.Now()
				_, err := store.Append(ctx, w.stream, w.version, w.events...)
				w.latencies = append(w.latencies, time.Since(start))
				if err != nil {
					b.Errorf("append to %s at version %d: %v", w.stream, w.version, err)
					next.Store(int64(b.N)) // stop every writer
					return
				}
				w.version += int64(size)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()

	var all []time.Duration
	for _, w := range writers {
		all = append(all, w.latencies...)
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
