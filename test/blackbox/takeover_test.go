package blackbox

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/test/fakellm"
)

// holdingReceiver is an HTTPS webhook endpoint that holds the first
// request of the first delivery hold accepts unanswered until its sender
// goes away (or 20 s pass), and answers every other request 204. It notes
// when each request of each delivery (X-Svc-Delivery) arrived.
type holdingReceiver struct {
	srv  *httptest.Server
	hold func(event map[string]any) bool
	held chan string // the delivery id of the request held, once

	mu       sync.Mutex
	holding  bool
	arrivals map[string][]time.Time
}

func newHoldingReceiver(t *testing.T, hold func(event map[string]any) bool) (*holdingReceiver, string) {
	rc := &holdingReceiver{hold: hold, held: make(chan string, 1), arrivals: map[string][]time.Time{}}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev map[string]any
		_ = json.Unmarshal(body, &ev)
		id := r.Header.Get("X-Svc-Delivery")
		rc.mu.Lock()
		rc.arrivals[id] = append(rc.arrivals[id], time.Now())
		hold := !rc.holding && rc.hold(ev)
		rc.holding = rc.holding || hold
		rc.mu.Unlock()
		if !hold {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		rc.held <- id
		select {
		case <-r.Context().Done(): // its sender was killed
		case <-time.After(20 * time.Second):
		}
		http.Error(w, "held", http.StatusServiceUnavailable)
	}))
	t.Cleanup(rc.srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc, ca
}

// arrived lists when the requests of delivery id arrived.
func (rc *holdingReceiver) arrived(id string) []time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]time.Time(nil), rc.arrivals[id]...)
}

