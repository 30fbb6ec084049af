// Command endpointload measures webhook deliveries through svc serve's
// delivery engine at an offered rate: the time from a workflow event's
// commit to the first attempt's arrival at a local HTTPS receiver (p50,
// p99), and the deliveries that arrive per second. It starts the receiver
// (a self-signed certificate, trusted through SVC_OUTBOUND_CA_FILE) and
// svc serve on a fresh database, then offers step_completed events of
// many workflows at -rate a second for -seconds, twice, in the same run:
//
//   - baseline: workflows executed with delivery method webhook (spec A),
//     each event delivered to the workflow's own URL (the watermill
//     subscription schedules it);
//   - endpoints: workflows of a workspace with a webhook endpoint
//     subscribed to step_completed (spec B), each event delivered to the
//     endpoint (the fan-out schedules it).
//
// Every delivery's signature is checked; the result is one JSON line.
//
//	endpointload -svc bin/svc -db postgres://.../svc_bench_hooks -port 18091
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/domain/hook"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
)

// phase is the figures of one phase.
type phase struct {
	Offered          int     `json:"offered"`
	OfferedPerSecond float64 `json:"offered_per_second"`
	Delivered        int     `json:"delivered"`
	// DeliveredPerSecond counts arrivals from the first event's commit to
	// the last arrival.
	DeliveredPerSecond float64 `json:"delivered_per_second"`
	P50Ms              float64 `json:"p50_ms"`
	P99Ms              float64 `json:"p99_ms"`
	MaxMs              float64 `json:"max_ms"`
	BadSignatures      int     `json:"bad_signatures"`
	Duplicates         int     `json:"duplicates"`
	DrainSeconds       float64 `json:"drain_seconds"` // after the last event, until the last arrival
}

// result is what the tool prints.
type result struct {
	Rate      int   `json:"rate"`
	Seconds   int   `json:"seconds"`
	Workflows int   `json:"workflows"`
	Baseline  phase `json:"baseline_workflow_webhooks"`
	Endpoints phase `json:"workspace_endpoints"`
	// Ratio is the endpoints' p50 and p99 over the baseline's.
	RatioP50 float64 `json:"ratio_p50"`
	RatioP99 float64 `json:"ratio_p99"`
}

func main() {
	bin := flag.String("svc", "bin/svc", "the svc binary")
	dbURL := flag.String("db", "", "a DATABASE_URL for svc serve (created, not dropped)")
	port := flag.Int("port", 18091, "svc serve's port")
	rate := flag.Int("rate", 1000, "events (deliveries) offered per second")
	seconds := flag.Int("seconds", 10, "how long each phase offers them")
	workflows := flag.Int("workflows", 100, "workflows the events are spread over, per phase")
	appenders := flag.Int("appenders", 16, "goroutines appending the events")
	skipBaseline := flag.Bool("skip-baseline", false, "run the endpoints phase only (profiling)")
	logPath := flag.String("log", "", "where svc serve's log goes (default: a temporary file)")
	flag.Parse()
	if *dbURL == "" {
		fail(fmt.Errorf("-db is required"))
	}
	ctx := context.Background()
	rc := newReceiver()
	defer rc.srv.Close()
	dir, err := os.MkdirTemp("", "endpointload")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		fail(err)
	}
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	box, err := secrets.NewBox(key)
	if err != nil {
		fail(err)
	}
	if err := eventstore.EnsureDatabase(ctx, *dbURL); err != nil {
		fail(err)
	}
	serve := exec.Command(*bin, "serve")
	serve.Env = append(os.Environ(), "DATABASE_URL="+*dbURL, "SVC_ADDR=127.0.0.1:"+strconv.Itoa(*port), "SVC_LOG_LEVEL=warn",
		"SVC_ALLOW_PRIVATE_URLS=true", "SVC_OUTBOUND_CA_FILE="+ca, "SVC_SECRET_KEY="+hex.EncodeToString(key), "REDIS_URL=", "SVC_SMTP_URL=")
	if *logPath == "" {
		*logPath = filepath.Join(dir, "serve.log")
	}
	logFile, err := os.Create(*logPath)
	if err != nil {
		fail(err)
	}
	serve.Stderr, serve.Stdout = logFile, logFile
	if err := serve.Start(); err != nil {
		fail(err)
	}
	child = serve
	defer stopChild()
	if err := waitHealthy(*port); err != nil {
		tail, _ := os.ReadFile(logFile.Name())
		fail(fmt.Errorf("%w\n%s", err, tail))
	}
	pool, err := eventstore.Connect(ctx, *dbURL)
	if err != nil {
		fail(err)
	}
	defer pool.Close()
	store := eventstore.New(pool)
	store.AnnounceEachCommit()
	repos := commands.NewRepositories(store)
	o, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{Name: "endpoint bench"})
	if err != nil {
		fail(err)
	}
	res := result{Rate: *rate, Seconds: *seconds, Workflows: *workflows}
	steps := (*rate**seconds + *workflows - 1) / *workflows

	// baseline: each workflow's own webhook
	var flows []*flow
	if !*skipBaseline {
		for range *workflows {
			flows = append(flows, newFlow(ctx, store, box, o.OrgID, o.WorkspaceID, steps, rc.url("/own")))
		}
		res.Baseline = run(ctx, store, rc, flows, *rate, *seconds, *appenders, "")
	}

	// endpoints: a workspace endpoint subscribed to step_completed
	secret := webhook.NewSecret()
	epID := uuid.NewString()
	created, err := hook.Create(epID, o.OrgID, o.WorkspaceID, hook.Settings{URL: rc.url("/endpoint"), Events: []string{"step_completed"}, Active: true},
		box.Seal([]byte(secret)))
	if err != nil {
		fail(err)
	}
	if _, err := store.Append(ctx, hook.Stream(epID), event.NewStream, event.New{Data: created, Metadata: event.Metadata{OrgID: o.OrgID}}); err != nil {
		fail(err)
	}
	time.Sleep(time.Second) // the endpoints read model has it
	flows = flows[:0]
	for range *workflows {
		flows = append(flows, newFlow(ctx, store, box, o.OrgID, o.WorkspaceID, steps, ""))
	}
	res.Endpoints = run(ctx, store, rc, flows, *rate, *seconds, *appenders, secret)
	if res.Baseline.P50Ms > 0 && res.Baseline.P99Ms > 0 {
		res.RatioP50 = round(res.Endpoints.P50Ms / res.Baseline.P50Ms)
		res.RatioP99 = round(res.Endpoints.P99Ms / res.Baseline.P99Ms)
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
}

