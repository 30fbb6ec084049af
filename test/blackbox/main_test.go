// Package blackbox tests the built svc binary from the outside: it starts
// "svc serve" as a subprocess against a database of its own and talks to it
// over HTTP only, and runs the operator commands as a separate process, the
// way operators and scripts do (see /work/shared/OPERATIONS.md).
package blackbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"svc/eventstore"
	"svc/test/pgtest"
)

// svcBin is the binary built once by TestMain.
var svcBin string

func TestMain(m *testing.M) {
	os.Exit(mainWithCode(m))
}

func mainWithCode(m *testing.M) int {
	http.DefaultTransport = checkedTransport{next: baseTransport} // contract_test.go
	dir, err := os.MkdirTemp("", "svc-blackbox-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "blackbox:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	svcBin = filepath.Join(dir, "svc")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	build := exec.Command(goTool, "build", "-o", svcBin, "svc/cmd/svc")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "blackbox: go build svc/cmd/svc:", err)
		return 1
	}
	if err := startMailpit(dir); err != nil {
		fmt.Fprintln(os.Stderr, "blackbox:", err)
		return 1
	}
	defer stopMailpit()
	if err := startStripeMock(); err != nil {
		fmt.Fprintln(os.Stderr, "blackbox:", err)
		return 1
	}
	defer stopStripeMock()
	code := m.Run()
	fmt.Fprintln(os.Stderr, "blackbox:", contractSummary())
	if v := unreportedViolations(); len(v) > 0 {
		fmt.Fprintf(os.Stderr, "blackbox: %d answers do not match the OpenAPI document:\n%s\n", len(v), strings.Join(v, "\n"))
		code = 1
	}
	if err := writeExamples(); err != nil {
		fmt.Fprintln(os.Stderr, "blackbox:", err)
		code = 1
	}
	if shared.srv != nil {
		if err := shared.srv.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "blackbox: shared server:", err)
			fmt.Fprintln(os.Stderr, shared.srv.stderr.tail(8000))
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// ---------------------------------------------------------------------------
// Servers

// syncBuffer is a goroutine-safe bytes.Buffer for a subprocess's stderr.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) tail(n int) string {
	s := b.String()
	if len(s) > n {
		s = "...\n" + s[len(s)-n:]
	}
	return s
}

// server is one running "svc serve" process with a database of its own.
type server struct {
	base    string // http://127.0.0.1:PORT
	addr    string
	dbURL   string
	cmd     *exec.Cmd
	stderr  *syncBuffer
	exited  chan struct{} // closed when the process has ended
	waitErr error         // valid once exited is closed

	stopOnce sync.Once
	stopErr  error
}

var dbSeq atomic.Int64

// launch starts "svc serve" with the given extra environment (an empty value
// unsets a variable) and waits until its health endpoint answers.
func launch(env map[string]string) (*server, error) {
	n := dbSeq.Add(1)
	dbURL := pgtest.URL(fmt.Sprintf("blackbox_%d", n))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := eventstore.DropDatabase(ctx, dbURL); err != nil {
		return nil, fmt.Errorf("drop %s: %w", dbURL, err)
	}
	s, err := launchOn(dbURL, env)
	if err != nil {
		dropDB(dbURL)
	}
	return s, err
}

// stop sends SIGTERM and requires exit status 0 within 30 s; the database is
// dropped afterwards. Later calls return the first result.
func (s *server) stop() error {
	s.stopOnce.Do(func() {
		defer dropDB(s.dbURL)
		defer s.keepLog()
		s.terminate()
	})
	return s.stopErr
}

// terminate sends SIGTERM and records in stopErr anything but an exit
// with status 0 within 30 s.
func (s *server) terminate() {
	select {
	case <-s.exited:
		s.stopErr = fmt.Errorf("svc serve had already exited (%v)", s.waitErr)
		return
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.stopErr = fmt.Errorf("SIGTERM: %w", err)
		return
	}
	select {
	case <-s.exited:
		if s.waitErr != nil {
			s.stopErr = fmt.Errorf("svc serve did not exit 0 after SIGTERM: %v", s.waitErr)
		}
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		s.stopErr = errors.New("svc serve did not exit within 30 s of SIGTERM")
	}
}

