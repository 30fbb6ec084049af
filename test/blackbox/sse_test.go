package blackbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"svc/test/fakellm"
)

// ---------------------------------------------------------------------------
// A server-sent events client

// sseMsg is one event of a stream.
type sseMsg struct {
	ID    string
	Event string
	Data  map[string]any
	Raw   string // the data line(s) as sent
}

// sseConn is an open event stream.
type sseConn struct {
	Header    http.Header
	RequestID string
	msgs      chan sseMsg
	cancel    context.CancelFunc
	opened    time.Time
	closedAt  time.Time // set before msgs is closed
}

// sseClient has no overall timeout: streams last as long as the server says.
var sseClient = &http.Client{}

// openSSE sends r and requires a 200 event stream; its events are read in
// the background. The stream is closed when the test ends.
func (s *server) openSSE(t testing.TB, r req) *sseConn {
	t.Helper()
	c, res := s.trySSE(t, r)
	if c == nil {
		t.Fatalf("%s %s: want a 200 event stream, got %d %s: %s", r.Method, r.Path, res.Status, res.Header.Get("Content-Type"), res.Raw)
	}
	return c
}

// trySSE is openSSE that returns the answer instead when it is not an
// event stream.
func (s *server) trySSE(t testing.TB, r req) (*sseConn, *response) {
	t.Helper()
	c, out, err := openStream(s, r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	if c == nil {
		if tr := bytes.TrimSpace(out.Raw); len(tr) > 0 && tr[0] == '{' {
			dec := json.NewDecoder(bytes.NewReader(out.Raw))
			dec.UseNumber()
			_ = dec.Decode(&out.Body)
		}
		if !r.NoCheck {
			checkCommon(t, r, out)
		}
		return nil, out
	}
	t.Cleanup(c.cancel)
	return c, nil
}

// read parses the stream into c.msgs until it ends.
func (c *sseConn) read(body io.ReadCloser) {
	defer body.Close()
	defer close(c.msgs)
	defer func() { c.closedAt = time.Now() }()
	br := bufio.NewReaderSize(body, 64*1024)
	var cur sseMsg
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if cur.Event != "" || len(data) > 0 {
				cur.Raw = strings.Join(data, "\n")
				dec := json.NewDecoder(strings.NewReader(cur.Raw))
				dec.UseNumber()
				_ = dec.Decode(&cur.Data)
				c.msgs <- cur
			}
			cur, data = sseMsg{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id:"):
			cur.ID = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " ")
		case strings.HasPrefix(line, "event:"):
			cur.Event = strings.TrimPrefix(strings.TrimPrefix(line, "event:"), " ")
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// rest reads every event until the server ends the stream.
func (c *sseConn) rest(t testing.TB, within time.Duration) []sseMsg {
	t.Helper()
	deadline := time.After(within)
	var out []sseMsg
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return out
			}
			out = append(out, m)
		case <-deadline:
			t.Fatalf("the stream did not end within %v; events so far: %s", within, names(out))
		}
	}
}

// names lists "event(id)" of events, for messages.
func names(evs []sseMsg) string {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s(%s)", e.Event, e.ID)
	}
	return "[" + b.String() + "]"
}

// progress drops heartbeats and stream timeouts: what remains is the
// workflow's own events.
func progress(evs []sseMsg) []sseMsg {
	var out []sseMsg
	for _, e := range evs {
		if e.Event != "processing" && e.Event != "stream_timeout" {
			out = append(out, e)
		}
	}
	return out
}

// wantSSEHeaders requires spec A's headers of an execute event stream.
func wantSSEHeaders(t testing.TB, c *sseConn) string {
	t.Helper()
	h := c.Header
	if got := h.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type %q, want text/event-stream", got)
	}
	if got := h.Get("Cache-Control"); got != "no-cache, no-transform" {
		t.Errorf("Cache-Control %q, want \"no-cache, no-transform\"", got)
	}
	if got := h.Get("X-Accel-Buffering"); got != "no" {
		t.Errorf("X-Accel-Buffering %q, want no", got)
	}
	if !reqIDPattern.MatchString(c.RequestID) {
		t.Errorf("X-Request-Id %q", c.RequestID)
	}
	id := h.Get("X-Svc-Workflow-Id")
	if !workflowID.MatchString(id) {
		t.Fatalf("X-Svc-Workflow-Id %q is not a workflow id", id)
	}
	return id
}

