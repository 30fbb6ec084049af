package projections_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/commands"
	"svc/domain"
	"svc/domain/credit"
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
	pgtest.Main(m, "projections", func(d *pgtest.DB) {
		db = d
		store = eventstore.New(d.Pool)
	})
}

func newRunner(t *testing.T, ps []projections.Projection, opts ...projections.Option) *projections.Runner {
	t.Helper()
	r := projections.NewRunner(store, quiet, ps, append([]projections.Option{projections.WithRegistry(testEvents())}, opts...)...)
	if err := r.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// Events of the runner's own tests, beside the service's.
type (
	eventA struct{}
	eventB struct{}
	eventX struct{}
)

func (eventA) EventType() string { return "A" }
func (eventB) EventType() string { return "B" }
func (eventX) EventType() string { return "X" }

// testEvents is every event of the service and those of the tests.
func testEvents() *event.Registry {
	reg := domain.Events()
	event.Register[eventA](reg)
	event.Register[eventB](reg)
	event.Register[eventX](reg)
	return reg
}

// catchUp steps every projection until it has applied the newest event in
// the table. Readers see an event only once every older transaction on the
// server has ended (other packages' tests run at the same time), so one
// CatchUp may stop short: retry until the checkpoint is there.
func catchUp(t *testing.T, r *projections.Runner) {
	t.Helper()
	ctx := context.Background()
	last := lastEvent(t)
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range r.Projections() {
		for {
			if err := r.CatchUp(ctx, p); err != nil {
				t.Fatal(err)
			}
			cp, err := projections.ActiveCheckpoint(ctx, db.Pool, p.Name())
			if err != nil {
				t.Fatal(err)
			}
			if cp.Position.Reached(last) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s stuck at %+v, want %+v", p.Name(), cp.Position, last)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// lastEvent is the position of the newest event in the table, committed or
// not yet visible to readers.
func lastEvent(t *testing.T) event.Position {
	t.Helper()
	var (
		last   event.Position
		txText string
	)
	err := db.Pool.QueryRow(context.Background(), "SELECT transaction_id::text, position FROM events ORDER BY transaction_id DESC, position DESC LIMIT 1").Scan(&txText, &last.Global)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	fmt.Sscan(txText, &last.TransactionID)
	return last
}

// populate signs up orgs and charges, grants and refunds on them.
func populate(t *testing.T, orgs int) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for i := 0; i < orgs; i++ {
		res, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(ctx, commands.CreateOrganization{Email: fmt.Sprintf("o%d-%d@example.com", i, time.Now().UnixNano())})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.OrgID)
		for s := 0; s < 3; s++ {
			if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: res.OrgID, Amount: int64(100 + s), Reason: "step", WorkflowID: fmt.Sprintf("wr_%d", s%2)}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := commands.NewRefundCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.RefundCredits{OrgID: res.OrgID, WorkflowID: "wr_0", Amount: 50, Reason: "failed"}); err != nil {
			t.Fatal(err)
		}
		if _, err := commands.NewVerifyEmailHandler(commands.NewRepositories(store)).Handle(ctx, commands.VerifyEmail{Token: res.VerificationToken}); err != nil {
			t.Fatal(err)
		}
		reservations(t, res.OrgID)
		populateFolders(t, res.OrgID, res.WorkspaceID)
		populateConnections(t, res.OrgID, res.WorkspaceID)
	}
	return ids
}

// ledgerDecides appends what decide decides on org's ledger.
func ledgerDecides(t *testing.T, orgID string, decide func(l *credit.Ledger) ([]event.Data, error)) {
	t.Helper()
	if _, _, err := commands.NewRepositories(store).Ledgers.Update(context.Background(), orgID, orgID, decide); err != nil {
		t.Fatal(err)
	}
}

// reservations gives org's ledger a settled run and an open reservation:
// wr_r reserves 1,000, is charged 300 from it and settles (700 released);
// wr_s holds 200. The org then owns 300 less and may spend 500 less.
func reservations(t *testing.T, orgID string) {
	t.Helper()
	reserve := func(wf string, amount int64) {
		ledgerDecides(t, orgID, func(l *credit.Ledger) ([]event.Data, error) {
			r, _, err := l.Reserve(wf, amount)
			return []event.Data{r}, err
		})
	}
	reserve("wr_r", 1000)
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.ChargeCredits{Charge: credit.Charged{OrgID: orgID, Amount: 300, Reason: "workflow_step", WorkflowID: "wr_r", Step: 1}}); err != nil {
		t.Fatal(err)
	}
	reserve("wr_s", 200)
	ledgerDecides(t, orgID, func(l *credit.Ledger) ([]event.Data, error) {
		res, err := l.Settle(credit.Settlement{WorkflowID: "wr_r", Reason: "WorkflowCompleted"})
		return res.Events, err
	})
}

