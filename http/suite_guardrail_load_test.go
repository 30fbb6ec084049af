package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/commands"
	"svc/domain/apikey"
	httpapi "svc/http"
	"svc/projections"
)

// allowAll is a limiter that never refuses: the load below is one
// organization's, far above its per-minute limit.
type allowAll struct{}

func (allowAll) Allow(context.Context, string, int, time.Duration) (httpapi.LimitDecision, error) {
	return httpapi.LimitDecision{Allowed: true, Limit: 1 << 30, Remaining: 1 << 30}, nil
}

func (allowAll) Ping(context.Context) error { return nil }

// TestSuiteGuardRailLoad measures POST /api/guardrail/check on one
// organization with 50 policies, at SVC_GUARDRAIL_LOAD_CONNS (32)
// connections for SVC_GUARDRAIL_LOAD_SECONDS (10), beside GET /api/health
// at the same concurrency in the same run, in SVC_GUARDRAIL_LOAD_ROUNDS (5)
// rounds taken in turn (docs/benchmarks.md). It runs
// only when SVC_GUARDRAIL_LOAD is set, and reports; it asserts no time.
//
//	SVC_GUARDRAIL_LOAD=1 go test ./http -run TestSuiteGuardRailLoad -count=1 -v
func TestSuiteGuardRailLoad(t *testing.T) {
	if os.Getenv("SVC_GUARDRAIL_LOAD") == "" {
		t.Skip("set SVC_GUARDRAIL_LOAD=1 to measure")
	}
	conns := envInt("SVC_GUARDRAIL_LOAD_CONNS", 32)
	secs := envInt("SVC_GUARDRAIL_LOAD_SECONDS", 10)
	f := servingFixture(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(context.Background(),
		commands.GrantCredits{OrgID: orgID, Amount: 100_000_000, Reason: "operator", Note: "load"}); err != nil {
		t.Fatal(err)
	}
	// 50 policies: most apply to the action's type and do not trigger, so
	// a check evaluates them all; one of ten actions is denied
	for i := range 50 {
		body := fmt.Sprintf(`{"name":"policy %d","priority":%d,"action_types":["purchase","http"],
			"rules":[{"operator":"gt","field":"cost_estimate","value":%d},
			{"operator":"or","rules":[{"operator":"starts_with","field":"target.url","value":"https://blocked-%d"},{"operator":"contains","field":"tags","value":"tag-%d"}]}]}`,
			i, i%7, 100+i, i, i)
		if code, out := rawCall(t, f, "POST", "/api/guardrail/policies", key, body); code != 201 {
			t.Fatalf("policy %d: %d %v", i, code, out)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2}}
	check := func(n int) *http.Request {
		tag := "ok"
		if n%10 == 0 {
			tag = "tag-7"
		}
		body := fmt.Sprintf(`{"agent_id":"agent-%d","proposed_action":{"type":"purchase","cost_estimate":%d,"target":{"url":"https://shop.example/%d"},"tags":["%s"]}}`,
			n%16, 150+n%50, n, tag)
		req, _ := http.NewRequest("POST", f.ts.URL+"/api/guardrail/check", bytes.NewReader([]byte(body)))
		req.Header.Set("x-api-key", key)
		req.Header.Set("content-type", "application/json")
		return req
	}
	health := func(int) *http.Request {
		req, _ := http.NewRequest("GET", f.ts.URL+"/api/health", nil)
		return req
	}
	run := func(name string, d time.Duration, mk func(int) *http.Request) float64 {
		var ok, bad, seq atomic.Int64
		stop := time.Now().Add(d)
		var wg sync.WaitGroup
		start := time.Now()
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					resp, err := client.Do(mk(int(seq.Add(1))))
					if err != nil {
						bad.Add(1)
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 200 {
						ok.Add(1)
					} else {
						bad.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		rate := float64(ok.Load()) / time.Since(start).Seconds()
		t.Logf("%s: %d ok, %d failed, %.0f/s at %d connections", name, ok.Load(), bad.Load(), rate, conns)
		return rate
	}
	run("warm-up", 2*time.Second, check)
	// rounds of health and checks in turn: the machine's load moves
	rounds := envInt("SVC_GUARDRAIL_LOAD_ROUNDS", 5)
	slice := time.Duration(secs) * time.Second / time.Duration(rounds)
	var checks, hrate float64
	for range rounds {
		hrate += run("GET /api/health", slice, health) / float64(rounds)
		checks += run("POST /api/guardrail/check", slice, check) / float64(rounds)
	}
	t.Logf("RESULT checks_per_second=%.0f health_per_second=%.0f ratio=%.3f connections=%d policies=50", checks, hrate, checks/hrate, conns)
}

// servingFixture is newFixture as svc serve runs it: the projections are
// woken by the appends, with no idle poll (serve's WithPoll(0)) and serve's
// linger (SVC_GUARDRAIL_LOAD_LINGER_US overrides it; 0 for none), and no
// rate limit.
func servingFixture(t *testing.T) *fixture {
	t.Helper()
	linger := projections.ServeLinger
	if v, err := strconv.Atoi(os.Getenv("SVC_GUARDRAIL_LOAD_LINGER_US")); err == nil && v >= 0 {
		linger = time.Duration(v) * time.Microsecond // 0: no linger
	}
	runner := projections.NewRunner(store, quiet, projections.All(), projections.WithPoll(0), projections.WithLinger(linger))
	srv := httpapi.New(httpapi.Config{BaseURL: "http://test", Version: "test"}, testDeps(t, store, runner, allowAll{}))
	f := &fixture{srv: srv, runner: runner}
	if err := runner.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = runner.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	f.start(t)
	return f
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
