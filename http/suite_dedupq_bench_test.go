package httpapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm/offline"
	"svc/commands"
	"svc/commands/suite"
	"svc/domain/apikey"
	"svc/domain/dedupq"
	"svc/domain/embedding"
	domainsuite "svc/domain/suite"
	"svc/eventstore"
	"svc/eventstore/event"
	httpapi "svc/http"
	"svc/projections"
)

// dedupqNoLimit is a limiter that never refuses (the benchmark's one org sends
// thousands of requests a minute).
type dedupqNoLimit struct{}

func (dedupqNoLimit) Allow(context.Context, string, int, time.Duration) (httpapi.LimitDecision, error) {
	return httpapi.LimitDecision{Allowed: true, Limit: 1 << 30, Remaining: 1 << 30}, nil
}
func (dedupqNoLimit) Ping(context.Context) error { return nil }

// TestSuiteDedupQBench measures DedupQ's latencies through the whole HTTP
// stack of one server (key, limiter, meter, event store, projections),
// sequentially, beside GET /api/health in the same run: an exact check
// (answered by db_exact: the test server has no Redis) and a semantic
// check over SVC_BENCH_DEDUPQ_RESULTS (100,000) results of one
// organization, SVC_BENCH_DEDUPQ_SAMPLES (2,000) of each. It only
// reports (docs/benchmarks.md; test/bench/run.sh step 9); it runs when
// SVC_BENCH_DEDUPQ=1:
//
//	SVC_BENCH_DEDUPQ=1 go test ./http -run TestSuiteDedupQBench -v -count=1 -timeout 20m
func TestSuiteDedupQBench(t *testing.T) {
	if os.Getenv("SVC_BENCH_DEDUPQ") == "" {
		t.Skip("a measurement: set SVC_BENCH_DEDUPQ=1")
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_DEDUPQ_RESULTS")); err == nil && v > 0 {
		n = v
	}
	samples := 2000
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_DEDUPQ_SAMPLES")); err == nil && v > 0 {
		samples = v
	}
	f := newPolledFixture(t, dedupqNoLimit{}, nil, 0) // the runner as serve runs it: no idle poll
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	ctx := context.Background()
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(ctx,
		commands.GrantCredits{OrgID: orgID, Amount: 1_000_000, Reason: "bench"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	seedDedupQ(t, orgID, n)
	t.Logf("seeded %d results in %s", n, time.Since(start).Round(time.Millisecond))

	post := func(path string, body any) {
		code, out := f.call(t, "POST", path, key, body)
		if code != 200 {
			t.Fatalf("%s: %d %v", path, code, out)
		}
	}
	// 50 real results (paraphrases of them are the semantic hits)
	for i := range 50 {
		post("/api/dedupq/complete", map[string]any{"task_id": fmt.Sprintf("real-%d", i), "content": realTask(i), "result": "ok", "actual_cost": 0.1})
	}
	client := &http.Client{}
	timed := func(method, path, body string) time.Duration {
		req, _ := http.NewRequest(method, f.ts.URL+path, strings.NewReader(body))
		if method == "POST" {
			req.Header.Set("x-api-key", key)
			req.Header.Set("Content-Type", "application/json")
		}
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64<<10)
		for {
			if _, err := resp.Body.Read(buf); err != nil {
				break
			}
		}
		resp.Body.Close()
		d := time.Since(t0)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
		}
		return d
	}
	// warm-up: the semantic index loads the organization's results once
	// (in the background: checks meanwhile answer without the semantic
	// tier, fallback_behavior saying so)
	t0 := time.Now()
	for i := 0; ; i++ {
		code, out := f.call(t, "POST", "/api/dedupq/check", key, map[string]any{"content": fmt.Sprintf("warm up the semantic index %d", i)})
		if code != 200 {
			t.Fatalf("warm-up: %d %v", code, out)
		}
		if out["fallback_behavior"] == "none" {
			break
		}
		if time.Since(t0) > 10*time.Minute {
			t.Fatalf("the index did not load: %v", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("index of %d results loaded in %s", n+50, time.Since(t0).Round(time.Millisecond))

	// the floor every metered operation stands on: a charge of 1 credit in
	// its own transaction, then the read-your-writes wait (no HTTP)
	repos := commands.NewRepositories(store)
	q := projections.NewQueries(store, repos.Workflows, f.runner, quiet)
	meter := suite.New(repos, suite.Ports{LLM: offline.New(), Queries: q, Consistency: q, Log: quiet}).Meter
	caller := suite.Caller{OrgID: orgID}
	charge := func() time.Duration {
		t0 := time.Now()
		wctx, receipt := event.WithReceipt(ctx)
		if _, err := meter.Run(wctx, caller, domainsuite.DedupQCheck, func(*eventstore.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		q.WaitFor(ctx, receipt)
		return time.Since(t0)
	}

	exact := `{"content":"` + realTask(0) + `"}`
	var health, charges, exactD, semantic []time.Duration
	for i := range samples {
		health = append(health, timed("GET", "/api/health", ""))
		charges = append(charges, charge())
		exactD = append(exactD, timed("POST", "/api/dedupq/check", exact))
		var body string
		if i%2 == 0 { // a paraphrase of a real result: a vector hit
			body = `{"content":"Please ` + strings.ToLower(realTask(i % 50)[:1]) + realTask(i % 50)[1:] + `."}`
		} else { // new content: a full search, then a miss
			body = `{"content":"` + syntheticTask(rand.New(rand.NewPCG(uint64(i), 99)), n+i) + `"}`
		}
		semantic = append(semantic, timed("POST", "/api/dedupq/check", body))
	}
	// "metric <name> <p50 ms> <p99 ms>" lines are what test/bench/run.sh reads
	report := func(key, name string, d []time.Duration) {
		slices.Sort(d)
		t.Logf("%-40s p50 %7.3f ms  p99 %7.3f ms  (%d requests)", name, ms(d[len(d)/2]), ms(d[len(d)*99/100]), len(d))
		fmt.Printf("metric %s %.3f %.3f\n", key, ms(d[len(d)/2]), ms(d[len(d)*99/100]))
	}
	report("health", "GET /api/health", health)
	report("charge", "a charge and its wait (no HTTP)", charges)
	report("exact", "POST /api/dedupq/check exact (db_exact)", exactD)
	report("semantic", fmt.Sprintf("POST /api/dedupq/check semantic (%d)", n+50), semantic)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// realTask is the i-th real task of the benchmark.
func realTask(i int) string {
	return fmt.Sprintf("Summarize the customer interviews of project %s for the %s team", word(i, projectWords), word(i/7, teamWords))
}

var (
	verbs        = strings.Fields("write draft summarize analyze translate review compare list extract classify plan audit fix generate explain")
	objects      = strings.Fields("report memo email post plan guide contract dashboard query script test invoice survey roadmap proposal")
	topics       = strings.Fields("pricing churn onboarding hiring security latency billing marketing retention support compliance growth")
	projectWords = strings.Fields("Apollo Zephyr Orion Atlas Nimbus Vega Lyra Draco Hydra Pegasus")
	teamWords    = strings.Fields("Berlin Lisbon Paris Austin Tokyo Lagos Oslo")
)

func word(i int, ws []string) string { return ws[i%len(ws)] }

// syntheticTask is a task description made of the word lists and i.
func syntheticTask(r *rand.Rand, i int) string {
	return fmt.Sprintf("%s the %s %s %s for client %d in region %d", verbs[r.IntN(len(verbs))], topics[r.IntN(len(topics))],
		topics[r.IntN(len(topics))], objects[r.IntN(len(objects))], i, r.IntN(40))
}

// seedDedupQ writes n results of orgID straight into the read model (as
// the projection would, without their streams: they are search load).
func seedDedupQ(t *testing.T, orgID string, n int) {
	t.Helper()
	ctx := context.Background()
	var l embedding.Local
	r := rand.New(rand.NewPCG(1, 2))
	now := time.Now()
	const batch = 2000
	for from := 0; from < n; from += batch {
		var orgs, hashes, tasks, guards []string
		var vecs, sketches [][]byte
		var scales []float32
		var pos []int64
		for i := from; i < min(n, from+batch); i++ {
			text := syntheticTask(r, i)
			q, s := dedupq.Quantize(dedupq.Unit(l.Vector(dedupq.EmbedText(text, l.Name()))))
			sketches = append(sketches, dedupq.SketchOf(dedupq.Dequantize(q, s)).Bytes())
			orgs, hashes, tasks = append(orgs, orgID), append(hashes, dedupq.Hash(text)), append(tasks, "seed-"+strconv.Itoa(i))
			guards, vecs, scales, pos = append(guards, dedupq.Sign(text).Encode()), append(vecs, q), append(scales, s), append(pos, int64(i+1))
		}
		if _, err := store.Pool().Exec(ctx, `INSERT INTO dedupq_results (org_id, content_hash, task_id, result_type, actual_cost,
			cached_at, expires_at, embedder, vector, scale, sketch, guard, tx, pos)
			SELECT o, h, tk, 'json', 0.1, $5, $6, $7, v, s, sk, g, 0, p
			FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $8::bytea[], $9::real[], $10::bigint[], $11::bytea[])
				AS x(o, h, tk, g, v, s, p, sk)
			ON CONFLICT DO NOTHING`,
			orgs, hashes, tasks, guards, now, now.Add(24*time.Hour), l.Name(), vecs, scales, pos, sketches); err != nil {
			t.Fatal(err)
		}
	}
}