// dump reads every row of every table of the projections through their views.
func dump(t *testing.T, ps []projections.Projection) map[string][]map[string]any {
	t.Helper()
	out := map[string][]map[string]any{}
	for _, p := range ps {
		for _, tb := range p.Tables() {
			rows, err := db.Pool.Query(context.Background(), "SELECT * FROM "+pgx.Identifier{tb.Name}.Sanitize()+" ORDER BY 1, 2")
			if err != nil {
				t.Fatal(err)
			}
			maps, err := pgx.CollectRows(rows, pgx.RowToMap)
			if err != nil {
				t.Fatal(err)
			}
			out[tb.Name] = maps
		}
	}
	return out
}

func TestRebuildEqualsLive(t *testing.T) {
	db.Reset(t)
	ps := projections.All()
	r := newRunner(t, ps)
	orgs := populate(t, 6)
	catchUp(t, r)
	live := dump(t, ps)
	if len(live["balances"]) != 6 || len(live["api_keys"]) != 6 || len(live["organizations"]) != 6 || len(live["workspaces"]) != 6 {
		t.Fatalf("live model sizes: %d balances, %d keys", len(live["balances"]), len(live["api_keys"]))
	}
	b, err := projections.Balance(context.Background(), db.Pool, orgs[0])
	if err != nil || b.Balance != 5000-303+50-300-200 || b.Reserved != 200 || b.Refunded != 50 || b.Charged != 603 {
		t.Fatalf("balance %+v %v", b, err)
	}
	var done, total int64
	for _, p := range ps {
		n, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(7)).Rebuild(context.Background(), p, func(d, tot int64) { done, total = d, tot })
		if err != nil {
			t.Fatal(err)
		}
		if n != total || done != total || n == 0 {
			t.Fatalf("%s: applied %d, progress %d/%d", p.Name(), n, done, total)
		}
	}
	if rebuilt := dump(t, ps); !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("rebuilt model differs from the live one:\nlive    %v\nrebuilt %v", live, rebuilt)
	}
	cps, err := projections.Checkpoints(context.Background(), db.Pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cps {
		if c.Generation != 2 || !c.Active {
			t.Fatalf("after rebuild: %+v", c)
		}
	}
	var leftovers int
	db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'rm\\_%\\_g1'").Scan(&leftovers)
	if leftovers != 0 {
		t.Fatalf("%d tables of the old generation left", leftovers)
	}
	for _, id := range orgs {
		rep, err := projections.ReplayBilling(context.Background(), store, id)
		if err != nil || len(rep.Differences) != 0 || rep.Log.Balance != 4247 || rep.Log.Reserved != 200 || rep.Workflows != 3 {
			t.Fatalf("replay %+v %v", rep, err)
		}
	}
}

func TestReplayBillingFindsDifferences(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, projections.All())
	orgs := populate(t, 1)
	catchUp(t, r)
	if _, err := db.Pool.Exec(context.Background(), "UPDATE rm_balances_g1 SET balance = balance + 7 WHERE org_id = $1", orgs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(context.Background(), "UPDATE rm_workflow_charges_g1 SET charged = charged - 1 WHERE org_id = $1 AND workflow_id = 'wr_1'", orgs[0]); err != nil {
		t.Fatal(err)
	}
	rep, err := projections.ReplayBilling(context.Background(), store, orgs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) != 2 {
		t.Fatalf("differences %v, want the balance and wr_1", rep.Differences)
	}
	// a reservation the read model lost is a difference too
	if _, err := db.Pool.Exec(context.Background(), "UPDATE rm_balances_g1 SET reserved = reserved - 200, balance = balance + 200 - 7 WHERE org_id = $1", orgs[0]); err != nil {
		t.Fatal(err)
	}
	if rep, err = projections.ReplayBilling(context.Background(), store, orgs[0]); err != nil || len(rep.Differences) != 3 {
		t.Fatalf("differences %v %v, want the balance, the reservations and wr_1", rep.Differences, err)
	}
}

// TestReplayIgnoresProjectionLag: events past the checkpoint are no difference.
func TestReplayIgnoresProjectionLag(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, projections.All())
	orgs := populate(t, 1)
	catchUp(t, r)
	if _, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.GrantCredits{OrgID: orgs[0], Amount: 10, Reason: "x"}); err != nil {
		t.Fatal(err)
	}
	rep, err := projections.ReplayBilling(context.Background(), store, orgs[0])
	if err != nil || len(rep.Differences) != 0 {
		t.Fatalf("replay with lag: %+v %v", rep, err)
	}
}

// flaky counts events per type and fails once on a chosen event, after
// having written part of the batch.
type flaky struct {
	failOn atomic.Value // event id to fail on once
}

