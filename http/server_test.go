package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/catalog"
	"svc/domain/org"
	"svc/domain/planning"
	"svc/eventstore"
	"svc/eventstore/event"
	httpapi "svc/http"
	"svc/projections"
	"svc/test/pgtest"
)

var (
	db    *pgtest.DB
	store *eventstore.Store
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) {
	pgtest.Main(m, "httpapi", func(d *pgtest.DB) {
		db = d
		store = eventstore.New(d.Pool)
	})
}

type fixture struct {
	srv    *httpapi.Server
	ts     *httptest.Server
	runner *projections.Runner
}

func newFixture(t *testing.T, limiter httpapi.Limiter, st *eventstore.Store) *fixture {
	t.Helper()
	return newPolledFixture(t, limiter, st, 10*time.Millisecond)
}

// newPolledFixture is newFixture with its projection runner polling every
// poll: 0 is serve's setting (woken by appends only), for measurements.
func newPolledFixture(t *testing.T, limiter httpapi.Limiter, st *eventstore.Store, poll time.Duration) *fixture {
	t.Helper()
	if limiter == nil {
		limiter = memoryLimiter()
	}
	if st == nil {
		st = store
	}
	runner := projections.NewRunner(st, quiet, projections.All(), projections.WithPoll(poll))
	srv := httpapi.New(httpapi.Config{BaseURL: "http://test", Version: "test",
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		testDeps(t, st, runner, limiter))
	f := &fixture{srv: srv, runner: runner}
	if st == store {
		if err := runner.Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { runner.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	return f
}

func (f *fixture) start(t *testing.T) {
	f.ts = httptest.NewServer(f.srv.Handler())
	t.Cleanup(f.ts.Close)
}

func (f *fixture) do(t *testing.T, method, path, key string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, f.ts.URL+path, nil)
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp, body
}

func errCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// keyWithRole signs up an org and adds a key of the given role to it.
func keyWithRole(t *testing.T, role apikey.Role) (string, string) {
	t.Helper()
	ctx := context.Background()
	res, err := commands.NewCreateOrganizationHandler(commands.NewRepositories(store)).Handle(ctx, commands.CreateOrganization{})
	if err != nil {
		t.Fatal(err)
	}
	if role == apikey.Owner {
		return res.Key.Raw, res.OrgID
	}
	secret, _ := apikey.Generate()
	id := "00000000-0000-4000-8000-" + strconv.FormatInt(time.Now().UnixNano()%1e12, 10)
	for len(id) < 36 {
		id += "0"
	}
	_, err = store.Append(ctx, apikey.Stream(id), event.NewStream, event.New{Metadata: event.Metadata{OrgID: res.OrgID},
		Data: apikey.Created{KeyID: id, OrgID: res.OrgID, WorkspaceID: res.WorkspaceID, Hash: secret.Hash, Prefix: secret.Prefix, Label: "t", Role: role, CreatedBy: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	return secret.Raw, res.OrgID
}

func waitKey(t *testing.T, f *fixture, key string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, _ := f.do(t, "GET", "/api/billing/balance", key); resp.StatusCode == 200 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("key never became usable")
}

func TestRoleFloorAndRateLimit(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.srv.RigorHandle("/probe", http.MethodGet, "probe", apikey.Admin, func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
	f.start(t)
	member, _ := keyWithRole(t, apikey.Member)
	owner, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, member)
	waitKey(t, f, owner)

	resp, body := f.do(t, "GET", "/api/rigor/probe", member)
	if resp.StatusCode != 403 || errCode(body) != "insufficient_permissions" || !strings.Contains(body["error"].(map[string]any)["message"].(string), "admin") {
		t.Fatalf("member on an admin route: %d %v", resp.StatusCode, body)
	}
	for i := 1; i <= 120; i++ {
		resp, _ := f.do(t, "GET", "/api/rigor/probe", owner)
		if resp.StatusCode != 204 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		if i == 120 && resp.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("remaining on the 120th: %q", resp.Header.Get("X-RateLimit-Remaining"))
		}
	}
	resp, body = f.do(t, "GET", "/api/rigor/probe", owner)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != 429 || errCode(body) != "rate_limit_exceeded" || retry < 1 || retry > 60 || body["retry_after"] != float64(retry) {
		t.Fatalf("121st request: %d %v Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	// the limit is per org: another org is unaffected
	other, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, other)
	if resp, _ := f.do(t, "GET", "/api/rigor/probe", other); resp.StatusCode != 204 {
		t.Fatalf("other org limited: %d", resp.StatusCode)
	}
	// Enterprise gets 500 a minute (a fresh server: the key cache holds the tier)
	if _, err := commands.NewChangeTierHandler(commands.NewRepositories(store)).Handle(context.Background(), commands.ChangeTier{OrgID: orgID, Tier: org.Enterprise, Source: "operator"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	g := newFixture(t, nil, nil)
	g.srv.RigorHandle("/probe", http.MethodGet, "probe", apikey.Viewer, func(w http.ResponseWriter, r *http.Request) error { return nil })
	g.start(t)
	resp, _ = g.do(t, "GET", "/api/rigor/probe", owner)
	if resp.Header.Get("X-RateLimit-Limit") != "500" {
		t.Fatalf("enterprise limit header %q", resp.Header.Get("X-RateLimit-Limit"))
	}
}

type brokenLimiter struct{}

func (brokenLimiter) Allow(context.Context, string, int, time.Duration) (httpapi.LimitDecision, error) {
	return httpapi.LimitDecision{}, errors.New("cache down")
}
func (brokenLimiter) Ping(context.Context) error { return errors.New("cache down") }

func TestLimitsDegradeOpenAndHealthDegraded(t *testing.T) {
	f := newFixture(t, brokenLimiter{}, nil)
	f.srv.RigorHandle("/probe", http.MethodGet, "probe", "", func(w http.ResponseWriter, r *http.Request) error { return nil })
	f.start(t)
	key, _ := keyWithRole(t, apikey.Viewer)
	waitKey(t, f, key)
	for i := 0; i < 130; i++ {
		if resp, _ := f.do(t, "GET", "/api/rigor/probe", key); resp.StatusCode != 200 {
			t.Fatalf("request %d with the limiter down: %d", i, resp.StatusCode)
		}
	}
	resp, body := f.do(t, "GET", "/api/health", "")
	cache, _ := body["services"].(map[string]any)["cache"].(map[string]any)
	if resp.StatusCode != 200 || body["status"] != "degraded" || cache["status"] != "degraded" {
		t.Fatalf("health with the cache down: %d %v", resp.StatusCode, body)
	}
}

func TestHealthDownWithoutDatabase(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	f := newFixture(t, nil, eventstore.New(pool))
	f.start(t)
	resp, body := f.do(t, "GET", "/api/health", "")
	products, _ := body["products"].(map[string]any)
	rigor, _ := products["rigor"].(map[string]any)
	dbCheck, _ := body["services"].(map[string]any)["database"].(map[string]any)
	if resp.StatusCode != 503 || body["status"] != "down" || dbCheck["status"] != "down" || rigor["status"] != "down" || len(products) != 6 {
		t.Fatalf("health without a database: %d %v", resp.StatusCode, body)
	}
	// an authenticated route answers 500 internal_error in the envelope, not a bare failure
	resp, body = f.do(t, "GET", "/api/billing/balance", "svc_live_0123456789abcdef0123456789abcdef0123456789abcdef")
	if resp.StatusCode != 500 || errCode(body) != "internal_error" {
		t.Fatalf("balance without a database: %d %v", resp.StatusCode, body)
	}
}

func TestClientIP(t *testing.T) {
	f := newFixture(t, nil, nil)
	cases := []struct{ peer, xff, want string }{
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},         // untrusted peer: header ignored
		{"10.1.2.3:5000", "198.51.100.1", "198.51.100.1"},           // trusted proxy
		{"10.1.2.3:5000", "198.51.100.1, 10.9.9.9", "198.51.100.1"}, // chain of trusted proxies
		{"10.1.2.3:5000", "6.6.6.6, 198.51.100.1", "198.51.100.1"},  // a spoofed left-most hop is not believed
		{"10.1.2.3:5000", "", "10.1.2.3"},                           // no header
		{"10.1.2.3:5000", "garbage", "10.1.2.3"},                    // unparsable
		{"[::ffff:10.1.2.3]:5000", "2001:db8::1", "2001:db8::1"},    // mapped IPv4 peer
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := f.srv.ClientIPOf(r); got != c.want {
			t.Errorf("peer %s xff %q: %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
}

func TestEnvelopeAndRequestIDs(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.srv.RigorHandle("/panic", http.MethodGet, "panic", "", func(w http.ResponseWriter, r *http.Request) error { panic("boom") })
	f.start(t)
	key, _ := keyWithRole(t, apikey.Viewer)
	waitKey(t, f, key)
	idPattern := regexp.MustCompile(`^req_[0-9a-f]{24}$`)
	resp, body := f.do(t, "GET", "/api/rigor/panic", key)
	e, _ := body["error"].(map[string]any)
	if resp.StatusCode != 500 || errCode(body) != "internal_error" || !idPattern.MatchString(resp.Header.Get("X-Request-Id")) || e["request_id"] != resp.Header.Get("X-Request-Id") {
		t.Fatalf("panic: %d %v %q", resp.StatusCode, body, resp.Header.Get("X-Request-Id"))
	}
	resp, body = f.do(t, "GET", "/api/rigor/nowhere", key)
	if resp.StatusCode != 404 || errCode(body) != "not_found" {
		t.Fatalf("unknown rigor route: %d %v", resp.StatusCode, body)
	}
	resp, _ = f.do(t, "GET", "/metrics", "")
	if resp.StatusCode != 200 {
		t.Fatalf("metrics: %d", resp.StatusCode)
	}
	resp, body = f.do(t, "GET", "/docs", "")
	if eps, _ := body["endpoints"].([]any); resp.StatusCode != 200 || len(eps) < 5 {
		t.Fatalf("docs: %d %v", resp.StatusCode, body)
	}
	for _, c := range []struct {
		body, code string
		status     int
	}{
		{`{"email":`, "invalid_body", 400},
		{`[1,2]`, "invalid_body", 400},
		{`{"email":"a@b.co"} {"x":1}`, "invalid_body", 400},
		{`{"name":7}`, "invalid_field", 400},
		{`{"name":"` + strings.Repeat("n", 201) + `"}`, "invalid_field", 400},
		{`{"email":"` + strings.Repeat("x", 2<<20) + `"}`, "body_too_large", 413},
	} {
		resp, err := http.Post(f.ts.URL+"/api/keys", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var b map[string]any
		json.NewDecoder(resp.Body).Decode(&b)
		resp.Body.Close()
		if resp.StatusCode != c.status || errCode(b) != c.code {
			t.Errorf("body %.40q: %d %v, want %d %s", c.body, resp.StatusCode, b, c.status, c.code)
		}
	}
}

func TestMethodNotAllowedAndInternalMetrics(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	resp, body := f.do(t, "DELETE", "/api/keys", "")
	if resp.StatusCode != 405 || errCode(body) != "method_not_allowed" || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("DELETE /api/keys: %d %v Allow %q", resp.StatusCode, body, resp.Header.Get("Allow"))
	}
	for peer, want := range map[string]int{"127.0.0.1:4000": 200, "10.2.3.4:4000": 200, "203.0.113.7:4000": 404} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", "127.0.0.1")
		w := httptest.NewRecorder()
		f.srv.Handler().ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("metrics from %s: %d, want %d", peer, w.Code, want)
		}
	}
}

// TestStatusReadsAFreshWorkflowFromItsStream: with the workflows projection
// not running, a workflow planned a moment ago is still found (from its
// stream), and still only by its own org.
func TestStatusReadsAFreshWorkflowFromItsStream(t *testing.T) {
	ctx := context.Background()
	key, orgID := keyWithRole(t, apikey.Owner)
	other, _ := keyWithRole(t, apikey.Owner)
	frozen := eventstore.New(db.Pool) // a store no runner follows
	f := newFixture(t, nil, frozen)
	f.start(t)
	// project keys and organizations only, until both keys resolve
	if err := projections.NewRunner(frozen, quiet, projections.All()).Setup(ctx); err != nil {
		t.Fatal(err)
	}
	identity := projections.NewRunner(frozen, quiet, []projections.Projection{projections.Keys{}, projections.Organizations{}})
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, p := range identity.Projections() {
			if err := identity.CatchUp(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		r1, _ := f.do(t, "GET", "/api/billing/balance", key)
		r2, _ := f.do(t, "GET", "/api/billing/balance", other)
		if r1.StatusCode == 200 && r2.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("keys never resolved")
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := commands.NewPlanWorkflowHandler(commands.NewRepositories(frozen), planning.NewPlanner(catalog.Default())).Handle(ctx, commands.PlanWorkflow{
		OrgID: orgID, WorkspaceID: orgID, Request: planning.Request{Description: "compare our pricing with three competitors", TaskType: "competitive_analysis"}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Result.Plans[0].WorkflowID
	if _, err := projections.Workflow(ctx, db.Pool, orgID, id); !errors.Is(err, projections.ErrNotFound) {
		t.Fatalf("the workflow is projected already (%v): the test would not exercise the stream", err)
	}
	resp, body := f.do(t, "GET", "/api/rigor/status/"+id, key)
	wf, _ := body["workflow"].(map[string]any)
	if resp.StatusCode != 200 || wf["status"] != "planned" || wf["workflow_id"] != id || wf["total_steps"] == nil {
		t.Fatalf("status of a fresh workflow: %d %v", resp.StatusCode, body)
	}
	if resp, body := f.do(t, "GET", "/api/rigor/status/"+id, other); resp.StatusCode != 404 || errCode(body) != "not_found" {
		t.Fatalf("another org: %d %v", resp.StatusCode, body)
	}
}