// wantRun requires the events of a whole run of workflow id with steps
// steps, in spec A's order with decision 40's ids: workflow_started, each
// step's step_started and step_completed, quality_review and
// workflow_completed.
func wantRun(t testing.TB, id string, steps int, evs []sseMsg) {
	t.Helper()
	type ev struct{ name, marker string }
	want := []ev{{"workflow_started", "started"}}
	for n := 1; n <= steps; n++ {
		want = append(want, ev{"step_started", fmt.Sprintf("step-%d.started.a1", n)}, ev{"step_completed", fmt.Sprintf("step-%d.completed", n)})
	}
	want = append(want, ev{"quality_review", "review"}, ev{"workflow_completed", "completed"})
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %s", len(evs), len(want), names(evs))
	}
	for i, w := range want {
		if evs[i].Event != w.name || evs[i].ID != id+":"+w.marker {
			t.Fatalf("event %d is %s id %q, want %s id %q; all: %s", i, evs[i].Event, evs[i].ID, w.name, id+":"+w.marker, names(evs))
		}
		if got, _ := evs[i].Data["workflow_id"].(string); got != id {
			t.Errorf("event %d (%s): data.workflow_id %q, want %s", i, evs[i].Event, got, id)
		}
	}
}

// ---------------------------------------------------------------------------
// Tests