// keepLog writes the server's log to $BLACKBOX_LOG_DIR/<database>.log when
// that variable names a directory (for diagnosing failures).
func (s *server) keepLog() {
	dir := os.Getenv("BLACKBOX_LOG_DIR")
	if dir == "" {
		return
	}
	name := s.dbURL[strings.LastIndex(s.dbURL, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	_ = os.WriteFile(filepath.Join(dir, name+".log"), []byte(s.stderr.String()), 0o644)
}

// startServer starts a server for one test; it is stopped (and must exit 0)
// and its database dropped when the test ends.
func startServer(t *testing.T, env map[string]string) *server {
	t.Helper()
	s, err := launch(env)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("stop server: %v\n%s", err, s.stderr.tail(8000))
		} else if t.Failed() {
			t.Logf("server log (tail):\n%s", s.stderr.tail(6000))
		}
	})
	return s
}

var shared struct {
	once sync.Once
	srv  *server
	err  error
}

// sharedServer is one server with default settings reused by the tests that
// do not need a configuration or a lifetime of their own. TestMain stops it.
func sharedServer(t *testing.T) *server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = launch(nil) })
	if shared.err != nil {
		t.Fatalf("start shared server: %v", shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shared server log (tail):\n%s", shared.srv.stderr.tail(6000))
		}
	})
	return shared.srv
}

func dropDB(url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = eventstore.DropDatabase(ctx, url)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// childEnv is the test's environment without anything that configures svc,
// plus vars (an empty value leaves the variable unset).
func childEnv(vars map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SVC_") || strings.HasPrefix(k, "STRIPE_") || k == "DATABASE_URL" || k == "REDIS_URL" {
			continue
		}
		out = append(out, kv)
	}
	if _, set := vars["SVC_SMTP_URL"]; !set && mailpit.smtp != "" {
		out = append(out, "SVC_SMTP_URL="+mailpit.smtp)
	}
	out = append(out, stripeEnv(vars)...)
	for k, v := range vars {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ---------------------------------------------------------------------------
// HTTP

var (
	reqIDPattern = regexp.MustCompile(`^req_[0-9a-f]{24}$`)
	uuidPattern  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	httpClient   = &http.Client{Timeout: 20 * time.Second}
)

// response is a finished HTTP exchange.
type response struct {
	Status    int
	Header    http.Header
	Raw       []byte
	Body      map[string]any // nil unless the body is a JSON object
	RequestID string
}

// req describes a request; Body is sent as-is (string or []byte) or
// JSON-encoded.
type req struct {
	Method  string
	Path    string
	Key     string // x-api-key
	XFF     string // X-Forwarded-For
	Header  map[string]string
	Body    any
	NoCheck bool // skip the generic request-id / envelope checks
}

// do sends r and checks what every answer must satisfy: an X-Request-Id of
// the form req_ + 24 hex, and for errors the envelope
// {error:{code, message, request_id}} carrying that same id.
func (s *server) do(t testing.TB, r req) *response {
	t.Helper()
	res, err := s.try(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	if !r.NoCheck {
		checkCommon(t, r, res)
	}
	reportContract(t, res.RequestID) // contract_test.go
	return res
}

func (s *server) try(r req) (*response, error) {
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequest(method, s.base+r.Path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		hr.Header.Set("x-api-key", r.Key)
	}
	if r.XFF != "" {
		hr.Header.Set("X-Forwarded-For", r.XFF)
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	resp, err := httpClient.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw, RequestID: resp.Header.Get("X-Request-Id")}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("status %d: body is not JSON: %v: %s", resp.StatusCode, err, raw)
		}
		out.Body = m
	}
	return out, nil
}

func checkCommon(t testing.TB, r req, res *response) {
	t.Helper()
	if !reqIDPattern.MatchString(res.RequestID) {
		t.Errorf("%s %s: X-Request-Id %q does not match %s", r.Method, r.Path, res.RequestID, reqIDPattern)
	}
	if res.Status >= 400 {
		if res.Body == nil {
			t.Fatalf("%s %s: status %d with a body that is not a JSON object: %q", r.Method, r.Path, res.Status, res.Raw)
		}
		if code, ok := res.Body["error"].(string); ok && isSuitePath(r.Path) {
			// spec C's envelope: {error, message, request_id, status, ...}
			if code == "" || res.Body["message"] == "" || res.Body["request_id"] != res.RequestID || fmt.Sprint(res.Body["status"]) != strconv.Itoa(res.Status) {
				t.Errorf("%s %s: suite error envelope %s", r.Method, r.Path, res.Raw)
			}
			return
		}
		if msg, ok := res.Body["error"].(string); ok && isConnectionTest(r.Path) {
			// spec A's {error: <string>} of a failed connection test
			if msg == "" || res.Body["request_id"] != res.RequestID || res.Body["status"] != "error" {
				t.Errorf("%s %s: connection test failure %s", r.Method, r.Path, res.Raw)
			}
			return
		}
		env, ok := res.Body["error"].(map[string]any)
		if !ok {
			t.Fatalf("%s %s: status %d without an error envelope: %s", r.Method, r.Path, res.Status, res.Raw)
		}
		if c, ok := env["code"].(string); !ok || c == "" {
			t.Errorf("%s %s: error.code is %#v, want a non-empty string", r.Method, r.Path, env["code"])
		}
		if m, ok := env["message"].(string); !ok || m == "" {
			t.Errorf("%s %s: error.message is %#v, want a non-empty string", r.Method, r.Path, env["message"])
		}
		if id, _ := env["request_id"].(string); id != res.RequestID {
			t.Errorf("%s %s: error.request_id %q != X-Request-Id %q", r.Method, r.Path, id, res.RequestID)
		}
	}
}

