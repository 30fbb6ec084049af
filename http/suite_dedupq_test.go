package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"svc/domain/apikey"
)

// dedupqWant fails unless the answer has status code and, when code is
// set, the suite's error code.
func dedupqWant(t *testing.T, what string, status int, body map[string]any, wantStatus int, code string) {
	t.Helper()
	if status != wantStatus || (code != "" && body["error"] != code) {
		t.Fatalf("%s: %d %v, want %d %s", what, status, body, wantStatus, code)
	}
}

func TestSuiteDedupQCheckCompleteStats(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Member)
	waitKey(t, f, key)
	check := func(body map[string]any) map[string]any {
		t.Helper()
		code, out := f.call(t, "POST", "/api/dedupq/check", key, body)
		dedupqWant(t, "check", code, out, 200, "")
		if out["credits_used"] != float64(1) || out["fallback_behavior"] != "none" || !strings.HasPrefix(out["request_id"].(string), "req_") {
			t.Fatalf("check metadata: %v", out)
		}
		return out
	}
	content := "Summarize the Q3 sales report for Acme"

	// a miss claims the content for the task
	out := check(map[string]any{"content": content, "task_id": "t1"})
	if out["status"] != "miss" || out["duplicate"] != false || out["match"] != nil || out["cache_hit"] != nil || out["claim"] == nil {
		t.Fatalf("first check: %v", out)
	}
	// another agent's task meanwhile: locked
	out = check(map[string]any{"content": "  summarize the Q3 sales report for ACME. ", "task_id": "t2"})
	lock, _ := out["lock"].(map[string]any)
	if out["status"] != "locked" || out["duplicate"] != false || lock["task_id"] != "t1" || lock["retry_after_seconds"].(float64) < 1 {
		t.Fatalf("concurrent check: %v", out)
	}
	// completing by task id alone links to the content t1 checked
	code, out := f.call(t, "POST", "/api/dedupq/complete", key, map[string]any{"task_id": "t1",
		"result": map[string]any{"summary": "Revenue up 12%"}, "actual_cost": 0.42, "tags": []string{"finance"}})
	dedupqWant(t, "complete", code, out, 200, "")
	if out["credits_used"] != float64(2) || out["task_id"] != "t1" || out["semantic"] != true || out["content_hash"] == "" {
		t.Fatalf("complete: %v", out)
	}
	// the same content (normalized): an exact hit from the database
	out = check(map[string]any{"content": "summarize the q3 sales report for acme!", "task_id": "t3"})
	m, _ := out["match"].(map[string]any)
	if out["status"] != "hit" || out["duplicate"] != true || out["cache_hit"] != "db_exact" || m["match_type"] != "exact" ||
		m["task_id"] != "t1" || m["similarity"] != float64(1) || m["actual_cost"] != 0.42 ||
		m["result"].(map[string]any)["summary"] != "Revenue up 12%" || m["cached_at"] == nil {
		t.Fatalf("exact hit: %v", out)
	}
	// a paraphrase: a semantic hit
	out = check(map[string]any{"content": "Please summarise the Q3 sales report for Acme."})
	m, _ = out["match"].(map[string]any)
	if out["status"] != "hit" || out["cache_hit"] != "vector" || m["match_type"] != "semantic" || m["similarity"].(float64) < 0.92 {
		t.Fatalf("semantic hit: %v", out)
	}
	// ... not with hash_only, and not for a look-alike
	out = check(map[string]any{"content": "Please summarise the Q3 sales report for Acme.", "hash_only": true})
	if out["status"] != "miss" {
		t.Fatalf("hash_only: %v", out)
	}
	for _, lookalike := range []string{"Summarize the Q4 sales report for Acme", "Summarize the Q3 sales report for Globex",
		"Do not summarize the Q3 sales report for Acme"} {
		out = check(map[string]any{"content": lookalike, "similarity_threshold": 0.5})
		if out["status"] == "hit" {
			t.Fatalf("look-alike %q hit: %v", lookalike, out)
		}
	}
	// a result expires after its ttl
	code, out = f.call(t, "POST", "/api/dedupq/complete", key, map[string]any{"task_id": "short", "content": "Plan the offsite in Lisbon",
		"result": "a plan", "result_type": "text", "ttl_seconds": 1, "hash_only": true})
	dedupqWant(t, "complete with a short ttl", code, out, 200, "")
	if out["semantic"] != false {
		t.Fatalf("hash_only completion: %v", out)
	}
	if out = check(map[string]any{"content": "Plan the offsite in Lisbon"}); out["status"] != "hit" || out["match"].(map[string]any)["result"] != "a plan" {
		t.Fatalf("before expiry: %v", out)
	}
	time.Sleep(1100 * time.Millisecond)
	if out = check(map[string]any{"content": "Plan the offsite in Lisbon"}); out["status"] != "miss" {
		t.Fatalf("after expiry: %v", out)
	}

	// stats: this month's checks, hits, savings and cost
	code, out = f.call(t, "GET", "/api/dedupq/stats", key, nil)
	dedupqWant(t, "stats", code, out, 200, "")
	if out["credits_used"] != float64(0) || out["period"] != time.Now().UTC().Format("2006-01") ||
		out["total_checks"] != float64(10) || out["cache_hits"] != float64(3) || out["hit_rate"] != "30.0%" ||
		out["total_cost_saved"] != "$0.8400" || out["cost_of_service"] != "$0.0140" || out["net_savings"] != "$0.8260" ||
		out["roi"] != "5900%" || out["credits_spent"] != float64(14) {
		t.Fatalf("stats: %v", out)
	}

	// another organization sees none of it, exact or semantic
	other, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, other)
	for _, c := range []string{content, "Please summarise the Q3 sales report for Acme."} {
		code, out = f.call(t, "POST", "/api/dedupq/check", other, map[string]any{"content": c, "task_id": "t1"})
		if code != 200 || out["status"] != "miss" {
			t.Fatalf("another org's check of %q: %d %v", c, code, out)
		}
	}
	if code, out = f.call(t, "GET", "/api/dedupq/stats", other, nil); out["total_checks"] != float64(2) || out["hit_rate"] != "0.0%" || out["roi"] != "-100%" {
		t.Fatalf("another org's stats: %d %v", code, out)
	}
}

