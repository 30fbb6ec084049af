package worker_test

// Integration tests of the worker against the real PostgreSQL: this file
// holds TestMain (the package database, the projections runner the worker
// finds work through) and the fixtures and checks the scenarios share.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/adapters/llm/chain"
	"svc/adapters/llm/openai"
	"svc/adapters/outbound"
	"svc/commands"
	"svc/commands/worker"
	"svc/domain/catalog"
	"svc/domain/credit"
	"svc/domain/planning"
	"svc/domain/workflow"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
	"svc/test/fakellm"
	"svc/test/pgtest"
)

var (
	testDB    *pgtest.DB
	testStore *eventstore.Store
	// testLog discards unless WORKER_TEST_LOG is set.
	testLog *slog.Logger
)

func TestMain(m *testing.M) {
	testLog = slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("WORKER_TEST_LOG") != "" {
		testLog = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	d, err := pgtest.New("worker")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDB, testStore = d, eventstore.New(d.Pool)

	// the worker finds work through the workflows read model
	ctx, cancel := context.WithCancel(context.Background())
	runner := projections.NewRunner(testStore, testLog, projections.All(), projections.WithPoll(20*time.Millisecond))
	if err := runner.Setup(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "projections setup:", err)
		d.Close()
		os.Exit(1)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = runner.Run(ctx)
	}()

	code := m.Run()
	cancel()
	<-done
	d.Close()
	os.Exit(code)
}

// --- organizations and credits ---

type testOrg struct {
	ID, WorkspaceID, KeyID string
}

// newOrg signs an organization up (2,500 credits).
func newOrg(t *testing.T) testOrg {
	t.Helper()
	res, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(testStore)).Handle(context.Background(), commands.CreateOrganization{Name: t.Name()})
	if err != nil {
		t.Fatalf("create organization: %v", err)
	}
	return testOrg{ID: res.OrgID, WorkspaceID: res.WorkspaceID, KeyID: res.KeyID}
}

// newPayingOrg is an organization whose free first workflow is already
// used, so the next one is charged.
func newPayingOrg(t *testing.T) testOrg {
	t.Helper()
	o := newOrg(t)
	if _, err := testStore.Append(context.Background(), workflow.FirstRunStream(o.ID), event.NewStream,
		event.New{Data: workflow.FirstRunClaimed{WorkflowID: workflow.NewID()}, Metadata: event.Metadata{OrgID: o.ID, Actor: "system"}}); err != nil {
		t.Fatalf("claim the free first run: %v", err)
	}
	return o
}

func grant(t *testing.T, orgID string, amount int64) {
	t.Helper()
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(testStore)).Handle(context.Background(), commands.GrantCredits{OrgID: orgID, Amount: amount, Reason: credit.ReasonOperator, Note: "test"}); err != nil {
		t.Fatalf("grant: %v", err)
	}
}

func spend(t *testing.T, orgID string, amount int64) {
	t.Helper()
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(testStore)).Handle(context.Background(), commands.ChargeCredits{Charge: credit.Charged{OrgID: orgID, Amount: amount, Reason: "test_spend"}}); err != nil {
		t.Fatalf("spend %d: %v", amount, err)
	}
}

func balance(t *testing.T, orgID string) int64 {
	t.Helper()
	l, err := credit.Load(orgID, load(t, credit.Stream(orgID)))
	if err != nil {
		t.Fatal(err)
	}
	return l.Balance()
}

// --- plans and execute ---

var descriptions atomic.Int64

// planOpts tunes plan.
type planOpts struct {
	rigor       string
	connections []planning.Connection
}

// plan prepares a fresh plan of taskType for o (not appended: execute
// appends it).
func plan(t *testing.T, o testOrg, taskType string, opts planOpts) workflow.Planned {
	t.Helper()
	if opts.rigor == "" {
		opts.rigor = "quick"
	}
	// every description differs, so the duplicate-task window never refuses
	desc := fmt.Sprintf("Prepare a thorough %s for Acme, a payroll software company selling to mid-sized European firms; reference run %d.",
		taskType, descriptions.Add(1))
	h := commands.NewPlanWorkflowHandler(commands.NewRepositories(testStore), planning.NewPlanner(catalog.Default()))
	planned, err := planStored(t, h, commands.PlanWorkflow{OrgID: o.ID, WorkspaceID: o.WorkspaceID, KeyID: o.KeyID,
		Request: planning.Request{TaskType: taskType, Description: desc, Preferences: planning.Preferences{RigorLevel: opts.rigor},
			Connections: opts.connections, SingleIntent: true}})
	if err != nil {
		t.Fatalf("plan %s: %v", taskType, err)
	}
	if len(planned) != 1 || planned[0].TaskType != taskType {
		t.Fatalf("plan %s: %d plans, first %+v", taskType, len(planned), planned)
	}
	return planned[0]
}

