package blackbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hookReceiver is a local HTTPS receiver of workspace webhook deliveries
// whose answer a test chooses per request.
type hookReceiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	got      []delivery
	answered []int // the status of each of got
	status   func(r *http.Request, attempt int) int
	seen     map[string]int // requests per X-Svc-Delivery
}

// newHookReceiver starts a receiver answering status(request, the
// request's number for its delivery id) and writes its certificate to a
// CA file for SVC_OUTBOUND_CA_FILE.
func newHookReceiver(t *testing.T, status func(r *http.Request, attempt int) int) (*hookReceiver, string) {
	t.Helper()
	rc := &hookReceiver{status: status, seen: map[string]int{}}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev map[string]any
		_ = json.Unmarshal(body, &ev)
		rc.mu.Lock()
		id := r.Header.Get("X-Svc-Delivery")
		rc.seen[id]++
		status := rc.status(r, rc.seen[id])
		rc.got = append(rc.got, delivery{Header: r.Header.Clone(), Body: body, Event: ev})
		rc.answered = append(rc.answered, status)
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc, ca
}

// requests returns the requests so far.
func (rc *hookReceiver) requests() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// accepted returns the requests of workflow wf answered 2xx, by delivery
// id; a delivery accepted twice fails the test.
func (rc *hookReceiver) accepted(t *testing.T, wf string) map[string]delivery {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string]delivery{}
	for i, d := range rc.got {
		if d.Event["workflow_id"] != wf || rc.answered[i] >= 300 {
			continue
		}
		id := d.Header.Get("X-Svc-Delivery")
		if _, twice := out[id]; twice {
			t.Fatalf("delivery %s accepted twice", id)
		}
		out[id] = d
	}
	return out
}

// signatures are the v1 values of an X-Svc-Signature header, and its t.
func signatures(header string) (ts string, v1 []string) {
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = append(v1, v)
		}
	}
	return ts, v1
}