// isConnectionTest reports whether path is a connection's test route.
func isConnectionTest(path string) bool {
	return strings.HasPrefix(path, "/api/rigor/connections/") && strings.HasSuffix(path, "/test")
}

// isSuitePath reports whether path is under a spec C product's prefix,
// whose errors use the suite's flat envelope.
func isSuitePath(path string) bool {
	if path == "/api/mcp" { // the suite's tool server
		return true
	}
	for _, p := range []string{"/api/dedupq/", "/api/burnrate/", "/api/qualitygate/", "/api/guardrail/", "/api/pitfalldb/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// wantError requires status and error.code.
func wantError(t testing.TB, res *response, status int, code string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Raw)
	}
	if got, ok := res.Body["error"].(string); ok { // the suite's envelope
		if got != code {
			t.Fatalf("error %q, want %q: %s", got, code, res.Raw)
		}
		return
	}
	env, _ := res.Body["error"].(map[string]any)
	if got, _ := env["code"].(string); got != code {
		t.Fatalf("error.code %q, want %q: %s", got, code, res.Raw)
	}
}

func wantStatus(t testing.TB, res *response, status int) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Raw)
	}
}

// ---------------------------------------------------------------------------
// JSON field helpers

func str(t testing.TB, m map[string]any, field string) string {
	t.Helper()
	v, ok := m[field]
	if !ok {
		t.Fatalf("field %q missing in %v", field, m)
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("field %q is %T %v, want a string", field, v, v)
	}
	return s
}

func integer(t testing.TB, m map[string]any, field string) int64 {
	t.Helper()
	v, ok := m[field]
	if !ok {
		t.Fatalf("field %q missing in %v", field, m)
	}
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("field %q is %T %v, want an integer", field, v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("field %q is %v, want an integer", field, n)
	}
	return i
}

func boolean(t testing.TB, m map[string]any, field string) bool {
	t.Helper()
	v, ok := m[field]
	if !ok {
		t.Fatalf("field %q missing in %v", field, m)
	}
	b, ok := v.(bool)
	if !ok {
		t.Fatalf("field %q is %T %v, want a boolean", field, v, v)
	}
	return b
}

func object(t testing.TB, m map[string]any, field string) map[string]any {
	t.Helper()
	v, ok := m[field]
	if !ok {
		t.Fatalf("field %q missing in %v", field, m)
	}
	o, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("field %q is %T %v, want an object", field, v, v)
	}
	return o
}

func uuidField(t testing.TB, m map[string]any, field string) string {
	t.Helper()
	s := str(t, m, field)
	if !uuidPattern.MatchString(s) {
		t.Fatalf("field %q = %q is not a UUID", field, s)
	}
	return s
}

// ---------------------------------------------------------------------------
// Signups

var ipSeq atomic.Int64

// nextIP returns a client address not used before in this run (198.18.0.0/15,
// the benchmarking range), so each signup stays under the per-IP limit.
func nextIP() string {
	n := ipSeq.Add(1)
	return fmt.Sprintf("198.18.%d.%d", n/250, n%250+1)
}

var emailSeq atomic.Int64

func uniqueEmail(tag string) string {
	return fmt.Sprintf("%s-%d-%s@example.com", tag, emailSeq.Add(1), randomHex(3))
}

// account is a signed-up organization.
type account struct {
	OrgID       string
	Key         string
	WorkspaceID string
	Email       string
}