// flow is a workflow whose steps the bench appends.
type flow struct {
	id, org string
	secret  string // its own webhook's secret (baseline)
	mu      sync.Mutex
	version int64
	step    int
}

// newFlow plans, queues and starts a workflow of steps steps in workspace
// ws; with url, delivered to its own webhook there.
func newFlow(ctx context.Context, store *eventstore.Store, box *secrets.Box, org, ws string, steps int, url string) *flow {
	f := &flow{id: workflow.NewID(), org: org, version: -1}
	planned := make([]workflow.PlannedStep, steps)
	for i := range planned {
		planned[i] = workflow.PlannedStep{Step: i + 1, Name: "Step " + strconv.Itoa(i+1), Kind: workflow.KindContent, Tier: 1, Credits: 1}
	}
	d := workflow.Delivery{Method: "polling"}
	if url != "" {
		d = workflow.Delivery{Method: "webhook", WebhookURL: url, WebhookID: workflow.WebhookStream(org, url+"?"+f.id)}
		f.secret = webhook.NewSecret()
		reg := workflow.WebhookRegistered{OrgID: org, URL: url, SealedSecret: box.Seal([]byte(f.secret))}
		if _, err := store.Append(ctx, d.WebhookID, event.NewStream, event.New{Data: reg, Metadata: event.Metadata{OrgID: org}}); err != nil {
			fail(err)
		}
	}
	// the bench writes the run itself: a lease of its own keeps svc serve's
	// workers off it
	if _, err := store.Pool().Exec(ctx, `INSERT INTO job_leases (kind, job_id, owner, expires_at)
		VALUES ('workflow', $1, 'endpointload', now() + interval '1 hour')`, f.id); err != nil {
		fail(err)
	}
	m := event.Metadata{OrgID: org}
	_, err := store.Append(ctx, workflow.Stream(f.id), event.NewStream,
		event.New{Data: workflow.Planned{WorkflowID: f.id, OrgID: org, WorkspaceID: ws, TaskType: "strategy", ValueClass: "strategic",
			Description: "Bench", Title: "Bench", RigorLevel: "standard", TotalSteps: steps, Credits: steps, Execution: "standard",
			Plan: json.RawMessage(`{}`), Preferences: json.RawMessage(`{}`), ContextPersisted: true, Steps: planned}, Metadata: m},
		event.New{Data: workflow.Queued{WorkflowID: f.id, OrgID: org, Tier: "enterprise", Mode: "full", Delivery: d, Estimated: steps}, Metadata: m},
		event.New{Data: workflow.Started{Worker: "bench"}, Metadata: m})
	if err != nil {
		fail(err)
	}
	f.version = 2
	return f
}