// signedBy reports whether one of d's signatures is secret's, by the
// README's scheme: hex HMAC-SHA256(secret, t "." raw body).
func signedBy(secret string, d delivery) bool {
	ts, v1 := signatures(d.Header.Get("X-Svc-Signature"))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(d.Body)))
	want := hex.EncodeToString(mac.Sum(nil))
	for _, s := range v1 {
		if ts != "" && hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

// runWorkflow executes a polling workflow with key and waits for its end.
func runWorkflow(t *testing.T, s *server, key, tag string) (string, map[string]any) {
	t.Helper()
	res := s.execute(t, key, process(tag, map[string]any{"delivery": polling}))
	wantStatus(t, res, http.StatusOK)
	id := str(t, res.Body, "workflow_id")
	return id, s.waitTerminal(t, key, id, 90*time.Second)
}

// TestWorkspaceWebhookDeliveries: a workspace's workflow events reach the
// endpoints subscribed to them through svc serve's delivery engine: signed
// with the endpoint's secret, the same id on a retry after a 500 (each
// attempt an event in the log), the documented payload; an endpoint of
// other events gets none. Rotating the secret signs with both during the
// overlap; an endpoint whose deliveries keep failing is disabled, its
// organization notified, and a PATCH turns it on again.
func TestWorkspaceWebhookDeliveries(t *testing.T) {
	t.Parallel()
	rc, ca := newHookReceiver(t, func(r *http.Request, n int) int {
		switch {
		case r.URL.Path == "/refuse":
			return http.StatusBadRequest // never retried
		case n == 1:
			return http.StatusInternalServerError // retried
		}
		return http.StatusNoContent
	})
	s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": ca,
		"SVC_WEBHOOK_BACKOFF_SCALE": "0.01", "SVC_WEBHOOK_DISABLE_AFTER": "3"})
	p := s.signUpPerson(t, "hook-deliveries")
	setTier(t, s, p, "pro")
	if r := cli(t, s.dbURL, "credits", "grant", "--org", p.OrgID, "--credits", "20000", "--reason", "three runs"); r.Code != 0 {
		t.Fatalf("svc credits grant: %s", r)
	}
	base := "/api/workspaces/" + p.WorkspaceID + "/webhooks"
	res := s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(),
		Body: map[string]any{"url": rc.srv.URL + "/steps", "events": []any{"step_completed", "workflow_completed"}}})
	wantStatus(t, res, http.StatusCreated)
	steps, secret := str(t, res.Body, "id"), str(t, res.Body, "secret")
	res = s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(),
		Body: map[string]any{"url": rc.srv.URL + "/failures", "events": []any{"workflow_failed", "timed_out"}}})
	wantStatus(t, res, http.StatusCreated)
	key := s.keyWithRole(t, p, p.WorkspaceID, "member")

	id, wf := runWorkflow(t, s, key, "workspace hooks one")
	if wf["status"] != "completed" {
		t.Fatalf("workflow %s: %v", id, wf["status"])
	}
	completedSteps := len(wf["completed_step_summaries"].([]any))
	want := completedSteps + 1 // each step, then the workflow
	var got map[string]delivery
	s.poll(t, req{Path: "/api/health"}, 30*time.Second, func(*response) bool {
		got = rc.accepted(t, id)
		return len(got) >= want
	}, func(*response) string { return "deliveries never arrived" })
	time.Sleep(300 * time.Millisecond) // room for a duplicate or a stray event
	got = rc.accepted(t, id)
	if len(got) != want {
		t.Fatalf("%d deliveries of %s, want %d (%d steps and workflow_completed)", len(got), id, want, completedSteps)
	}
	types := map[string]int{}
	for did, d := range got {
		types[d.Event["type"].(string)]++
		data, _ := d.Event["data"].(map[string]any)
		if !signedBy(secret, d) || d.Event["id"] != did || !strings.HasPrefix(did, "dlv_") || d.Header.Get("X-Svc-Attempt") != "2" ||
			d.Header.Get("X-Svc-Event") != d.Event["type"] || d.Event["webhook_id"] != steps || d.Event["workspace_id"] != p.WorkspaceID ||
			d.Event["event_id"] == nil || d.Event["sequence"] == nil || d.Event["created_at"] == nil || data == nil || data["status"] == nil {
			t.Fatalf("delivery %s: %v %s", did, d.Header, d.Body)
		}
		if _, v1 := signatures(d.Header.Get("X-Svc-Signature")); len(v1) != 1 {
			t.Fatalf("one secret signs outside a rotation: %s", d.Header.Get("X-Svc-Signature"))
		}
	}
	if types["step_completed"] != completedSteps || types["workflow_completed"] != 1 {
		t.Fatalf("event types %v", types)
	}
	for _, d := range rc.requests() {
		if d.Event["webhook_id"] != steps {
			t.Fatalf("a delivery reached another endpoint: %s", d.Body)
		}
	}
	// every attempt is an event: a 500, then the delivery
	events := orgEvents(t, s.dbURL, p.OrgID)
	if n, m := countEvents(events, "WebhookDeliveryScheduled"), countEvents(events, "WebhookDeliveryAttempted"); n != want || m != 2*want {
		t.Fatalf("log: %d scheduled, %d attempted; want %d and %d", n, m, want, 2*want)
	}

	// rotation: both secrets sign during the overlap; verify takes both
	res = s.do(t, req{Method: http.MethodPost, Path: base + "/" + steps + "/rotate-secret", Header: p.cookie(), Body: map[string]any{"overlap_hours": 2}})
	wantStatus(t, res, http.StatusOK)
	rotated := str(t, res.Body, "secret")
	until, err := time.Parse(time.RFC3339Nano, str(t, res.Body, "previous_secret_expires_at"))
	if err != nil || res.Body["ok"] != true || res.Body["id"] != steps || len(rotated) != 64 || rotated == secret ||
		time.Until(until) < 119*time.Minute || time.Until(until) > 121*time.Minute {
		t.Fatalf("rotate: %s", res.Raw)
	}
	id2, _ := runWorkflow(t, s, key, "workspace hooks two")
	s.poll(t, req{Path: "/api/health"}, 30*time.Second, func(*response) bool { return len(rc.accepted(t, id2)) >= want },
		func(*response) string { return "deliveries after the rotation never arrived" })
	for _, d := range rc.accepted(t, id2) {
		if _, v1 := signatures(d.Header.Get("X-Svc-Signature")); len(v1) != 2 || !signedBy(rotated, d) || !signedBy(secret, d) {
			t.Fatalf("signature during the overlap: %s", d.Header.Get("X-Svc-Signature"))
		}
	}
	payload := `{"type":"test"}`
	for _, sec := range []string{rotated, secret} {
		res = s.do(t, req{Method: http.MethodPost, Path: base + "/" + steps + "/verify", Header: p.cookie(),
			Body: map[string]any{"payload": payload, "signature": sign(sec, time.Now(), payload)}})
		if wantStatus(t, res, http.StatusOK); res.Body["valid"] != true {
			t.Fatalf("verify during the overlap: %s", res.Raw)
		}
	}

	// failing: an endpoint answered 400 three times in a row is disabled
	res = s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(),
		Body: map[string]any{"url": rc.srv.URL + "/refuse", "events": []any{"step_completed"}}})
	wantStatus(t, res, http.StatusCreated)
	refused := str(t, res.Body, "id")
	runWorkflow(t, s, key, "workspace hooks three")
	s.poll(t, req{Path: base + "/" + refused, Header: p.cookie()}, 30*time.Second, func(*response) bool {
		r := s.do(t, req{Path: base, Header: p.cookie()})
		for _, w := range r.Body["webhooks"].([]any) {
			if w := w.(map[string]any); w["id"] == refused {
				return w["active"] == false
			}
		}
		return false
	}, func(*response) string { return "the failing webhook was never disabled" })
	var note map[string]any
	s.poll(t, req{Path: "/api/notifications", Header: p.cookie()}, 30*time.Second, func(r *response) bool {
		list, _ := r.Body["notifications"].([]any)
		for _, n := range list {
			if n := n.(map[string]any); n["type"] == "webhook_disabled" {
				note = n
				return true
			}
		}
		return false
	}, func(r *response) string { return "no webhook_disabled notification: " + string(r.Raw) })
	meta, _ := note["metadata"].(map[string]any)
	if meta["webhook_id"] != refused || meta["workspace_id"] != p.WorkspaceID || meta["failures"] != json.Number("3") ||
		!strings.Contains(str(t, note, "body"), "/refuse") || note["action_url"] != "/workspaces/"+p.WorkspaceID+"/webhooks" {
		t.Fatalf("notification %v", note)
	}
	res = s.do(t, req{Method: http.MethodPatch, Path: base + "/" + refused, Header: p.cookie(), Body: map[string]any{"active": true}})
	wantStatus(t, res, http.StatusOK)
	if res.Body["active"] != true {
		t.Fatalf("turned on again: %s", res.Raw)
	}
}

