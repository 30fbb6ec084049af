package erasure_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/adapters/credentials"
	"svc/adapters/secrets"
	"svc/commands"
	"svc/commands/erasure"
	"svc/domain/apikey"
	"svc/domain/deletion"
	"svc/domain/workspace"
	"svc/eventstore"
	"svc/eventstore/event"
	"svc/projections"
	"svc/test/pgtest"
)

var (
	db    *pgtest.DB
	store *eventstore.Store
	quiet = slog.New(slog.NewTextHandler(logSink(), nil))
)

func TestMain(m *testing.M) {
	pgtest.Main(m, "erasure", func(d *pgtest.DB) {
		db = d
		store = eventstore.New(d.Pool)
	})
}

// world is a test's store with its read models kept up to date.
type world struct {
	repos   *commands.Repositories
	runner  *projections.Runner
	queries *projections.Queries
	box     *secrets.Box
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db.Reset(t)
	ctx, cancel := context.WithCancel(context.Background())
	runner := projections.NewRunner(store, quiet, projections.All(), projections.WithPoll(10*time.Millisecond))
	if err := runner.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = runner.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	box, err := secrets.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	repos := commands.NewRepositories(store)
	return &world{repos: repos, runner: runner, queries: projections.NewQueries(store, repos.Workflows, runner, quiet), box: box}
}