// The default delivery: the stream of a whole run, then reconnections with
// Last-Event-ID (resent execute, and GET status with Accept:
// text/event-stream) that replay only what followed and start no second run.
func TestExecuteSSE(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	body := process("", nil)
	c := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: body})
	id := wantSSEHeaders(t, c)
	evs := c.rest(t, 30*time.Second)
	if len(evs) == 0 {
		t.Fatal("empty stream")
	}
	started := evs[0]
	if started.Event != "workflow_started" {
		t.Fatalf("first event %s, want workflow_started: %s", started.Event, names(evs))
	}
	steps := int(integer(t, started.Data, "total_steps"))
	if list, _ := started.Data["steps"].([]any); len(list) != steps || steps < 2 {
		t.Fatalf("workflow_started: steps %v, total_steps %d", started.Data["steps"], steps)
	}
	if !boolean(t, started.Data, "free") || str(t, started.Data, "delivery_mode") != "sse" || str(t, started.Data, "task_type") != "process_improvement" {
		t.Errorf("workflow_started data %s", started.Raw)
	}
	if _, ok := started.Data["warnings"]; ok {
		t.Errorf("workflow_started carries warnings though there are none: %s", started.Raw)
	}
	wantRun(t, id, steps, evs)
	done := evs[len(evs)-1].Data
	if str(t, done, "status") != "completed" || integer(t, done, "credits_used") != 0 || integer(t, done, "actual_steps_executed") != int64(steps) {
		t.Errorf("workflow_completed data %v", done)
	}
	deliverable := object(t, done, "deliverable")
	if str(t, deliverable, "title") == "" || len(deliverable["sections"].([]any)) == 0 {
		t.Errorf("workflow_completed deliverable %v", deliverable)
	}
	review := evs[len(evs)-2].Data
	if _, err := review["score"].(json.Number).Float64(); err != nil || str(t, review, "summary") == "" {
		t.Errorf("quality_review data %v", review)
	}
	for _, e := range evs {
		if e.Event == "step_completed" {
			str(t, e.Data, "summary")
			integer(t, e.Data, "credits")
			integer(t, e.Data, "credits_live")
		}
	}
	if st := s.workflow(t, a.Key, id); st["status"] != "completed" || st["delivery_mode"] != "sse" {
		t.Errorf("status after the stream: %v", st)
	}

	// reconnect by resending execute with Last-Event-ID: only what followed
	for _, k := range []int{0, 3, len(evs) - 2} {
		last := evs[k].ID
		rc := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: body, Header: map[string]string{"Last-Event-ID": last}})
		if got := wantSSEHeaders(t, rc); got != id {
			t.Fatalf("reconnect after %s: X-Svc-Workflow-Id %s, want %s (a second workflow?)", last, got, id)
		}
		again := rc.rest(t, 30*time.Second)
		if names(again) != names(evs[k+1:]) {
			t.Errorf("reconnect after %s replayed %s, want %s", last, names(again), names(evs[k+1:]))
		}
	}
	// the same with GET status and Accept: text/event-stream
	last := evs[4].ID
	gc := s.openSSE(t, req{Path: "/api/rigor/status/" + id, Key: a.Key, Header: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": last}})
	if got := gc.Header.Get("X-Svc-Workflow-Id"); got != id {
		t.Errorf("GET status stream: X-Svc-Workflow-Id %q, want %s", got, id)
	}
	if again := gc.rest(t, 30*time.Second); names(again) != names(evs[5:]) {
		t.Errorf("GET status stream after %s replayed %s, want %s", last, names(again), names(evs[5:]))
	}
	// the last id: nothing more to say
	if again := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: body,
		Header: map[string]string{"Last-Event-ID": evs[len(evs)-1].ID}}).rest(t, 30*time.Second); len(again) != 0 {
		t.Errorf("reconnect after the terminal event replayed %s", names(again))
	}
	// an unknown marker replays everything (decision 40)
	if again := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: body,
		Header: map[string]string{"Last-Event-ID": id + ":no-such-marker"}}).rest(t, 30*time.Second); names(again) != names(evs) {
		t.Errorf("reconnect with an unknown marker replayed %s, want everything", names(again))
	}
	// an id of another workflow is an unknown id for this one: everything
	second := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: process("second", nil)})
	id2 := wantSSEHeaders(t, second)
	evs2 := second.rest(t, 30*time.Second)
	if len(evs2) == 0 || evs2[len(evs2)-1].Event != "workflow_completed" {
		t.Fatalf("second workflow's stream %s", names(evs2))
	}
	foreignID := id2 + ":step-2.completed"
	if again := s.openSSE(t, req{Path: "/api/rigor/status/" + id, Key: a.Key, Header: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": foreignID}}).rest(t, 30*time.Second); names(again) != names(evs) {
		t.Errorf("GET status stream of %s with Last-Event-ID %s (another workflow) replayed %s, want everything", id, foreignID, names(again))
	}
	// another org cannot attach to the stream
	other := s.signup(t, nil)
	_, res := s.trySSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: other.Key, Body: body, Header: map[string]string{"Last-Event-ID": last}})
	if res == nil {
		t.Fatal("another org's key attached to the stream")
	}
	wantError(t, res, http.StatusNotFound, "not_found")
	_, res = s.trySSE(t, req{Path: "/api/rigor/status/" + id, Key: other.Key, Header: map[string]string{"Accept": "text/event-stream"}})
	if res == nil {
		t.Fatal("another org's key attached to the status stream")
	}
	wantError(t, res, http.StatusNotFound, "not_found")

	// no second workflow was created or queued
	events := s.settledEvents(t, a)
	if n, q := countEvents(events, "WorkflowPlanned"), countEvents(events, "WorkflowQueued"); n != 2 || q != 2 {
		t.Errorf("the org has %d planned and %d queued workflows after the reconnections, want 2 and 2 (the second workflow)", n, q)
	}
	if countEvents(s.settledEvents(t, other), "WorkflowQueued") != 0 {
		t.Error("the other org's attempts queued a workflow")
	}
}

