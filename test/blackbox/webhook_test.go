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

// receiver is an HTTPS endpoint that records webhook deliveries; it
// answers 500 to the first attempt of each delivery named in failFirst.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
	// failOnce makes the first request of every delivery fail with 500
	failOnce bool
	seen     map[string]int
}

type delivery struct {
	Header http.Header
	Body   []byte
	Event  map[string]any
}

func newReceiver(t *testing.T, failOnce bool) (*receiver, string) {
	rc := &receiver{failOnce: failOnce, seen: map[string]int{}}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		id := r.Header.Get("X-Svc-Delivery")
		rc.seen[id]++
		if rc.failOnce && rc.seen[id] == 1 {
			http.Error(w, "try again", http.StatusInternalServerError)
			return
		}
		var ev map[string]any
		_ = json.Unmarshal(body, &ev)
		rc.got = append(rc.got, delivery{Header: r.Header.Clone(), Body: body, Event: ev})
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc, ca
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// waitFor polls until the receiver holds an event of type typ for id.
func (rc *receiver) waitFor(t *testing.T, id, typ string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, d := range rc.deliveries() {
			if d.Event["workflow_id"] == id && d.Event["event"] == typ {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s delivered for %s; got %d deliveries", typ, id, len(rc.deliveries()))
}

// verify checks a delivery's signature the way the webhook documentation
// tells receivers to: X-Svc-Signature "t=<unix>,v1=<hex HMAC-SHA256>"
// over "<t>.<raw body>", keyed with the webhook_secret string.
func verify(t *testing.T, secret string, d delivery) {
	t.Helper()
	header := d.Header.Get("X-Svc-Signature")
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(d.Body)))
	if want := hex.EncodeToString(mac.Sum(nil)); ts == "" || !hmac.Equal([]byte(want), []byte(sig)) {
		t.Fatalf("signature %q does not verify for body %s", header, d.Body)
	}
}

func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	rc, ca := newReceiver(t, true)
	s := startServer(t, map[string]string{"SVC_ALLOW_PRIVATE_URLS": "true", "SVC_OUTBOUND_CA_FILE": ca, "SVC_WEBHOOK_BACKOFF_SCALE": "0.01"})
	a := s.signup(t, nil)
	hook := rc.srv.URL + "/hooks/svc"

	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: map[string]any{
		"task_description": "compare our pricing with three competitors for the webhook test",
		"task_type":        "competitive_analysis",
		"delivery":         map[string]any{"method": "webhook", "webhook_url": hook}}})
	wantStatus(t, res, http.StatusOK)
	id := str(t, res.Body, "workflow_id")
	secret := str(t, res.Body, "webhook_secret")
	if len(secret) != 64 || str(t, res.Body, "webhook_status") != "registered" || str(t, res.Body, "webhook_url") != hook ||
		str(t, res.Body, "delivery_mode") != "webhook" || !strings.HasSuffix(str(t, res.Body, "poll_url"), "/api/rigor/status/"+id) {
		t.Fatalf("webhook execute answer %s", res.Raw)
	}
	if _, err := hex.DecodeString(secret); err != nil {
		t.Fatalf("webhook_secret %q is not hex", secret)
	}
	rc.waitFor(t, id, "workflow_completed")

	st := s.do(t, req{Method: http.MethodGet, Path: "/api/rigor/status/" + id, Key: a.Key})
	wf := object(t, st.Body, "workflow")
	steps := int(integer(t, wf, "total_steps"))
	// deliveries are independent and may arrive in any order: wait for all
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n := 0
		for _, d := range rc.deliveries() {
			if d.Event["workflow_id"] == id {
				n++
			}
		}
		if n >= steps+1 || time.Now().After(deadline) {
			break
		}
	}
	perType := map[string]int{}
	seenIDs := map[string]bool{}
	for _, d := range rc.deliveries() {
		if d.Event["workflow_id"] != id {
			continue
		}
		verify(t, secret, d)
		if d.Header.Get("X-Svc-Workflow-Id") != id || d.Header.Get("X-Svc-Event") != d.Event["event"] || d.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("delivery headers %v for %s", d.Header, d.Body)
		}
		did := d.Header.Get("X-Svc-Delivery")
		if seenIDs[did] {
			t.Fatalf("delivery %s arrived twice after success", did)
		}
		seenIDs[did] = true
		perType[d.Event["event"].(string)]++
	}
	if perType["step_completed"] != steps || perType["workflow_completed"] != 1 {
		t.Fatalf("deliveries by type %v, want %d step_completed and one workflow_completed", perType, steps)
	}
	var done map[string]any
	for _, d := range rc.deliveries() {
		if d.Event["workflow_id"] == id && d.Event["event"] == "workflow_completed" {
			done = d.Event
		}
	}
	if done["status"] != "completed" || done["quality_score"] == nil || done["deliverable"] == nil {
		t.Fatalf("workflow_completed payload %v", done)
	}

	// the delivery log: every delivery delivered on its second attempt
	// (the receiver refused each first one)
	// (the read model follows the receiver by a moment)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log := s.do(t, req{Method: http.MethodGet, Path: "/api/rigor/webhooks/deliveries?workflow_id=" + id, Key: a.Key})
		wantStatus(t, log, http.StatusOK)
		list, _ := log.Body["deliveries"].([]any)
		done := len(list) == steps+1
		for _, raw := range list {
			done = done && raw.(map[string]any)["status"] == "delivered"
		}
		if !done {
			if time.Now().After(deadline) {
				t.Fatalf("delivery log never showed %d delivered deliveries: %s", steps+1, log.Raw)
			}
			continue
		}
		for _, raw := range list {
			d := raw.(map[string]any)
			attempts, _ := d["log"].([]any)
			if integer(t, d, "attempts") != 2 || len(attempts) != 2 || str(t, d, "url") != hook {
				t.Fatalf("delivery %v", d)
			}
		}
		break
	}
	wantError(t, s.do(t, req{Method: http.MethodGet, Path: "/api/rigor/webhooks/deliveries", Key: a.Key}), http.StatusBadRequest, "missing_field")
	wantError(t, s.do(t, req{Method: http.MethodGet, Path: "/api/rigor/webhooks/deliveries?workflow_id=wr_" + strings.Repeat("0", 32), Key: a.Key}), http.StatusNotFound, "not_found")

	// the same URL again: registered already, so no secret is shown
	again := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: map[string]any{
		"task_description": "write a launch plan for our app in Germany, webhook test",
		"delivery":         map[string]any{"method": "webhook", "webhook_url": hook}}})
	wantStatus(t, again, http.StatusOK)
	if _, shown := again.Body["webhook_secret"]; shown || str(t, again.Body, "webhook_status") != "registered" {
		t.Fatalf("second execute on the same URL: %s", again.Raw)
	}
	id2 := str(t, again.Body, "workflow_id")
	rc.waitFor(t, id2, "workflow_completed")
	for _, d := range rc.deliveries() {
		if d.Event["workflow_id"] == id2 {
			verify(t, secret, d) // signed with the URL's one secret
		}
	}
}