func TestSuiteDedupQRefusals(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	for _, path := range []string{"/api/dedupq/check", "/api/dedupq/complete"} {
		code, out := f.call(t, "POST", path, "", map[string]any{})
		dedupqWant(t, path+" without a key", code, out, 401, "missing_api_key")
		code, out = f.call(t, "POST", path, "svc_live_nope", map[string]any{})
		dedupqWant(t, path+" with an unknown key", code, out, 401, "invalid_api_key")
	}
	code, out := f.call(t, "GET", "/api/dedupq/stats", "", nil)
	dedupqWant(t, "stats without a key", code, out, 401, "missing_api_key")

	big := strings.Repeat("x", 300<<10)
	for _, tc := range []struct {
		path   string
		body   map[string]any
		status int
		code   string
		field  string
	}{
		{"/api/dedupq/check", map[string]any{}, 400, "invalid_request", "content"},
		{"/api/dedupq/check", map[string]any{"content": 5}, 400, "invalid_request", "content"},
		{"/api/dedupq/check", map[string]any{"content": "  "}, 400, "invalid_request", "content"},
		{"/api/dedupq/check", map[string]any{"content": "x", "similarity_threshold": 1.5}, 400, "invalid_request", "similarity_threshold"},
		{"/api/dedupq/check", map[string]any{"content": "x", "hash_only": "yes"}, 400, "invalid_request", "hash_only"},
		{"/api/dedupq/complete", map[string]any{"result": 1}, 400, "invalid_request", "task_id"},
		{"/api/dedupq/complete", map[string]any{"task_id": "t"}, 400, "invalid_request", "result"},
		{"/api/dedupq/complete", map[string]any{"task_id": "never-checked", "result": 1}, 400, "invalid_request", "content"},
		{"/api/dedupq/complete", map[string]any{"task_id": "t", "content": "c", "result": 1, "result_type": "xml"}, 400, "invalid_request", "result_type"},
		{"/api/dedupq/complete", map[string]any{"task_id": "t", "content": "c", "result": 1, "ttl_seconds": 0}, 400, "invalid_request", "ttl_seconds"},
		{"/api/dedupq/complete", map[string]any{"task_id": "t", "content": "c", "result": 1, "actual_cost": -1}, 400, "invalid_request", "actual_cost"},
		{"/api/dedupq/complete", map[string]any{"task_id": "t", "content": "c", "result": big}, 413, "payload_too_large", ""},
	} {
		code, out := f.call(t, "POST", tc.path, key, tc.body)
		dedupqWant(t, tc.path, code, out, tc.status, tc.code)
		if msg, _ := out["message"].(string); tc.field != "" && !strings.Contains(msg, tc.field) {
			t.Errorf("%s %v: the message %q does not name %s", tc.path, tc.body, msg, tc.field)
		}
	}

	// 402 once the balance cannot pay; stats stay free
	drain(t, orgID)
	code, out = f.call(t, "POST", "/api/dedupq/check", key, map[string]any{"content": "x"})
	dedupqWant(t, "check without credits", code, out, 402, "insufficient_credits")
	code, out = f.call(t, "POST", "/api/dedupq/complete", key, map[string]any{"task_id": "t", "content": "c", "result": 1})
	dedupqWant(t, "complete without credits", code, out, 402, "insufficient_credits")
	code, out = f.call(t, "GET", "/api/dedupq/stats", key, nil)
	dedupqWant(t, "stats without credits", code, out, 200, "")
	if out["credits_remaining"] != float64(0) || out["total_checks"] != float64(0) {
		t.Fatalf("stats: %v", out)
	}
}