// signup creates an organization from a fresh client IP (body may be nil)
// and checks that its key works at once.
func (s *server) signup(t testing.TB, body any) account {
	t.Helper()
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/keys", XFF: nextIP(), Body: body})
	wantStatus(t, res, http.StatusCreated)
	a := account{OrgID: str(t, res.Body, "org_id"), Key: str(t, res.Body, "key"), WorkspaceID: str(t, res.Body, "workspace_id")}
	if m, ok := body.(map[string]any); ok {
		a.Email, _ = m["email"].(string)
	}
	s.readYourWrites(t, res.RequestID, a.Key, 2500)
	return a
}

// readYourWrites requires that, right after the command answered with
// request id cmdID, GET /api/billing/balance with key answers 200 and want.
//
// One exception is tolerated and logged: the server itself reported that its
// read models lagged behind the command ("read model lagging behind a
// command", after its 3 s bound). The projections only read events below the
// cluster-wide xmin horizon (pg_snapshot_xmin), so a long transaction in any
// other database of the same PostgreSQL server (other test packages share
// it) holds them back; the balance must then appear within 30 s.
func (s *server) readYourWrites(t testing.TB, cmdID, key string, want int64) {
	t.Helper()
	res := s.do(t, req{Path: "/api/billing/balance", Key: key})
	if res.Status == http.StatusOK && checkBalanceBody(t, res) == want {
		return
	}
	if !s.lagged(cmdID) {
		t.Errorf("right after the command %s: balance answered %d %s, want 200 with balance %d", cmdID, res.Status, res.Raw, want)
		return
	}
	t.Logf("environment: the server reported read models lagging behind %s (xmin horizon held by another transaction on the cluster); waiting for balance %d", cmdID, want)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res = s.do(t, req{Path: "/api/billing/balance", Key: key})
		if res.Status == http.StatusOK && checkBalanceBody(t, res) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("balance answered %d %s 30 s after the command %s, want 200 with balance %d", res.Status, res.Raw, cmdID, want)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lagged reports whether the server logged that the read models had not
// caught up with the command of request id when it answered.
func (s *server) lagged(id string) bool {
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if !strings.Contains(line, id) {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "read model lagging behind a command" && m["request_id"] == id {
			return true
		}
	}
	return false
}

// balance reads GET /api/billing/balance and checks its shape.
func (s *server) balance(t testing.TB, key string) int64 {
	t.Helper()
	res := s.do(t, req{Path: "/api/billing/balance", Key: key})
	wantStatus(t, res, http.StatusOK)
	return checkBalanceBody(t, res)
}

func checkBalanceBody(t testing.TB, res *response) int64 {
	t.Helper()
	b := integer(t, res.Body, "balance")
	uuidField(t, res.Body, "org_id")
	if id := str(t, res.Body, "request_id"); id != res.RequestID {
		t.Errorf("balance: request_id %q != X-Request-Id %q", id, res.RequestID)
	}
	if used := integer(t, res.Body, "credits_used"); used != 0 {
		t.Errorf("balance: credits_used %d, want 0", used)
	}
	if rem := integer(t, res.Body, "credits_remaining"); rem != b {
		t.Errorf("balance: credits_remaining %d != balance %d", rem, b)
	}
	str(t, res.Body, "fallback_behavior")
	return b
}

// waitBalance polls the balance until it equals want (another process
// appended the events; the server's projections catch up asynchronously).
func (s *server) waitBalance(t testing.TB, key string, want int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := s.balance(t, key)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("balance %d, want %d within %v", got, want, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// verificationLink waits for the verification link of POST /api/keys
// mailed to email, through mailpit.
func (s *server) verificationLink(t testing.TB, email string) string {
	t.Helper()
	return mailedLink(t, email, regexp.MustCompile(`^Verify your email`), regexp.MustCompile(`https?://\S+/api/keys/verify-email\?token=\S+`))
}

// ---------------------------------------------------------------------------
// Operator CLI

type cliResult struct {
	Code   int
	Stdout string
	Stderr string
}

// cli runs the built binary with DATABASE_URL=dbURL and the given arguments.
func cli(t testing.TB, dbURL string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, svcBin, args...)
	cmd.Env = childEnv(map[string]string{"DATABASE_URL": dbURL})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	default:
		t.Fatalf("svc %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("svc %s: did not finish within 60 s", strings.Join(args, " "))
	}
	return res
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
}

// ---------------------------------------------------------------------------
// Workflow execution helpers

// testPoolConns bounds each test server's database pool (16 by default):
// the parallel tests run several servers, clusters of three among them,
// beside the other packages' tests, on one PostgreSQL with 100
// connections.
const testPoolConns = "10"

// serverURL is dbURL with the test servers' pool bound, unless it sets one.
func serverURL(dbURL string) string {
	if strings.Contains(dbURL, "pool_max_conns") {
		return dbURL
	}
	sep := "?"
	if strings.Contains(dbURL, "?") {
		sep = "&"
	}
	return dbURL + sep + "pool_max_conns=" + testPoolConns
}

// launchOn starts "svc serve" on the existing database dbURL (nothing is
// dropped first: a successor of a crashed server) with env as in launch,
// and waits until its health endpoint answers.
func launchOn(dbURL string, env map[string]string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	vars := map[string]string{
		"DATABASE_URL":        serverURL(dbURL),
		"SVC_ADDR":            addr,
		"SVC_TRUSTED_PROXIES": "127.0.0.1/32",
		"SVC_SECRET_KEY":      randomHex(32),
	}
	for k, v := range env {
		vars[k] = v
	}
	s := &server{base: "http://" + addr, addr: addr, dbURL: dbURL, stderr: &syncBuffer{}, exited: make(chan struct{})}
	serveContract(addr) // its answers are checked against the OpenAPI document
	s.cmd = exec.Command(svcBin, "serve")
	s.cmd.Env = childEnv(vars)
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("svc serve exited before answering (%v):\n%s", s.waitErr, s.stderr.tail(8000))
		default:
		}
		resp, err := client.Get(s.base + "/api/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				if err := loadContract(s.base); err != nil {
					_ = s.stop()
					return nil, err
				}
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			_ = s.stop()
			return nil, fmt.Errorf("svc serve did not answer GET /api/health within 60 s:\n%s", s.stderr.tail(8000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startServerOn is startServer on the existing database dbURL; the server is
// stopped (and must exit 0) and the database dropped when the test ends.
func startServerOn(t *testing.T, dbURL string, env map[string]string) *server {
	t.Helper()
	s, err := launchOn(dbURL, env)
	if err != nil {
		t.Fatalf("start server on %s: %v", dbURL, err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("stop server: %v\n%s", err, s.stderr.tail(8000))
		} else if t.Failed() {
			t.Logf("server log (tail):\n%s", s.stderr.tail(6000))
		}
	})
	return s
}

// kill ends the server with SIGKILL, a crash: no lease is handed back. Its
// database is kept for a successor (startServerOn) and dropped when the test
// ends; a later stop returns nil.
func (s *server) kill(t *testing.T) {
	t.Helper()
	s.stopOnce.Do(func() {
		if err := s.cmd.Process.Kill(); err != nil {
			t.Errorf("SIGKILL: %v", err)
		}
		<-s.exited
		s.keepLog()
	})
	t.Cleanup(func() { dropDB(s.dbURL) })
}

// execute posts body to POST /api/rigor/execute with key.
func (s *server) execute(t testing.TB, key string, body any) *response {
	t.Helper()
	return s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: key, Body: body})
}

// planStored plans body with key and returns the stored workflow's id.
func (s *server) planStored(t testing.TB, key string, body any) string {
	t.Helper()
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: key, Body: body})
	wantStatus(t, res, http.StatusOK)
	return str(t, object(t, res.Body, "plan"), "workflow_id")
}