func (*flaky) Name() string         { return "flaky" }
func (*flaky) EventTypes() []string { return []string{"A", "B"} }
func (*flaky) Tables() []projections.Table {
	return []projections.Table{{Name: "flaky_counts", DDL: "type text PRIMARY KEY, n bigint NOT NULL"}}
}
func (f *flaky) Apply(ctx context.Context, tx pgx.Tx, t projections.Tables, events []event.Event) error {
	for _, e := range events {
		if _, err := tx.Exec(ctx, "INSERT INTO "+t.Of("flaky_counts")+" (type, n) VALUES ($1, 1) ON CONFLICT (type) DO UPDATE SET n = "+t.Of("flaky_counts")+".n + 1", e.Type); err != nil {
			return err
		}
		if id, _ := f.failOn.Load().(string); id == e.ID.String() {
			f.failOn.Store("")
			return errors.New("injected failure")
		}
	}
	return nil
}

func counts(t *testing.T) map[string]int64 {
	rows, err := db.Pool.Query(context.Background(), "SELECT type, n FROM flaky_counts")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		rows.Scan(&k, &n)
		out[k] = n
	}
	return out
}

// TestFailedBatchNeitherAppliesNorAdvances: a failure mid-batch rolls back the
// rows and the checkpoint together; the retry applies each event once.
func TestFailedBatchNeitherAppliesNorAdvances(t *testing.T) {
	db.Reset(t)
	f := &flaky{}
	r := newRunner(t, []projections.Projection{f}, projections.WithBatch(100))
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if _, err := store.Append(ctx, fmt.Sprintf("s-%d", i), event.NewStream, event.New{Data: eventA{}}, event.New{Data: eventB{}}); err != nil {
			t.Fatal(err)
		}
	}
	// another test package's open transaction may hide the events for a
	// moment (the xmin rule); once visible they stay visible
	var events []event.Event
	for deadline := time.Now().Add(30 * time.Second); len(events) < 20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of 20 events became visible", len(events))
		}
		events, _ = store.ReadAll(ctx, db.Pool, event.Position{}, 100, eventstore.Filter{})
	}
	f.failOn.Store(events[13].ID.String())
	if _, err := r.Step(ctx, f); err == nil {
		t.Fatal("injected failure not reported")
	}
	if c := counts(t); len(c) != 0 {
		t.Fatalf("failed batch left rows: %v", c)
	}
	if cp, _ := projections.ActiveCheckpoint(ctx, db.Pool, "flaky"); !cp.Position.IsZero() {
		t.Fatalf("failed batch moved the checkpoint to %+v", cp.Position)
	}
	catchUp(t, r)
	if c := counts(t); c["A"] != 10 || c["B"] != 10 {
		t.Fatalf("after retry: %v, want 10 and 10", c)
	}
}