// TestWorkspaceWebhookRotateErrors: the rotate route's refusals (spec B's
// codes): the tier, the role, another organization's or an unknown
// webhook, a bad overlap.
func TestWorkspaceWebhookRotateErrors(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "hook-rotate")
	base := "/api/workspaces/" + p.WorkspaceID + "/webhooks"
	unknown := base + "/00000000-0000-4000-8000-000000000000/rotate-secret"
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: unknown, Header: p.cookie()}), http.StatusForbidden, "tier_required")
	setTier(t, s, p, "pro")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: unknown, Header: p.cookie()}), http.StatusNotFound, "not_found")
	res := s.do(t, req{Method: http.MethodPost, Path: base, Header: p.cookie(), Body: map[string]any{"url": "https://example.com/h", "events": []any{"timed_out"}}})
	wantStatus(t, res, http.StatusCreated)
	rotate := base + "/" + str(t, res.Body, "id") + "/rotate-secret"
	for _, body := range []any{map[string]any{"overlap_hours": -1}, map[string]any{"overlap_hours": 169}, map[string]any{"overlap_hours": "2"},
		map[string]any{"overlap_hours": 1.5}} {
		wantError(t, s.do(t, req{Method: http.MethodPost, Path: rotate, Header: p.cookie(), Body: body}), http.StatusBadRequest, "invalid_body")
	}
	member := s.keyWithRole(t, p, p.WorkspaceID, "member")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: rotate, Key: member}), http.StatusForbidden, "forbidden")
	q := s.signUpPerson(t, "hook-rotate-other")
	setTier(t, s, q, "pro")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: strings.Replace(rotate, p.WorkspaceID, q.WorkspaceID, 1), Header: q.cookie()}),
		http.StatusNotFound, "not_found")
	res = s.do(t, req{Method: http.MethodPost, Path: rotate, Header: p.cookie()}) // no body: 24 h
	wantStatus(t, res, http.StatusOK)
	until, err := time.Parse(time.RFC3339Nano, str(t, res.Body, "previous_secret_expires_at"))
	if err != nil || time.Until(until) < 23*time.Hour {
		t.Fatalf("rotate without a body: %s", res.Raw)
	}
}

