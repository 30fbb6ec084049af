package erasure_test

// The time to erase an organization with 100,000 events (docs/benchmarks.md):
//
//	go test -run '^$' -bench Erase -benchtime 1x -timeout 30m ./commands/erasure
//	SVC_BENCH_ERASE_ORGS=20 go test ...   # the same organization among 19 others of 100,000 events each
//
// The log is synthetic credit ledgers (test/bench/ledger.sql): organization 0
// and each other one get 100,000 events. Every read model is built from it
// first (a rebuild of every projection); the benchmark then times one
// erasure of organization 0, from its confirmation to its record, and
// checks that none of its events or rows is left.

import (
	"context"
	"crypto/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"svc/adapters/secrets"
	"svc/commands"
	"svc/commands/erasure"
	"svc/projections"
	"svc/test/bench"
)

func BenchmarkErase(b *testing.B) {
	const perOrg = 100_000
	orgs := 5
	if n, err := strconv.Atoi(os.Getenv("SVC_BENCH_ERASE_ORGS")); err == nil && n > 0 {
		orgs = n
	}
	ctx := context.Background()
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	box, err := secrets.NewBox(key)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		b.StopTimer()
		db.Reset(b)
		if err := bench.GenerateLedger(ctx, db.Pool, orgs, orgs*perOrg, 100_000); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Pool.Exec(ctx, "VACUUM (ANALYZE) events"); err != nil {
			b.Fatal(err)
		}
		runner := projections.NewRunner(store, quiet, projections.All(), projections.WithBatch(5000))
		if err := runner.Setup(ctx); err != nil {
			b.Fatal(err)
		}
		built := time.Now()
		for _, p := range runner.Projections() {
			if _, err := runner.Rebuild(ctx, p, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%d events of %d organizations, every read model built in %s", orgs*perOrg, orgs, time.Since(built).Round(time.Millisecond))
		live, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { _ = runner.Run(live); close(done) }()
		org := bench.OrgID(0)
		repos := commands.NewRepositories(store)
		req, err := commands.NewRequestDeletionHandler(repos, box, 0).Handle(ctx, commands.RequestDeletion{OrgID: org, By: "operator"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := commands.NewConfirmDeletionHandler(repos, nil).Handle(ctx, commands.ConfirmDeletion{OrgID: org,
			RequestID: req.RequestID, Token: req.Token, By: "operator"}); err != nil {
			b.Fatal(err)
		}
		er := erasure.New(repos, erasure.Config{JobWait: time.Millisecond}, quiet)
		b.StartTimer()
		start := time.Now()
		if step, err := er.Erase(ctx, req.RequestID); err != nil {
			b.Fatalf("%s: %v", step, err)
		}
		took := time.Since(start)
		b.StopTimer()
		b.ReportMetric(took.Seconds(), "s/erasure")
		b.ReportMetric(perOrg/took.Seconds(), "events/s")
		var left, rows int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE org_id = $1`, org).Scan(&left); err != nil || left != 0 {
			b.Fatalf("%d events of the organization left (%v)", left, err)
		}
		if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM usage_charges WHERE org_id = $1) + (SELECT count(*) FROM balances WHERE org_id = $1)`, org).Scan(&rows); err != nil || rows != 0 {
			b.Fatalf("%d read-model rows of the organization left (%v)", rows, err)
		}
		// the deletion log's steps, as the record has them
		rec, err := repos.Store.Load(ctx, "erasure-"+req.RequestID)
		if err != nil || len(rec) != 1 {
			b.Fatalf("record: %v %v", rec, err)
		}
		b.Logf("erased in %s: %s", took.Round(time.Millisecond), rec[0].Data)
		stop()
		<-done
	}
}