// TestRunnersAndRebuildUnderLoad: two live runners (two processes) and a
// rebuild race while events are appended; every event is applied once.
func TestRunnersAndRebuildUnderLoad(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Billing{}}
	r1 := newRunner(t, ps, projections.WithPoll(5*time.Millisecond), projections.WithBatch(10))
	r2 := projections.NewRunner(store, quiet, ps, projections.WithPoll(5*time.Millisecond), projections.WithBatch(10))
	orgs := populate(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range []*projections.Runner{r1, r2} {
		wg.Add(1)
		go func() { defer wg.Done(); r.Run(ctx) }()
	}
	var appender sync.WaitGroup
	appender.Add(1)
	go func() {
		defer appender.Done()
		for i := 0; i < 60; i++ {
			_, err := commands.NewGrantCreditsHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.GrantCredits{OrgID: orgs[i%3], Amount: 1, Reason: "load"})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 2; i++ {
		if _, err := projections.NewRunner(store, quiet, ps, projections.WithBatch(5)).Rebuild(context.Background(), ps[0], nil); err != nil {
			t.Fatal(err)
		}
	}
	appender.Wait()
	// wait for the runners to reach the log's end, then stop them
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := r1.Wait(wctx, lastEvent(t), "billing")
	wcancel()
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range orgs {
		rep, err := projections.ReplayBilling(context.Background(), store, id)
		if err != nil || len(rep.Differences) != 0 || rep.Log.Balance != 4247+20 || rep.Log.Reserved != 200 {
			t.Fatalf("org %s: %+v %v", id, rep, err)
		}
	}
}

func TestWait(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Billing{}}
	r := newRunner(t, ps)
	pos, err := store.Append(context.Background(), "x-1", event.NewStream, event.New{Data: eventX{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := r.Wait(ctx, pos, "billing"); !errors.Is(err, projections.ErrWaitTimeout) {
		t.Fatalf("wait without a runner: %v", err)
	}
	rctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopped := make(chan struct{})
	go func() { r.Run(rctx); close(stopped) }()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := r.Wait(wctx, pos, "billing"); err != nil {
		t.Fatalf("wait with a runner: %v", err)
	}
	// a second runner (another process) catching up is seen through the database
	pos2, _ := store.Append(context.Background(), "x-2", event.NewStream, event.New{Data: eventX{}})
	stop()
	<-stopped
	octx, ostop := context.WithCancel(context.Background())
	defer ostop()
	go projections.NewRunner(store, quiet, ps, projections.WithPoll(10*time.Millisecond), projections.WithRegistry(testEvents())).Run(octx)
	w2, c2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer c2()
	if err := projections.NewRunner(store, quiet, ps).Wait(w2, pos2, "billing"); err != nil {
		t.Fatalf("wait on another process's checkpoint: %v", err)
	}
}

// TestUnknownOrMalformedEventsStopARebuild: a stored event of a type no
// aggregate registers, or whose data does not fit its type, fails the
// rebuild with an error naming its stream and position; it is never
// skipped.
func TestUnknownOrMalformedEventsStopARebuild(t *testing.T) {
	for _, c := range []struct {
		name string
		data event.Data
		want error
	}{
		{"unknown", event.Raw{Type: "NoSuchEvent"}, event.ErrUnknownType},
		{"malformed", event.Raw{Type: credit.EventCharged, JSON: []byte(`{"amount":"many"}`)}, event.ErrMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			db.Reset(t)
			pos, err := store.Append(context.Background(), "odd-1", event.NewStream, event.New{Data: c.data})
			if err != nil {
				t.Fatal(err)
			}
			// another package's open transaction may hide the event for a
			// moment (the xmin rule): rebuild once it is visible
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				got, err := store.ReadAll(context.Background(), db.Pool, event.Position{}, 10, eventstore.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) > 0 || time.Now().After(deadline) {
					break
				}
			}
			ps := []projections.Projection{projections.Billing{}}
			_, err = projections.NewRunner(store, quiet, ps).Rebuild(context.Background(), ps[0], nil)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "stream odd-1 version 0 at position "+pos.String()) {
				t.Fatalf("rebuild over a %s event: %v", c.name, err)
			}
		})
	}
}

// A live runner reads only the events its projection reads and moves its
// checkpoint past the others to the head of the log without reading them;
// a Wait for a position past its last event of its own types returns.
func TestLiveRunnerPassesEventsItDoesNotRead(t *testing.T) {
	db.Reset(t)
	ps := []projections.Projection{projections.Organizations{}}
	r := newRunner(t, ps, projections.WithPoll(0))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopped := make(chan struct{})
	go func() { _ = r.Run(ctx); close(stopped) }()
	defer func() { stop(); <-stopped }()

	orgs := populate(t, 1) // an organization, its ledger, key, workspace
	var last event.Position
	for i := range 50 { // events the organizations projection does not read
		pos, err := store.Append(context.Background(), fmt.Sprintf("x-%d", i), event.NewStream, event.New{Data: eventX{}})
		if err != nil {
			t.Fatal(err)
		}
		last = pos
	}
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.Wait(wctx, last, "organizations"); err != nil {
		t.Fatalf("wait past events the projection does not read: %v", err)
	}
	cp, err := projections.ActiveCheckpoint(context.Background(), db.Pool, "organizations")
	if err != nil {
		t.Fatal(err)
	}
	// OrganizationCreated and EmailVerified only
	if cp.EventsApplied != 2 || !cp.Position.Reached(last) {
		t.Fatalf("checkpoint %+v, want 2 events applied and the position of the last event %v", cp, last)
	}
	if _, err := projections.Organization(context.Background(), db.Pool, orgs[0]); err != nil {
		t.Fatal(err)
	}
}

// TestLingerYieldsToWait: a follower that lingers under a stream of
// commits steps at once for a caller of Wait (an hour's linger would
// otherwise hold the wait past its bound).
func TestLingerYieldsToWait(t *testing.T) {
	db.Reset(t)
	r := newRunner(t, []projections.Projection{&flaky{}}, projections.WithPoll(0), projections.WithLinger(time.Hour))
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { r.Run(ctx); close(stopped) }()
	defer func() { stop(); <-stopped }()
	var last event.Position
	for i := range 50 { // more commits arrive while the follower steps: it lingers
		pos, err := store.Append(context.Background(), fmt.Sprintf("linger-%d", i), event.NewStream, event.New{Data: eventA{}})
		if err != nil {
			t.Fatal(err)
		}
		last = pos
	}
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.Wait(wctx, last, "flaky"); err != nil {
		t.Fatalf("a lingering follower held a wait: %v", err)
	}
}