// workflow reads GET /api/rigor/status/{id} and returns its workflow object.
// A 429 of the per-minute limit is waited out.
func (s *server) workflow(t testing.TB, key, id string) map[string]any {
	t.Helper()
	for {
		res := s.do(t, req{Path: "/api/rigor/status/" + id, Key: key})
		if res.Status == http.StatusTooManyRequests {
			time.Sleep(time.Second)
			continue
		}
		wantStatus(t, res, http.StatusOK)
		if !boolean(t, res.Body, "ok") {
			t.Fatalf("status of %s: %s", id, res.Raw)
		}
		return object(t, res.Body, "workflow")
	}
}

// waitWorkflow polls the status of workflow id until done accepts it, and
// returns that workflow object. The pause grows from 50 to 500 ms, so that a
// long wait stays well under the per-minute limit of the org.
func (s *server) waitWorkflow(t testing.TB, key, id string, within time.Duration, what string, done func(wf map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 50 * time.Millisecond
	for {
		wf := s.workflow(t, key, id)
		if done(wf) {
			return wf
		}
		if time.Now().After(deadline) {
			t.Fatalf("workflow %s: not %s within %v; last status: %v", id, what, within, wf)
		}
		time.Sleep(pause)
		pause = min(pause*3/2, 500*time.Millisecond)
	}
}

// poll sends r until done accepts the answer, and fails the test with
// failure's message when within runs out. The pause grows from 50 to
// 500 ms, so that a long wait stays well under the per-minute limit of the
// org, and a 429 waits the answer's retry_after before the next try.
func (s *server) poll(t testing.TB, r req, within time.Duration, done func(*response) bool, failure func(last *response) string) *response {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 50 * time.Millisecond
	for {
		res := s.do(t, r)
		if done(res) {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatal(failure(res))
		}
		wait := pause
		if res.Status == http.StatusTooManyRequests {
			if after, ok := res.Body["retry_after"].(float64); ok {
				wait = time.Duration(after) * time.Second
			}
		}
		time.Sleep(wait)
		pause = min(pause*3/2, 500*time.Millisecond)
	}
}

// terminalStatuses are the statuses nothing more happens after.
var terminalStatuses = map[string]bool{"completed": true, "completed_partial": true, "failed": true, "halted": true,
	"cancelled": true, "timed_out": true, "aborted": true}

// waitTerminal waits until workflow id has a terminal status.
func (s *server) waitTerminal(t testing.TB, key, id string, within time.Duration) map[string]any {
	t.Helper()
	return s.waitWorkflow(t, key, id, within, "terminal", func(wf map[string]any) bool {
		st, _ := wf["status"].(string)
		return terminalStatuses[st]
	})
}

// tailEvent is one line of "svc events tail".
type tailEvent struct {
	Type     string         `json:"type"`
	StreamID string         `json:"stream_id"`
	Version  int64          `json:"version"`
	Position int64          `json:"position"`
	Data     map[string]any `json:"data"`
	// RecordedAt is the database's clock.
	RecordedAt time.Time `json:"recorded_at"`
}

// orgEvents runs "svc events tail --org ORG" against dbURL and parses its
// JSON lines.
func orgEvents(t testing.TB, dbURL, orgID string) []tailEvent {
	t.Helper()
	out := cli(t, dbURL, "events", "tail", "--org", orgID)
	if out.Code != 0 {
		t.Fatalf("svc events tail --org %s: %s", orgID, out)
	}
	var events []tailEvent
	for i, line := range nonEmptyLines(out.Stdout) {
		var e tailEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("svc events tail: line %d is not JSON: %v: %q", i+1, err, line)
		}
		events = append(events, e)
	}
	return events
}