// TestWebhookPrivateAddressRefused: without SVC_ALLOW_PRIVATE_URLS a
// webhook to a loopback address is never sent; its delivery fails.
func TestWebhookPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	rc, _ := newReceiver(t, false)
	s := sharedServer(t)
	a := s.signup(t, nil)
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/execute", Key: a.Key, Body: map[string]any{
		"task_description": "compare our pricing with three competitors, private webhook",
		"task_type":        "competitive_analysis",
		"delivery":         map[string]any{"method": "webhook", "webhook_url": rc.srv.URL + "/hook"}}})
	wantStatus(t, res, http.StatusOK)
	id := str(t, res.Body, "workflow_id")
	s.poll(t, req{Path: "/api/rigor/webhooks/deliveries?workflow_id=" + id, Key: a.Key}, 60*time.Second, func(log *response) bool {
		list, _ := log.Body["deliveries"].([]any)
		failed := 0
		for _, raw := range list {
			if d := raw.(map[string]any); d["status"] == "failed" {
				if e, _ := d["last_error"].(string); !strings.Contains(e, "private or reserved") {
					t.Fatalf("failed delivery without the reason: %v", d)
				}
				failed++
			}
		}
		return failed > 0 && failed == len(list)
	}, func(log *response) string {
		return "deliveries to a private address not failed within 60 s: " + string(log.Raw)
	})
	if n := len(rc.deliveries()); n != 0 {
		t.Fatalf("%d deliveries reached a loopback receiver", n)
	}
}