// TestTakeoverNewAttemptAndDeliveries: three "svc serve" on one database
// (SVC_WORKER_LEASE=2s).
//
// The instance running a workflow's last step (Synthesis, its provider
// call hanging) is killed with SIGKILL between the step's StepStarted and
// its outcome; another takes the run over about a lease later and starts
// the step again as attempt 2, so every event of the workflow's SSE
// stream has an id of its own (no version suffix needed) and a client
// reconnecting with each id is replayed exactly the events after it
// (decision 129).
//
// Meanwhile the instance sending the workflow's workflow_completed delivery
// (the receiver holding the request) is killed in the middle of the
// attempt, the cluster otherwise idle: the last instance sends the
// delivery again about a lease after the kill, as the workflow was taken
// over, whatever wakes it or not: the same lease rules, through the
// shared job runner (decision 130).
func TestTakeoverNewAttemptAndDeliveries(t *testing.T) {
	t.Parallel()
	const lease = 2 * time.Second
	// the lease, its expiry timed, a claim, one call: within twice the
	// lease (a runner that waits for its poll or a wake-up takes up to
	// its poll, 10 s for deliveries, 30 s for workflows)
	most := 2 * lease
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Match: "kind=synthesis", Delay: time.Minute, Times: 1}) // the first Synthesis call hangs until its caller dies
	rc, ca := newHoldingReceiver(t, func(ev map[string]any) bool { return ev["event"] == "workflow_completed" })
	env := map[string]string{
		"SVC_LLM_BASE_URL":       llm.URL(),
		"SVC_SECRET_KEY":         randomHex(32),
		"SVC_WORKER_LEASE":       lease.String(),
		"SVC_ALLOW_PRIVATE_URLS": "true",
		"SVC_OUTBOUND_CA_FILE":   ca,
	}
	c := startCluster(t, 3, true, env)
	db, err := pgx.Connect(context.Background(), c.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	a, _ := signupOn(t, c.nodes[0])

	res := c.nodes[0].execute(t, a.Key, competitive("takeover "+randomHex(4), map[string]any{
		"delivery": map[string]any{"method": "webhook", "webhook_url": rc.srv.URL + "/hooks/takeover"}}))
	id, _ := wantQueued(t, c.nodes[0], res, "webhook")

	// 1. The workflow's instance killed in its Synthesis call.
	deadline := time.Now().Add(30 * time.Second)
	for llm.Calls("kind=synthesis") == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no Synthesis call within 30 s: %v", llm.CallsByKind())
		}
		time.Sleep(20 * time.Millisecond)
	}
	victim := holderOf(t, c, db, "workflow", id)
	killed := time.Now()
	c.kill(t, victim)
	_, s := c.pick(-1)
	wf := s.waitTerminal(t, a.Key, id, 30*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("after the takeover: %v", wf)
	}
	var resumed *time.Time
	if err := db.QueryRow(context.Background(), `SELECT min(recorded_at) FROM events WHERE stream_id = $1 AND type = 'WorkflowStarted' AND (data->>'resumed')::boolean`,
		"workflow-"+id).Scan(&resumed); err != nil {
		t.Fatal(err)
	}
	if resumed == nil {
		t.Fatalf("no resumed WorkflowStarted: the log\n%s", streamLog(t, db, "workflow-"+id))
	}
	took := resumed.Sub(killed)
	if took > most {
		t.Errorf("the workflow was taken over %v after the kill, want within about the lease (%v)", took.Round(time.Millisecond), most)
	}

	// 2. The instance sending workflow_completed killed in its attempt
	// (before the held request times out).
	var held string
	select {
	case held = <-rc.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the workflow_completed delivery did not reach the receiver within 30 s")
	}
	sender := holderOf(t, c, db, "delivery", held)
	killed = time.Now()
	c.kill(t, sender)
	var again time.Time
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got := rc.arrived(held); len(got) > 1 {
			again = got[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s did not reach the receiver again within 30 s of the kill", held)
		}
	}
	sent := again.Sub(killed)
	t.Logf("SVC_WORKER_LEASE=%v: the workflow taken over %v after its instance was killed, the delivery sent again %v after its sender was",
		lease, took.Round(time.Millisecond), sent.Round(time.Millisecond))
	if sent > most {
		t.Errorf("the delivery was sent again %v after the kill, want within about the lease (%v), as the workflow (%v)", sent.Round(time.Millisecond), most, took.Round(time.Millisecond))
	}
	if sent < lease/2 {
		t.Errorf("the delivery was sent again %v after the kill, while the killed instance's lease was live", sent.Round(time.Millisecond))
	}
	// the delivery's log reads delivered
	_, s = c.pick(-1)
	s.poll(t, req{Path: "/api/rigor/webhooks/deliveries?workflow_id=" + id, Key: a.Key}, 20*time.Second, func(res *response) bool {
		list, _ := res.Body["deliveries"].([]any)
		for _, raw := range list {
			if d, _ := raw.(map[string]any); res.Status == http.StatusOK && d["delivery_id"] == held {
				return d["status"] == "delivered"
			}
		}
		return false
	}, func(last *response) string {
		return fmt.Sprintf("delivery %s is not delivered in the delivery log within 20 s (arrivals at the receiver %v): %d %.2000s", held, rc.arrived(held), last.Status, last.Raw)
	})

	// 3. The stream: the Synthesis step's starts are attempts 1 (cut by the
	// kill) and 2, every id its own.
	synthesis := int(integer(t, wf, "total_steps"))
	full := progress(s.openSSE(t, req{Path: "/api/rigor/status/" + id, Key: a.Key, Header: map[string]string{"Accept": "text/event-stream"}}).rest(t, 20*time.Second))
	var starts []string
	ids := map[string]int{}
	for _, e := range full {
		if ids[e.ID]++; ids[e.ID] > 1 {
			t.Errorf("two events with the SSE id %s: %s", e.ID, names(full))
		}
		if m := strings.TrimPrefix(e.ID, id+":"); strings.Contains(m, ".v") {
			t.Errorf("event %s has the id %s: a version suffix, an id repeated by the log", e.Event, e.ID)
		}
		if n, _ := e.Data["step"].(json.Number); e.Event == "step_started" && n.String() == fmt.Sprint(synthesis) {
			starts = append(starts, fmt.Sprintf("%s attempt %v", strings.TrimPrefix(e.ID, id+":"), e.Data["attempt"]))
		}
	}
	want := []string{fmt.Sprintf("step-%d.started.a1 attempt 1", synthesis), fmt.Sprintf("step-%d.started.a2 attempt 2", synthesis)}
	if fmt.Sprint(starts) != fmt.Sprint(want) {
		t.Errorf("the Synthesis step's starts %v, want %v (the one the kill cut, then a new attempt); the stream %s; the log\n%s",
			starts, want, names(full), streamLog(t, db, "workflow-"+id))
	}
	// a reconnect with each id replays exactly the events after it
	for i, e := range full {
		var conn *sseConn
		for {
			_, s := c.pick(-1)
			var res *response
			conn, res = s.trySSE(t, req{Path: "/api/rigor/status/" + id, Key: a.Key, Header: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": e.ID}})
			if conn != nil {
				break
			}
			if res.Status != http.StatusTooManyRequests {
				t.Fatalf("reconnect with %s: %d %s", e.ID, res.Status, res.Raw)
			}
			time.Sleep(time.Second)
		}
		if got, want := names(progress(conn.rest(t, 20*time.Second))), names(full[i+1:]); got != want {
			t.Errorf("reconnect with Last-Event-ID %s: replayed %s, want %s", e.ID, got, want)
		}
	}
}

// holderOf is the live instance of c holding the lease of job id of kind.
func holderOf(t *testing.T, c *cluster, db *pgx.Conn, kind, id string) int {
	t.Helper()
	for i, s := range c.nodes {
		if c.isDead(i) {
			continue
		}
		for _, job := range leasesOf(t, db, s, kind) {
			if job == id {
				return i
			}
		}
	}
	t.Fatalf("no live instance holds the lease of %s %s", kind, id)
	return -1
}
