package webhooks_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/adapters/outbound"
	"svc/adapters/secrets"
	"svc/adapters/webhook"
	"svc/commands"
	"svc/commands/webhooks"
	"svc/domain/delivery"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
	"svc/test/pgtest"
)

var (
	db    *pgtest.DB
	store *eventstore.Store
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) {
	pgtest.Main(m, "webhooks", func(d *pgtest.DB) {
		db = d
		store = eventstore.New(d.Pool)
	})
}

// logger shows the dispatcher's log with -v when SVC_TEST_LOG is set.
func logger() *slog.Logger {
	if os.Getenv("SVC_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return quiet
}

// fresh empties the log, the read models, the consumer offsets and the
// leases, starts the webhook_deliveries and webhook_endpoints projection
// runners, and starts the dispatchers' consumer group and the endpoints'
// fan-out at the (empty) log's head, as a deployment whose dispatcher ran
// from its first day: the dispatchers of the test then deliver the events
// appended before they run.
func fresh(t *testing.T) {
	t.Helper()
	freshLog(t)
	for _, group := range []string{webhooks.DefaultConsumerGroup, webhooks.FanoutGroup} {
		head, started, err := eventstore.StartAtHead(context.Background(), db.Pool, group)
		if err != nil || !started || head != (event.Position{}) {
			t.Fatalf("StartAtHead of %s on the empty log: %+v, %v, %v", group, head, started, err)
		}
	}
}

// freshLog is fresh without starting the consumer group: the first
// dispatcher to run starts it at the head of the log.
func freshLog(t *testing.T) {
	t.Helper()
	db.Reset(t)
	r := projections.NewRunner(store, quiet, []projections.Projection{projections.WebhookDeliveries{}, projections.WebhookEndpoints{}},
		projections.WithPoll(20*time.Millisecond))
	if err := r.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// request is what the receiver saw of one delivery attempt.
type request struct {
	header http.Header
	body   []byte
}

// receiver is an HTTPS webhook endpoint whose answers a test chooses.
type receiver struct {
	srv    *httptest.Server
	caFile string

	mu  sync.Mutex
	got []request
	// answer chooses the status (and may set headers or block); n counts
	// this delivery's requests so far, 1 for the first.
	answer func(w http.ResponseWriter, r *http.Request, n int) int
}

// newReceiver starts a TLS receiver answering with answer (200 when nil).
func newReceiver(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	rc.caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw})
	if err := os.WriteFile(rc.caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, request{header: r.Header.Clone(), body: body})
	n := 0
	for _, g := range rc.got {
		if g.header.Get(webhook.HeaderDelivery) == r.Header.Get(webhook.HeaderDelivery) {
			n++
		}
	}
	answer := rc.answer
	rc.mu.Unlock()
	status := http.StatusOK
	if answer != nil {
		status = answer(w, r, n)
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "status "+strconv.Itoa(status))
}

// requests returns a copy of the requests so far.
func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.got...)
}

// url is the receiver's webhook URL.
func (rc *receiver) url() string { return rc.srv.URL + "/hooks/svc" }