// settle waits until every projection has applied the newest event in
// the table (visible to readers or not yet).
func (w *world) settle(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var (
		last event.Position
		txt  string
	)
	err := db.Pool.QueryRow(ctx, `SELECT transaction_id::text, position FROM events ORDER BY transaction_id DESC, position DESC LIMIT 1`).Scan(&txt, &last.Global)
	if errors.Is(err, pgx.ErrNoRows) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Sscan(txt, &last.TransactionID)
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range projections.All() {
		for {
			cp, err := projections.ActiveCheckpoint(ctx, db.Pool, p.Name())
			if err != nil {
				t.Fatal(err)
			}
			if cp.Position.Reached(last) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s does not catch up", p.Name())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// completed waits until erasure id's record reached the read model.
func (w *world) completed(t *testing.T, id string) (projections.DeletionRow, error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := w.queries.DeletionRequest(context.Background(), id)
		if (err == nil && d.Status == deletion.StatusCompleted) || time.Now().After(deadline) {
			return d, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *world) signUp(t *testing.T, name string) commands.SignedUp {
	t.Helper()
	res, err := commands.NewSignUpHandler(w.repos, nil).Handle(context.Background(), commands.SignUp{
		Email: fmt.Sprintf("%s-%d@example.com", name, time.Now().UnixNano()), Password: "long enough", Name: "Person " + name})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (w *world) addMember(t *testing.T, to commands.SignedUp, who commands.SignedUp) {
	t.Helper()
	w.settle(t) // the invitee's account is found through the users read model
	if _, err := commands.NewAddMemberHandler(w.repos).Handle(context.Background(), commands.AddMember{OrgID: to.OrgID,
		WorkspaceID: to.WorkspaceID, Email: who.Email, Role: workspace.Role(apikey.Member)}); err != nil {
		t.Fatal(err)
	}
}

// confirm requests and confirms the deletion of org and returns the
// request's id.
func (w *world) confirm(t *testing.T, orgID string) string {
	t.Helper()
	ctx := context.Background()
	req, err := commands.NewRequestDeletionHandler(w.repos, w.box, 0).Handle(ctx, commands.RequestDeletion{OrgID: orgID, By: "user:test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewConfirmDeletionHandler(w.repos, nil).Handle(ctx, commands.ConfirmDeletion{OrgID: orgID,
		RequestID: req.RequestID, Token: req.Token, By: "user:test"}); err != nil {
		t.Fatal(err)
	}
	return req.RequestID
}

// dumpAll is every row of every table of the database as text.
func dumpAll(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tb := range tables {
		rows, err := db.Pool.Query(ctx, "SELECT t::text FROM "+pgx.Identifier{tb}.Sanitize()+" t")
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			b.WriteString(tb + ": " + l + "\n")
		}
	}
	return b.String()
}

// readModels is every row of every read model through its view.
func readModels(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, p := range projections.All() {
		for _, tb := range p.Tables() {
			rows, err := db.Pool.Query(context.Background(), "SELECT t::text FROM "+pgx.Identifier{tb.Name}.Sanitize()+" t ORDER BY 1")
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			out[tb.Name] = lines
		}
	}
	return out
}

func rebuildAll(t *testing.T) {
	t.Helper()
	for _, p := range projections.All() {
		if _, err := projections.NewRunner(store, quiet, projections.All(), projections.WithBatch(50)).Rebuild(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEraseOrganization erases an organization whose owner belongs to
// another one too (she keeps her account, now at home there) and one
// whose owner belongs to none (his account goes, his address is free
// again): nothing in the database names either organization afterwards,
// the record names neither, the others' read models equal a rebuild and
// their billing replays.
func TestEraseOrganization(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	bob, ann, carl := w.signUp(t, "bob"), w.signUp(t, "ann"), w.signUp(t, "carl")
	w.addMember(t, ann, bob) // bob, at home in his org, is a member of ann's
	w.addMember(t, bob, ann) // and ann of his
	key, err := commands.NewCreateWorkspaceKeyHandler(w.repos).Handle(ctx, commands.CreateWorkspaceKey{OrgID: ann.OrgID,
		WorkspaceID: ann.WorkspaceID, Label: "ann's secret label", Role: apikey.Admin, CreatedBy: "user:" + ann.UserID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewCreateFolderHandler(w.repos).Handle(ctx, commands.CreateFolder{OrgID: ann.OrgID, WorkspaceID: ann.WorkspaceID, Name: "Ann's folder"}); err != nil {
		t.Fatal(err)
	}
	// the key's and carl's read fences (as a suite call leaves them)
	if _, err := db.Pool.Exec(ctx, `INSERT INTO read_fences (caller, event_type, transaction_id, position)
		VALUES ('key:' || $1, 'DedupCompleted', 1, 1), ('user:' || $2, 'DedupCompleted', 1, 1)`, key.KeyID, carl.UserID); err != nil {
		t.Fatal(err)
	}
	w.settle(t)

	runner := erasure.New(w.repos, erasure.Config{Lease: 2 * time.Second, JobWait: 200 * time.Millisecond}, quiet)
	for _, o := range []commands.SignedUp{ann, carl} {
		id := w.confirm(t, o.OrgID)
		if step, err := runner.Erase(ctx, id); err != nil {
			t.Fatalf("erase %s: %s: %v", o.Email, step, err)
		}
		d, err := w.completed(t, id)
		if err != nil || d.Status != deletion.StatusCompleted || d.Error != nil || d.SoftDeletedAt == nil || d.HardDeletedAt == nil || len(d.Log) < 5 {
			t.Fatalf("the record of %s: %+v %v", o.Email, d, err)
		}
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), o.OrgID) {
			t.Fatalf("the record names the organization: %s", raw)
		}
		var queued int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM erasures`).Scan(&queued); err != nil || queued != 0 {
			t.Fatalf("%d erasures still queued (%v)", queued, err)
		}
	}

	all := dumpAll(t)
	for what, v := range map[string]string{"ann's org": ann.OrgID, "ann's workspace": ann.WorkspaceID, "carl's org": carl.OrgID,
		"carl": carl.UserID, "carl's email": carl.Email, "carl's name": "Person carl", "the key": key.KeyID, "the key's label": "ann's secret label",
		"the folder": "Ann's folder"} {
		if strings.Contains(all, v) {
			t.Errorf("%s (%s) is still in the database", what, v)
		}
	}
	// ann kept her account, at home in bob's organization, as a member
	var home string
	if err := db.Pool.QueryRow(ctx, `SELECT org_id::text FROM users WHERE user_id = $1`, ann.UserID).Scan(&home); err != nil || home != bob.OrgID {
		t.Fatalf("ann's home %q %v, want bob's organization", home, err)
	}
	p, err := w.queries.SessionPrincipal(ctx, ann.Session.Access)
	if err != nil || p.OrgID != bob.OrgID || p.WorkspaceID != bob.WorkspaceID || p.Role != apikey.Member {
		t.Fatalf("ann's session: %+v %v", p, err)
	}
	// carl's session and credentials are gone, and his address signs up again
	if _, err := w.queries.SessionPrincipal(ctx, carl.Session.Access); !errors.Is(err, projections.ErrNotFound) {
		t.Fatalf("carl's session: %v", err)
	}
	if _, _, err := credentials.Lookup(ctx, db.Pool, strings.ToLower(carl.Email)); !errors.Is(err, credentials.ErrNotFound) {
		t.Fatalf("carl's credentials: %v", err)
	}
	if _, err := commands.NewSignUpHandler(w.repos, nil).Handle(ctx, commands.SignUp{Email: carl.Email, Password: "long enough"}); err != nil {
		t.Fatalf("carl's address again: %v", err)
	}
	// bob is untouched, his membership of ann's organization is gone
	if _, ms, err := w.queries.User(ctx, bob.UserID); err != nil || len(ms) != 1 || ms[0].WorkspaceID != bob.WorkspaceID {
		t.Fatalf("bob's memberships: %+v %v", ms, err)
	}
	w.settle(t)
	live := readModels(t)
	rebuildAll(t)
	if rebuilt := readModels(t); !reflect.DeepEqual(live, rebuilt) {
		for name := range live {
			if !reflect.DeepEqual(live[name], rebuilt[name]) {
				t.Errorf("%s: live %v\nrebuilt %v", name, live[name], rebuilt[name])
			}
		}
	}
	rep, err := projections.ReplayBilling(ctx, store, bob.OrgID)
	if err != nil || len(rep.Differences) != 0 {
		t.Fatalf("bob's billing: %+v %v", rep, err)
	}
}

// TestEraseResumesAfterAFailureAndADeadOwner: an attempt that cannot
// take a lock fails half way (the events are gone, a read model is not)
// and records why; a process that holds the job's lease and dies leaves
// it to another once the lease expires, which finishes the erasure.
func TestEraseResumesAfterAFailureAndADeadOwner(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	dora := w.signUp(t, "dora")
	w.settle(t)
	id := w.confirm(t, dora.OrgID)
	w.settle(t)

	// a read model the erasure cannot write to for now
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `LOCK TABLE users IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	runner := erasure.New(w.repos, erasure.Config{Lease: time.Second, Poll: 100 * time.Millisecond, JobWait: 100 * time.Millisecond}, quiet)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { runner.Run(rctx); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := w.queries.DeletionRequest(ctx, id)
		if err == nil && d.Error != nil && d.Attempts >= 1 {
			if !strings.Contains(*d.Error, "lock") {
				t.Fatalf("the failure recorded: %q", *d.Error)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failure recorded: %+v %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var left int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE org_id = $1 AND stream_id <> $2`, dora.OrgID, deletion.Stream(dora.OrgID)).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d events of the organization left after the failed attempt (%v)", left, err)
	}
	// this process dies: its runner stops, and a dead owner's lease on the
	// job is left behind (a crash hands nothing back)
	stop()
	<-done
	if _, err := db.Pool.Exec(ctx, `INSERT INTO job_leases (kind, job_id, owner, expires_at) VALUES ('erasure', $1, 'dead', now() + interval '1 second')
		ON CONFLICT (kind, job_id) DO UPDATE SET owner = 'dead', expires_at = excluded.expires_at`, id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	other := erasure.New(w.repos, erasure.Config{Lease: time.Second, Poll: 100 * time.Millisecond, JobWait: 100 * time.Millisecond}, quiet)
	octx, ostop := context.WithCancel(ctx)
	odone := make(chan struct{})
	go func() { other.Run(octx); close(odone) }()
	defer func() { ostop(); <-odone }()
	for {
		d, err := w.queries.DeletionRequest(ctx, id)
		var queued int
		qerr := db.Pool.QueryRow(ctx, `SELECT count(*) FROM erasures`).Scan(&queued)
		if err == nil && qerr == nil && d.Status == deletion.StatusCompleted && queued == 0 {
			if d.Error != nil || d.Attempts < 2 {
				t.Fatalf("the record after a retry: %+v", d)
			}
			break
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("the erasure did not finish: %+v %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, line := range strings.Split(dumpAll(t), "\n") {
		if strings.Contains(line, dora.OrgID) || strings.Contains(line, dora.Email) {
			t.Errorf("the organization is still in the database: %.300s", line)
		}
	}
}

func logSink() io.Writer {
	if os.Getenv("ERASURE_TEST_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}
