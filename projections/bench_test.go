package projections_test

// Rebuild throughput benchmarks; docs/benchmarks.md explains them. Run with
//
//	go test -run '^$' -bench Rebuild ./projections                     # 100,000 events
//	SVC_BENCH_LARGE=1 go test -run '^$' -bench Rebuild -timeout 30m ./projections  # 1,000,000
//
// The log is synthetic credit ledgers (test/bench/ledger.sql), generated once
// per run into this package's pgtest database. Nothing here asserts a
// duration; after the rebuilds a few orgs are replayed against the log.

import (
	"context"
	"fmt"
	"os"
	"testing"

	"svc/projections"
	"svc/test/bench"
)

// BenchmarkRebuild times Runner.Rebuild with batches of 5,000 events over a
// log of ledger events: the billing projection alone, and every projection
// one after the other ("all": events/s is log events per second of the whole).
func BenchmarkRebuild(b *testing.B) {
	events, orgs := 100_000, 1_000
	if os.Getenv("SVC_BENCH_LARGE") == "1" {
		events, orgs = 1_000_000, 10_000
	}
	ctx := context.Background()
	db.Reset(b)
	if err := bench.GenerateLedger(ctx, db.Pool, orgs, events, 100_000); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "VACUUM (ANALYZE) events"); err != nil {
		b.Fatal(err)
	}
	runner := projections.NewRunner(store, quiet, projections.All(), projections.WithBatch(5000))
	if err := runner.Setup(ctx); err != nil {
		b.Fatal(err)
	}
	billing, _ := runner.Find("billing")

	rebuild := func(b *testing.B, ps ...projections.Projection) {
		for i := 0; i < b.N; i++ {
			for _, p := range ps {
				n, err := runner.Rebuild(ctx, p, nil)
				if err != nil {
					b.Fatal(err)
				}
				if n != int64(events) {
					b.Fatalf("rebuild of %s applied %d events, the log has %d", p.Name(), n, events)
				}
			}
		}
		b.ReportMetric(float64(b.N*events)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run(fmt.Sprintf("billing/events=%d", events), func(b *testing.B) { rebuild(b, billing) })
	b.Run(fmt.Sprintf("all/events=%d", events), func(b *testing.B) { rebuild(b, runner.Projections()...) })

	for _, o := range []int{0, orgs / 2, orgs - 1} {
		rep, err := projections.ReplayBilling(ctx, store, bench.OrgID(o))
		if err != nil {
			b.Fatal(err)
		}
		if rep.Events != events/orgs || len(rep.Differences) > 0 {
			b.Fatalf("replay of org %d: %d events (want %d), differences %v", o, rep.Events, events/orgs, rep.Differences)
		}
	}
}