// countEvents counts the events of type typ.
func countEvents(events []tailEvent, typ string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// replayBilling requires "svc replay billing --org ORG" to exit 0.
func replayBilling(t testing.TB, dbURL, orgID string) {
	t.Helper()
	if out := cli(t, dbURL, "replay", "billing", "--org", orgID); out.Code != 0 {
		t.Errorf("svc replay billing --org %s: want exit 0: %s", orgID, out)
	}
}

// grant tops the org of a up by credits with "svc credits grant" and waits
// until the server's balance shows it; it returns the new balance.
func (s *server) grant(t testing.TB, a account, credits int64) int64 {
	t.Helper()
	before := s.balance(t, a.Key)
	if out := cli(t, s.dbURL, "credits", "grant", "--org", a.OrgID, "--credits", fmt.Sprint(credits), "--reason", "blackbox test"); out.Code != 0 {
		t.Fatalf("svc credits grant: %s", out)
	}
	s.waitBalance(t, a.Key, before+credits, 30*time.Second)
	return before + credits
}

// settledEvents returns the events of a's org (svc events tail --org) once
// everything appended before the call is visible: "events tail" reads below
// the cluster-wide snapshot xmin, so a transaction elsewhere on the
// PostgreSQL server can hold the newest events back for a moment. A stored
// plan made here is the barrier; its events are left out of the answer.
func (s *server) settledEvents(t testing.TB, a account) []tailEvent {
	t.Helper()
	barrier := "workflow-" + s.planStored(t, a.Key, map[string]any{"task_description": "Compare our SaaS pricing with three competitors for the board, barrier " + randomHex(4), "task_type": "competitive_analysis"})
	deadline := time.Now().Add(30 * time.Second)
	for {
		events := orgEvents(t, s.dbURL, a.OrgID)
		var out []tailEvent
		seen := false
		for _, e := range events {
			if e.StreamID == barrier {
				seen = true
				continue
			}
			out = append(out, e)
		}
		if seen {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("svc events tail --org %s does not show the barrier %s within 30 s", a.OrgID, barrier)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