// run offers rate step_completed events a second for seconds, spread over
// flows, and waits for their deliveries (secret: the endpoint's; "" for
// each flow's own).
func run(ctx context.Context, store *eventstore.Store, rc *receiver, flows []*flow, rate, seconds, appenders int, secret string) phase {
	total := rate * seconds
	rc.reset(total)
	secrets := map[string]string{}
	for _, f := range flows {
		secrets[f.id] = f.secret
		if secret != "" {
			secrets[f.id] = secret
		}
	}
	rc.setSecrets(secrets)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	for range appenders {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= total {
					return
				}
				if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
					time.Sleep(d)
				}
				f := flows[i%len(flows)]
				f.mu.Lock()
				f.step++
				data := workflow.StepCompleted{Step: f.step, Name: "Step " + strconv.Itoa(f.step), Kind: workflow.KindContent,
					Summary: "Done.", Credits: 1}
				version := f.version + 1
				if _, err := store.Append(ctx, workflow.Stream(f.id), f.version, event.New{Data: data, Metadata: event.Metadata{OrgID: f.org}}); err != nil {
					f.mu.Unlock()
					fail(err)
				}
				rc.appended(f.id, version, time.Now())
				f.version = version
				f.mu.Unlock()
			}
		})
	}
	wg.Wait()
	offeredFor := time.Since(start)
	lastAppend := time.Now()
	deadline := time.Now().Add(5 * time.Minute)
	for rc.count() < total && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return rc.figures(total, offeredFor, start, lastAppend)
}

// receiver is the HTTPS endpoint every delivery goes to.
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	secrets  map[string]string    // workflow id: the secret that signs its deliveries
	sent     map[string]time.Time // workflow id/version: when its event committed
	arrived  map[string]time.Time // the same key: the first arrival
	early    map[string]time.Time // arrivals before their append returned
	bad, dup int
	last     time.Time
}

func newReceiver() *receiver {
	rc := &receiver{}
	rc.reset(0)
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.srv.Config.ReadHeaderTimeout = 10 * time.Second
	rc.srv.StartTLS()
	return rc
}

func (rc *receiver) url(path string) string { return rc.srv.URL + path }

func (rc *receiver) reset(n int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.sent, rc.arrived, rc.early = make(map[string]time.Time, n), make(map[string]time.Time, n), map[string]time.Time{}
	rc.bad, rc.dup, rc.last = 0, 0, time.Time{}
}

func (rc *receiver) setSecrets(s map[string]string) {
	rc.mu.Lock()
	rc.secrets = s
	rc.mu.Unlock()
}

// appended records when the event version of workflow id committed.
func (rc *receiver) appended(id string, version int64, at time.Time) {
	k := id + "/" + strconv.FormatInt(version, 10)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.sent[k] = at
	if t, ok := rc.early[k]; ok { // the delivery came before the append returned
		delete(rc.early, k)
		rc.arrived[k] = t
	}
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(r.Body)
	var p struct {
		Sequence   int64  `json:"sequence"`
		WorkflowID string `json:"workflow_id"`
	}
	_ = json.Unmarshal(body, &p)
	k := p.WorkflowID + "/" + strconv.FormatInt(p.Sequence, 10)
	rc.mu.Lock()
	secret := rc.secrets[p.WorkflowID]
	switch _, seen := rc.arrived[k]; {
	case seen:
		rc.dup++
	case rc.sent[k].IsZero():
		rc.early[k] = now
	default:
		rc.arrived[k] = now
	}
	rc.last = now
	rc.mu.Unlock()
	if webhook.Verify(secret, r.Header.Get(webhook.HeaderSignature), body, 0, now) != nil {
		rc.mu.Lock()
		rc.bad++
		rc.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.arrived) + len(rc.early)
}

// figures are the phase's figures.
func (rc *receiver) figures(total int, offeredFor time.Duration, start, lastAppend time.Time) phase {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var lat []time.Duration
	for k, at := range rc.arrived {
		lat = append(lat, max(at.Sub(rc.sent[k]), 0))
	}
	p := phase{Offered: total, OfferedPerSecond: round(float64(total) / offeredFor.Seconds()), Delivered: len(rc.arrived),
		BadSignatures: rc.bad, Duplicates: rc.dup}
	if !rc.last.IsZero() {
		p.DeliveredPerSecond = round(float64(len(rc.arrived)) / rc.last.Sub(start).Seconds())
		p.DrainSeconds = round(max(rc.last.Sub(lastAppend).Seconds(), 0))
	}
	p.P50Ms, p.P99Ms, p.MaxMs = pct(lat, 50), pct(lat, 99), pct(lat, 100)
	return p
}

// waitHealthy waits up to 30 s for svc serve's health route.
func waitHealthy(port int) error {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/api/health"
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("svc serve did not answer %s within 30 s", url)
}

func pct(d []time.Duration, p int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return float64(s[min(len(s)-1, len(s)*p/100)].Microseconds()) / 1000
}

func round(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// child is the svc serve the tool started, stopped on every exit.
var child *exec.Cmd

func stopChild() {
	if child != nil {
		_ = child.Process.Signal(os.Interrupt)
		_ = child.Wait()
		child = nil
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "endpointload:", err)
	stopChild()
	os.Exit(1)
}