// Heartbeats, the stream timeout while the run goes on, and reconnecting
// until the run ends: with a slow provider, SVC_SSE_HEARTBEAT=200ms and
// SVC_SSE_TIMEOUT=1s.
func TestSSEHeartbeatTimeoutReconnect(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	t.Cleanup(llm.Close)
	llm.AddRule(fakellm.Rule{Delay: 400 * time.Millisecond})
	s := startServer(t, map[string]string{"SVC_LLM_BASE_URL": llm.URL(), "SVC_SSE_HEARTBEAT": "200ms", "SVC_SSE_TIMEOUT": "1s"})
	a := s.signup(t, nil)
	body := map[string]any{"task_description": "Compare our SaaS pricing with three competitors for the board", "task_type": "competitive_analysis"}

	c := s.openSSE(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: body})
	id := wantSSEHeaders(t, c)
	first := c.rest(t, 10*time.Second)
	took := c.closedAt.Sub(c.opened)
	if took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("the stream closed after %v, want about SVC_SSE_TIMEOUT=1s", took)
	}
	if len(first) < 3 || first[0].Event != "workflow_started" {
		t.Fatalf("first stream: %s", names(first))
	}
	timeout := first[len(first)-1]
	if timeout.Event != "stream_timeout" {
		t.Fatalf("the first stream ends with %s, want stream_timeout: %s", timeout.Event, names(first))
	}
	if got := str(t, timeout.Data, "poll_url"); got != s.base+"/api/rigor/status/"+id {
		t.Errorf("stream_timeout poll_url %q", got)
	}
	if str(t, timeout.Data, "workflow_id") != id || str(t, timeout.Data, "message") == "" {
		t.Errorf("stream_timeout data %s", timeout.Raw)
	}
	beats, lastID := 0, ""
	for _, e := range first {
		if !strings.HasPrefix(e.ID, id+":") || e.ID == id+":" {
			t.Errorf("event %s has id %q, want %s:{marker}", e.Event, e.ID, id)
		}
		switch e.Event {
		case "processing":
			beats++
			if e.ID != lastID {
				t.Errorf("heartbeat id %q, want the last event's id %q", e.ID, lastID)
			}
			if str(t, e.Data, "workflow_id") != id || str(t, e.Data, "status") == "" {
				t.Errorf("heartbeat data %s", e.Raw)
			}
			integer(t, e.Data, "current_step")
		case "stream_timeout":
			if e.ID != lastID {
				t.Errorf("stream_timeout id %q, want the last event's id %q", e.ID, lastID)
			}
		default:
			lastID = e.ID
		}
	}
	if beats < 2 {
		t.Errorf("%d heartbeats in a second at SVC_SSE_HEARTBEAT=200ms: %s", beats, names(first))
	}
	// the run went on server-side
	if st := s.workflow(t, a.Key, id); terminalStatuses[st["status"].(string)] {
		t.Fatalf("the run ended before the stream timed out (%v): make the provider slower", st["status"])
	}

	// reconnect until the run ends, alternating resent execute and GET status
	got := progress(first)
	for i := 0; ; i++ {
		if i > 20 {
			t.Fatalf("no workflow_completed after %d reconnections: %s", i, names(got))
		}
		last := got[len(got)-1].ID
		r := req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: body, Header: map[string]string{"Last-Event-ID": last}}
		if i%2 == 1 {
			r = req{Path: "/api/rigor/status/" + id, Key: a.Key, Header: map[string]string{"Accept": "text/event-stream", "Last-Event-ID": last}}
		}
		rc := s.openSSE(t, r)
		if h := rc.Header.Get("X-Svc-Workflow-Id"); h != id {
			t.Fatalf("reconnection %d: X-Svc-Workflow-Id %q, want %s", i, h, id)
		}
		more := rc.rest(t, 10*time.Second)
		if len(more) > 0 && more[0].Event == "processing" && more[0].ID != last {
			t.Errorf("reconnection %d: first heartbeat id %q, want %q", i, more[0].ID, last)
		}
		got = append(got, progress(more)...)
		if got[len(got)-1].Event == "workflow_completed" {
			break
		}
	}
	wf := s.waitTerminal(t, a.Key, id, 20*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("status %v", wf)
	}
	wantRun(t, id, int(integer(t, wf, "total_steps")), got)
	if n := countEvents(s.settledEvents(t, a), "WorkflowQueued"); n != 1 {
		t.Errorf("%d workflows queued after the reconnections, want 1", n)
	}
}