// TestWorkspaceWebhookDeliverySSRF: without SVC_ALLOW_PRIVATE_URLS a
// delivery to an endpoint on a loopback address is refused at connect
// time: nothing reaches the receiver, and the refusal is the attempt's
// record in the log (not retried).
func TestWorkspaceWebhookDeliverySSRF(t *testing.T) {
	t.Parallel()
	rc, _ := newHookReceiver(t, func(*http.Request, int) int { return http.StatusNoContent })
	s := sharedServer(t)
	p := s.signUpPerson(t, "hook-ssrf")
	setTier(t, s, p, "pro")
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + p.WorkspaceID + "/webhooks", Header: p.cookie(),
		Body: map[string]any{"url": rc.srv.URL + "/hook", "events": []any{"workflow_completed"}}})
	wantStatus(t, res, http.StatusCreated)
	key := s.keyWithRole(t, p, p.WorkspaceID, "member")
	runWorkflow(t, s, key, "workspace hooks ssrf")
	var attempts []tailEvent
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		attempts = nil
		for _, e := range orgEvents(t, s.dbURL, p.OrgID) {
			if e.Type == "WebhookDeliveryAttempted" {
				attempts = append(attempts, e)
			}
		}
		if len(attempts) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(attempts) != 1 || attempts[0].Data["delivered"] != false || attempts[0].Data["gave_up"] != true ||
		!strings.Contains(attempts[0].Data["error"].(string), "private or reserved") {
		t.Fatalf("attempts %+v", attempts)
	}
	if n := len(rc.requests()); n != 0 {
		t.Fatalf("%d requests reached a loopback receiver", n)
	}
}

// TestThresholdNotifications: platform thresholds notify the
// organization: a workspace past 80 % of its monthly budget
// (budget_warning), and an organization whose credits fell below 1,000
// (low_balance). The first run is free; the second is charged.
func TestThresholdNotifications(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "thresholds")
	setTier(t, s, p, "team")
	res := s.do(t, req{Method: http.MethodPut, Path: "/api/workspaces/" + p.WorkspaceID + "/budget", Header: p.cookie(),
		Body: map[string]any{"monthly_credit_budget": 2000}})
	wantStatus(t, res, http.StatusOK)
	key := s.keyWithRole(t, p, p.WorkspaceID, "member")
	used := 0.0
	for _, tag := range []string{"thresholds one", "thresholds two"} {
		_, wf := runWorkflow(t, s, key, tag)
		if wf["status"] != "completed" {
			t.Fatalf("workflow: %v", wf["status"])
		}
		n, _ := wf["credits_used"].(json.Number).Float64()
		used += n
	}
	if used < 1600 || used >= 2000 {
		t.Skipf("two runs used %v credits: not between 80 %% and 100 %% of the budget", used)
	}
	find := func(typ string) map[string]any {
		t.Helper()
		var found map[string]any
		s.poll(t, req{Path: "/api/notifications", Header: p.cookie()}, 30*time.Second, func(r *response) bool {
			list, _ := r.Body["notifications"].([]any)
			for _, n := range list {
				if n := n.(map[string]any); n["type"] == typ {
					found = n
					return true
				}
			}
			return false
		}, func(r *response) string { return "no " + typ + " notification: " + string(r.Raw) })
		return found
	}
	n := find("budget_warning")
	meta, _ := n["metadata"].(map[string]any)
	if meta["workspace_id"] != p.WorkspaceID || meta["threshold_pct"] != json.Number("80") || meta["monthly_credit_budget"] != json.Number("2000") ||
		n["action_url"] != "/workspaces/"+p.WorkspaceID+"/budget" || n["workflow_id"] != nil {
		t.Fatalf("budget notification %v", n)
	}
	res = s.do(t, req{Path: "/api/billing/balance", Key: key})
	if balance, _ := res.Body["balance"].(json.Number).Int64(); balance >= 1000 {
		t.Skipf("the runs left %d credits: no low balance to show", balance)
	}
	n = find("low_balance")
	if meta, _ := n["metadata"].(map[string]any); meta["threshold"] != json.Number("1000") || n["action_url"] != "/settings/billing" {
		t.Fatalf("low balance notification %v", n)
	}
}