type nopSealer struct{}

func (nopSealer) Seal(p []byte) string { return "sealed" }

// execute queues p (tier enterprise: no concurrent limit) and returns it.
func execute(t *testing.T, o testOrg, p workflow.Planned) workflow.Planned {
	t.Helper()
	h := commands.NewExecuteWorkflowHandler(commands.NewRepositories(testStore), commands.NewPlanWorkflowHandler(commands.NewRepositories(testStore), planning.NewPlanner(catalog.Default())), nopSealer{}, func() string { return "secret" })
	if _, err := h.Handle(context.Background(), commands.ExecuteWorkflow{OrgID: o.ID, KeyID: o.KeyID, Tier: "enterprise",
		WorkflowID: p.WorkflowID, Delivery: workflow.Delivery{Method: "polling"}}); err != nil {
		t.Fatalf("execute: %v", err)
	}
	return p
}

// queue plans and executes one workflow of taskType.
func queue(t *testing.T, o testOrg, taskType string, opts planOpts) workflow.Planned {
	t.Helper()
	return execute(t, o, plan(t, o, taskType, opts))
}

// queueUnreserved queues one workflow of taskType as it was queued before
// execute reserved the estimate: its reservation is settled at once, so
// the run holds nothing and its charges take from the balance.
func queueUnreserved(t *testing.T, o testOrg, taskType string, opts planOpts) workflow.Planned {
	t.Helper()
	p := queue(t, o, taskType, opts)
	l, err := credit.Load(o.ID, load(t, credit.Stream(o.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if l.Held(p.WorkflowID) != int64(p.Credits) {
		t.Fatalf("execute reserved %d, want the estimate %d", l.Held(p.WorkflowID), p.Credits)
	}
	if _, err := testStore.Append(context.Background(), credit.Stream(o.ID), l.Version(), event.New{
		Data:     credit.Settled{OrgID: o.ID, WorkflowID: p.WorkflowID, Released: l.Held(p.WorkflowID), Reason: "test: queued before reservations"},
		Metadata: event.Metadata{OrgID: o.ID, Actor: "system"}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// stepNamed is the planned step called name.
func stepNamed(t *testing.T, p workflow.Planned, name string) workflow.PlannedStep {
	t.Helper()
	for _, s := range p.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("plan %s has no step %q: %+v", p.TaskType, name, p.Steps)
	return workflow.PlannedStep{}
}

func stepOfKind(t *testing.T, p workflow.Planned, kind string) workflow.PlannedStep {
	t.Helper()
	for _, s := range p.Steps {
		if s.Kind == kind {
			return s
		}
	}
	t.Fatalf("plan %s has no %s step", p.TaskType, kind)
	return workflow.PlannedStep{}
}

// feeOf is the plan's orchestration fee (its Synthesis step's estimate).
func feeOf(t *testing.T, p workflow.Planned) int {
	return stepOfKind(t, p, workflow.KindSynthesis).Credits
}

// --- workers and providers ---

type workerOpts struct {
	id    string
	lease time.Duration
	store *eventstore.Store
	probe time.Duration
	// noDirect is SVC_DIRECT_EXECUTION=false
	noDirect bool
}

// startWorker runs a worker until the test ends (or stop is called); stop
// returns once Run has returned.
func startWorker(t *testing.T, provider llm.Provider, o workerOpts) (w *worker.Worker, stop func()) {
	t.Helper()
	if o.lease == 0 {
		o.lease = 3 * time.Second
	}
	if o.store == nil {
		o.store = testStore
	}
	if o.probe == 0 {
		o.probe = time.Second
	}
	client, err := outbound.NewClient(outbound.Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	w = worker.New(commands.NewRepositories(o.store), provider, client, worker.Config{ID: o.id, Lease: o.lease, Poll: 40 * time.Millisecond, ProbeTimeout: o.probe, DisallowDirect: o.noDirect}, testLog)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Errorf("worker %s: %v", w.ID(), err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Errorf("worker %s did not stop within 15s", w.ID())
			}
		})
	}
	t.Cleanup(stop)
	return w, stop
}

// run starts a worker with provider, kicks the workflows and waits for
// each to end.
func runAll(t *testing.T, provider llm.Provider, ps ...workflow.Planned) []*workflow.Workflow {
	t.Helper()
	w, stop := startWorker(t, provider, workerOpts{})
	for _, p := range ps {
		w.Kick(p.WorkflowID)
	}
	out := make([]*workflow.Workflow, len(ps))
	for i, p := range ps {
		out[i] = waitEnded(t, p.WorkflowID, 30*time.Second)
	}
	stop()
	return out
}

// fakeProvider calls the fake LLM server: two attempts per call with
// tiny backoffs, timeout per attempt, in a chain with fallback (may be
// nil) as the service builds it.
func fakeProvider(t *testing.T, fake *fakellm.Server, timeout time.Duration, fallback llm.Provider) llm.Provider {
	t.Helper()
	return chain.New(openAIAt(t, fake, timeout), fallback, testLog)
}

func openAIAt(t *testing.T, fake *fakellm.Server, timeout time.Duration) llm.Provider {
	t.Helper()
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	p, err := openai.New(openai.Config{BaseURL: fake.URL(), Model: "fake-tier1", ModelTier2: "fake-tier2", Timeout: timeout,
		MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Logger: testLog})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newFake(t *testing.T) *fakellm.Server {
	t.Helper()
	f := fakellm.New()
	t.Cleanup(f.Close)
	return f
}

// closedURL is an http URL nobody listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/mcp"
}

// --- reading what happened ---

func load(t *testing.T, stream string) []event.Event {
	t.Helper()
	events, err := testStore.Load(context.Background(), stream)
	if err != nil {
		t.Fatalf("load %s: %v", stream, err)
	}
	return events
}

// fold loads and folds workflow id.
func fold(t *testing.T, id string) *workflow.Workflow {
	t.Helper()
	wf, err := workflow.Load(load(t, workflow.Stream(id)))
	if err != nil {
		t.Fatalf("fold %s: %v", id, err)
	}
	return wf
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// waitEnded waits until workflow id has a terminal status and returns it.
func waitEnded(t *testing.T, id string, timeout time.Duration) *workflow.Workflow {
	t.Helper()
	var wf *workflow.Workflow
	waitFor(t, "workflow "+id+" to end", timeout, func() bool {
		wf = fold(t, id)
		return workflow.Terminal(wf.Status())
	})
	return wf
}

// ofType returns the events of type typ, decoded into T.
func ofType[T any](t *testing.T, events []event.Event, typ string) []T {
	t.Helper()
	var out []T
	for _, e := range events {
		if e.Type != typ {
			continue
		}
		var d T
		if err := e.Decode(&d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func types(events []event.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

// ledgerOf is what the org's ledger says of workflow id.
type ledgerOf struct {
	stepCharges map[int][]int64 // step -> amounts of workflow_step charges
	fees        []int64         // orchestration_fee charges
	refunds     []int64
	net         int64
}

func ledgerFor(t *testing.T, orgID, id string) ledgerOf {
	t.Helper()
	out := ledgerOf{stepCharges: map[int][]int64{}}
	var bal int64
	for _, e := range load(t, credit.Stream(orgID)) {
		switch e.Type {
		case credit.EventGranted:
			var d credit.Granted
			_ = e.Decode(&d)
			bal += d.Amount
		case credit.EventCharged:
			var d credit.Charged
			_ = e.Decode(&d)
			bal -= d.Amount
			if d.WorkflowID != id {
				break
			}
			out.net += d.Amount
			switch d.Reason {
			case "workflow_step":
				out.stepCharges[d.Step] = append(out.stepCharges[d.Step], d.Amount)
			case "orchestration_fee":
				out.fees = append(out.fees, d.Amount)
			default:
				t.Errorf("charge to %s with reason %q", id, d.Reason)
			}
		case credit.EventRefunded:
			var d credit.Refunded
			_ = e.Decode(&d)
			bal += d.Amount
			if d.WorkflowID == id {
				out.net -= d.Amount
				out.refunds = append(out.refunds, d.Amount)
			}
		}
		if bal < 0 {
			t.Errorf("ledger of %s went negative (%d) at version %d (%s)", orgID, bal, e.Version, e.Type)
		}
	}
	return out
}

// slotHeld reports whether workflow id still holds a place under the
// org's concurrent limit.
func slotHeld(t *testing.T, orgID, id string) bool {
	t.Helper()
	s := workflow.NewSlots()
	for _, e := range load(t, workflow.SlotsStream(orgID)) {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	return s.Holds(id)
}

// leaseOwner returns the owner of workflow id's lease row, "" for none.
func leaseOwner(t *testing.T, id string) string {
	t.Helper()
	var owner string
	err := testDB.Pool.QueryRow(context.Background(), `SELECT coalesce((SELECT owner FROM job_leases WHERE kind = 'workflow' AND job_id = $1), '')`, id).Scan(&owner)
	if err != nil {
		t.Fatal(err)
	}
	return owner
}

// checkRun asserts what must hold of every ended run: the status
// identity, one result per step, charges that match the step results
// exactly once, credits_used equal to the ledger's net, a released slot,
// and a balance that never went negative. It returns the view and the
// ledger for the scenario's own assertions.
func checkRun(t *testing.T, orgID string, wf *workflow.Workflow) (workflow.View, ledgerOf) {
	t.Helper()
	id := wf.ID()
	v := wf.View(true)
	events := load(t, workflow.Stream(id))
	if !workflow.Terminal(v.Status) {
		t.Fatalf("status %s is not terminal", v.Status)
	}
	if got := v.ActualStepsExecuted + v.SkippedSteps + v.IncompleteCount; got != v.TotalSteps {
		t.Errorf("identity: actual %d + skipped %d + incomplete %d = %d, total_steps %d", v.ActualStepsExecuted, v.SkippedSteps, v.IncompleteCount, got, v.TotalSteps)
	}
	terminal := 0
	for _, e := range events {
		if e.Type == workflow.EventCompleted || e.Type == workflow.EventFailed || e.Type == workflow.EventHalted {
			terminal++
		}
	}
	if terminal != 1 {
		t.Errorf("%d terminal events: %v", terminal, types(events))
	}
	results := map[int]int{}
	completed := map[int]workflow.StepCompleted{}
	for _, c := range ofType[workflow.StepCompleted](t, events, workflow.EventStepCompleted) {
		results[c.Step]++
		completed[c.Step] = c
	}
	for _, c := range ofType[workflow.StepIncomplete](t, events, workflow.EventStepIncomplete) {
		results[c.Step]++
	}
	for step, n := range results {
		if n != 1 {
			t.Errorf("step %d has %d results", step, n)
		}
	}
	l := ledgerFor(t, orgID, id)
	for step, amounts := range l.stepCharges {
		c, ok := completed[step]
		if !ok {
			t.Errorf("step %d charged %v without a StepCompleted", step, amounts)
			continue
		}
		if len(amounts) != 1 || amounts[0] != int64(c.Credits) {
			t.Errorf("step %d charged %v, StepCompleted says %d", step, amounts, c.Credits)
		}
	}
	for step, c := range completed {
		if c.Credits > 0 && len(l.stepCharges[step]) == 0 {
			t.Errorf("step %d says %d credits but the ledger has no charge", step, c.Credits)
		}
		if c.Credits < 0 || (c.Kind == workflow.KindSynthesis && c.Credits != 0) {
			t.Errorf("step %d (%s) records %d credits", step, c.Kind, c.Credits)
		}
	}
	if len(l.fees) > 1 {
		t.Errorf("%d orchestration fees: %v", len(l.fees), l.fees)
	}
	if l.net != int64(v.CreditsUsed) {
		t.Errorf("credits_used %d, but the ledger's net charge to the workflow is %d", v.CreditsUsed, l.net)
	}
	if wf.Free() && (l.net != 0 || len(l.stepCharges) > 0 || len(l.fees) > 0) {
		t.Errorf("free workflow charged: %+v", l)
	}
	if slotHeld(t, orgID, id) {
		t.Errorf("ended workflow still holds a slot")
	}
	// its reservation released and its account in the ledger closed, in
	// the transaction of the terminal event
	ledger, err := credit.Load(orgID, load(t, credit.Stream(orgID)))
	if err != nil {
		t.Fatal(err)
	}
	if _, open := ledger.WorkflowCharges()[id]; open || ledger.Held(id) != 0 {
		t.Errorf("ended workflow still holds %d credits in reservation (account open: %v)", ledger.Held(id), open)
	}
	if wf.Free() && ledger.Reserved() != 0 {
		t.Errorf("free workflow: %d credits reserved", ledger.Reserved())
	}
	return v, l
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

// stepStarts returns the StepStarted events of step n.
func stepStarts(t *testing.T, events []event.Event, n int) []workflow.StepStarted {
	t.Helper()
	var out []workflow.StepStarted
	for _, s := range ofType[workflow.StepStarted](t, events, workflow.EventStepStarted) {
		if s.Step == n {
			out = append(out, s)
		}
	}
	return out
}

// httpStatus is a server answering every request with status.
func httpStatus(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }
}

// planStored plans with h (appending the plan) and returns the plans'
// WorkflowPlanned events as stored.
func planStored(t *testing.T, h commands.PlanWorkflowHandler, cmd commands.PlanWorkflow) ([]workflow.Planned, error) {
	t.Helper()
	res, err := h.Handle(context.Background(), cmd)
	if err != nil {
		return nil, err
	}
	repos := commands.NewRepositories(testStore)
	var out []workflow.Planned
	for _, p := range res.Result.Plans {
		wf, err := repos.Workflows.Get(context.Background(), p.WorkflowID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wf.Planned())
	}
	return out, nil
}
