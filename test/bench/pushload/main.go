// Command pushload measures push against a running svc serve (make bench,
// step "push"):
//
//  1. idle: the statements the instance sends to PostgreSQL per second
//     while nothing happens (its svc_db_statements_total metric, and the
//     database's transaction count as a cross-check);
//  2. latency: organizations created at -rate events per second by
//     another process (a store with Push, as another instance would be),
//     each timed from its append's commit until the organizations read
//     model holds it (the projection's checkpoint covers it, read when the
//     serving instance announces that projection moved).
//
// It prints one JSON object.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/domain/org"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
)

type result struct {
	IdleSeconds            float64 `json:"idle_seconds"`
	IdleStatementsPerSec   float64 `json:"idle_statements_per_second"` // -1: the instance has no svc_db_statements_total
	IdleTransactionsPerSec float64 `json:"idle_db_transactions_per_second"`
	Rate                   int     `json:"rate"`
	Appended               int     `json:"appended"`
	AchievedRate           float64 `json:"achieved_rate"`
	VisibleP50Ms           float64 `json:"visible_p50_ms"`
	VisibleP90Ms           float64 `json:"visible_p90_ms"`
	VisibleP99Ms           float64 `json:"visible_p99_ms"`
	VisibleMaxMs           float64 `json:"visible_max_ms"`
	NotVisible             int     `json:"not_visible"`
}

func main() {
	dbURL := flag.String("db", "", "DATABASE_URL of the svc serve under test")
	metricsURL := flag.String("metrics", "http://127.0.0.1:18090/metrics", "its /metrics")
	idle := flag.Duration("idle", 30*time.Second, "idle measurement (0: skip)")
	rate := flag.Int("rate", 1000, "appends per second")
	dur := flag.Duration("duration", 10*time.Second, "append phase")
	flag.Parse()
	if *dbURL == "" {
		fmt.Fprintln(os.Stderr, "pushload: -db is required")
		os.Exit(2)
	}
	ctx := context.Background()
	var res result
	if *idle > 0 {
		if err := measureIdle(ctx, *dbURL, *metricsURL, *idle, &res); err != nil {
			fail(err)
		}
	}
	if err := measureLatency(ctx, *dbURL, *rate, *dur, &res); err != nil {
		fail(err)
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pushload:", err)
	os.Exit(1)
}

// measureIdle reads the instance's statement counter and the database's
// transaction count before and after d of doing nothing.
func measureIdle(ctx context.Context, dbURL, metricsURL string, d time.Duration, res *result) error {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return err
	}
	dbName := cfg.ConnConfig.Database
	cfg.ConnConfig.Database = "postgres" // our own reads do not count
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	// counts reads the instance's statements and the database's
	// transactions (which reach pg_stat_database within about a second)
	counts := func() (stmts, xacts float64, err error) {
		if stmts, err = statementsOf(metricsURL); err != nil {
			return 0, 0, err
		}
		err = pool.QueryRow(ctx, `SELECT (xact_commit + xact_rollback)::float8 FROM pg_stat_database WHERE datname = $1`, dbName).Scan(&xacts)
		return stmts, xacts, err
	}
	s0, x0, err := counts()
	if err != nil {
		return err
	}
	began := time.Now()
	time.Sleep(d)
	s1, x1, err := counts()
	if err != nil {
		return err
	}
	secs := time.Since(began).Seconds()
	res.IdleSeconds = secs
	if res.IdleStatementsPerSec = (s1 - s0) / secs; math.IsNaN(res.IdleStatementsPerSec) {
		res.IdleStatementsPerSec = -1 // unknown
	}
	res.IdleTransactionsPerSec = (x1 - x0) / secs
	return nil
}

func statementsOf(url string) (float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "svc_db_statements_total "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return math.NaN(), nil // an svc without the metric: reported as null
}

// measureLatency appends organizations at rate per second for d and times
// each until the read model holds it.
func measureLatency(ctx context.Context, dbURL string, rate int, d time.Duration, res *result) error {
	pool, err := eventstore.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := eventstore.New(pool)
	pctx, stopPush := context.WithCancel(ctx)
	defer stopPush()
	go func() { _ = store.Push(pctx, eventstore.PushOptions{}) }()
	moved, stop := store.SubscribeTypes(projections.Moved(projections.Organizations{}.Name()))
	defer stop()
	time.Sleep(500 * time.Millisecond) // the listener connects

	type sample struct {
		pos     event.Position
		at      time.Time
		visible time.Duration
	}
	var (
		mu      sync.Mutex
		pending []*sample
		done    []*sample
	)
	// the watcher: at each announcement, the checkpoint tells which
	// appended events the read model holds
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-watchCtx.Done():
				return
			case <-moved:
			case <-time.After(50 * time.Millisecond):
			}
			cp, err := projections.ActiveCheckpoint(ctx, pool, projections.Organizations{}.Name())
			if err != nil {
				continue
			}
			now := time.Now()
			mu.Lock()
			kept := pending[:0]
			for _, s := range pending {
				if cp.Position.Reached(s.pos) {
					s.visible = now.Sub(s.at)
					done = append(done, s)
				} else {
					kept = append(kept, s)
				}
			}
			pending = kept
			mu.Unlock()
		}
	}()

	interval := time.Second / time.Duration(rate)
	began := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	n := 0
	for next := began; time.Since(began) < d; next = next.Add(interval) {
		time.Sleep(time.Until(next))
		sem <- struct{}{}
		wg.Add(1)
		n++
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			id := uuid.NewString()
			pos, err := store.Append(ctx, org.Stream(id), event.NewStream, event.New{
				Data:     org.Created{OrgID: id, Name: "push bench", Tier: org.Free, WorkspaceID: uuid.NewString()},
				Metadata: event.Metadata{OrgID: id, Actor: "bench"},
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "pushload: append:", err)
				return
			}
			mu.Lock()
			pending = append(pending, &sample{pos: pos, at: time.Now()})
			mu.Unlock()
		}()
	}
	wg.Wait()
	appendSecs := time.Since(began).Seconds()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		left := len(pending)
		mu.Unlock()
		if left == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopWatch()
	<-watched

	mu.Lock()
	defer mu.Unlock()
	lat := make([]float64, 0, len(done))
	for _, s := range done {
		lat = append(lat, float64(s.visible.Microseconds())/1000)
	}
	slices.Sort(lat)
	res.Rate = rate
	res.Appended = n
	res.AchievedRate = float64(n) / appendSecs
	res.NotVisible = len(pending)
	if len(lat) > 0 {
		res.VisibleP50Ms = lat[len(lat)/2]
		res.VisibleP90Ms = lat[min(len(lat)-1, len(lat)*90/100)]
		res.VisibleP99Ms = lat[min(len(lat)-1, len(lat)*99/100)]
		res.VisibleMaxMs = lat[len(lat)-1]
	}
	return nil
}