// sender returns a webhook.Sender through the SSRF-guarded client, allowed
// to reach the loopback receiver and trusting its certificate.
func (rc *receiver) sender(t *testing.T) *webhook.Sender {
	t.Helper()
	c, err := outbound.NewClient(outbound.Options{AllowPrivate: true, ExtraCAFile: rc.caFile, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return webhook.NewSender(c)
}

func newBox(t *testing.T) *secrets.Box {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	b, err := secrets.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startDispatcher runs a dispatcher until the test ends; stop ends it
// earlier and waits for Run to return.
func startDispatcher(t *testing.T, rc *receiver, box *secrets.Box, cfg webhooks.Config) (stop func()) {
	t.Helper()
	if cfg.Poll == 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	d := webhooks.New(commands.NewRepositories(store), rc.sender(t), box, cfg, logger())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("Run did not return within 30 s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// flow is a workflow appended directly to the store.
type flow struct {
	t       *testing.T
	id, org string
	url     string
	secret  string
	version int64
}

var planSteps = []workflow.PlannedStep{
	{Step: 1, Name: "Stakeholder Map", Kind: workflow.KindContent, Tier: 1, Credits: 100},
	{Step: 2, Name: "Synthesis", Kind: workflow.KindSynthesis, Tier: 1, Credits: 50},
}

// newFlow plans and queues a workflow of a new org with delivery method
// (webhook to url, registered with a secret sealed by box, or polling).
func newFlow(t *testing.T, box *secrets.Box, method, url string) *flow {
	t.Helper()
	ctx := context.Background()
	f := &flow{t: t, id: workflow.NewID(), org: uuid.NewString(), url: url, version: -1}
	planned := workflow.Planned{WorkflowID: f.id, OrgID: f.org, WorkspaceID: uuid.NewString(), TaskType: "strategy",
		ValueClass: "strategic", Description: "Plan the launch", Title: "Launch plan", RigorLevel: "standard", TotalSteps: len(planSteps),
		Credits: 150, Execution: "standard", Plan: json.RawMessage(`{}`), Preferences: json.RawMessage(`{}`), ContextPersisted: true,
		Steps: planSteps}
	delivery := workflow.Delivery{Method: method}
	if method == "webhook" {
		delivery.WebhookURL = url
		delivery.WebhookID = workflow.WebhookStream(f.org, url)
		f.secret = webhook.NewSecret()
		reg := workflow.WebhookRegistered{OrgID: f.org, URL: url, SealedSecret: box.Seal([]byte(f.secret))}
		if _, err := store.Append(ctx, delivery.WebhookID, event.NewStream,
			event.New{Data: reg, Metadata: event.Metadata{OrgID: f.org}}); err != nil {
			t.Fatal(err)
		}
	}
	queued := workflow.Queued{WorkflowID: f.id, OrgID: f.org, Tier: "pro", Mode: "full", Delivery: delivery, Estimated: 150}
	f.append(
		event.New{Data: planned},
		event.New{Data: queued},
		event.New{Data: workflow.Started{Worker: "test"}},
	)
	return f
}

// append appends events to the workflow's stream, one append each.
func (f *flow) append(events ...event.New) {
	f.t.Helper()
	for _, e := range events {
		e.Metadata.OrgID = f.org
		if _, err := store.Append(context.Background(), workflow.Stream(f.id), f.version, e); err != nil {
			f.t.Fatal(err)
		}
		f.version++
	}
}

var deliverable = &workflow.Deliverable{Title: "Launch plan", Sections: []workflow.Section{{Heading: "Plan", Content: "Do it."}}}

// step1 completes the first step.
func (f *flow) step1() {
	f.append(event.New{Data: workflow.StepCompleted{Step: 1, Name: "Stakeholder Map",
		Kind: workflow.KindContent, Summary: "Mapped the stakeholders.", Credits: 100}})
}

// complete runs the rest of the workflow to a full completion.
func (f *flow) complete() {
	score := 85
	f.append(
		event.New{Data: workflow.StepCompleted{Step: 2, Name: "Synthesis",
			Kind: workflow.KindSynthesis, Summary: "Synthesised.", Deliverable: deliverable}},
		event.New{Data: workflow.ReviewStarted{}},
		event.New{Data: workflow.Reviewed{Score: &score, Summary: "Good."}},
		event.New{Data: workflow.Completed{Deliverable: deliverable, Fee: 50}},
	)
}

// waitRows waits until the read model has n deliveries of f, all settled
// (not pending), and returns them.
func waitRows(t *testing.T, f *flow, n int) []projections.DeliveryRow {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		rows, err := projections.Deliveries(context.Background(), db.Pool, f.org, f.id)
		if err != nil {
			t.Fatal(err)
		}
		settled := len(rows) == n
		for _, r := range rows {
			settled = settled && r.Status != projections.DeliveryPending
		}
		if settled {
			return rows
		}
		if time.Now().After(deadline) {
			t.Fatalf("workflow %s: %d deliveries, want %d settled: %+v", f.id, len(rows), n, rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logOf decodes a delivery's attempt log.
func logOf(t *testing.T, r projections.DeliveryRow) []delivery.Attempted {
	t.Helper()
	var out []delivery.Attempted
	if err := json.Unmarshal(r.Log, &out); err != nil {
		t.Fatalf("log of %s: %v (%s)", r.DeliveryID, err, r.Log)
	}
	return out
}

// deliveryStreams counts the delivery streams in the log.
func deliveryStreams(t *testing.T) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = $1`, delivery.EventDeliveryScheduled).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
