package blackbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// pitfalldb sends body to a PitfallDB route with key and requires status.
func (s *server) pitfalldb(t *testing.T, method, path, key string, body any, status int) map[string]any {
	t.Helper()
	// the suite's error envelope is not spec A's: checked here, not by do
	res := s.do(t, req{Method: method, Path: path, Key: key, Body: body, NoCheck: status >= 400})
	if status >= 400 && (res.Body["status"] != json.Number(strconv.Itoa(status)) || res.Body["request_id"] != res.RequestID) {
		t.Fatalf("%s %s: not the suite's error envelope: %s", method, path, res.Raw)
	}
	if res.Status != status {
		t.Fatalf("%s %s %v: %d, want %d: %s", method, path, body, res.Status, status, res.Raw)
	}
	return res.Body
}

// TestSuitePitfallDB: against the real server, a report from one
// organization is scrubbed and waits for verification, a second
// organization's report of the same failure verifies it, queries return
// it and the starter set ranked by severity, stats count it, and the
// refusals.
func TestSuitePitfallDB(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a, b := s.signup(t, nil), s.signup(t, nil)
	taskType := "bb_export_" + randomHex(4)
	failure := map[string]any{"error_type": "QuotaExceeded", "error_message": "quota of 500 exceeded for alice@example.com from 203.0.113.9",
		"root_cause": "the agent retried every page", "fix_applied": "cache pages", "fix_worked": true, "language": "go", "provider": "openai"}
	body := map[string]any{"task_type": taskType, "task_description": "export invoices for bob@example.org", "failure": failure}

	first := s.pitfalldb(t, http.MethodPost, "/api/pitfalldb/report", a.Key, body, 201)
	if boolean(t, first, "verified") || integer(t, first, "credits_used") != 0 || uuidField(t, first, "linked_pitfall_id") == "" {
		t.Fatalf("first report: %v", first)
	}
	failure["error_message"] = "quota of 800 exceeded for carol@example.net from 198.51.100.4"
	second := s.pitfalldb(t, http.MethodPost, "/api/pitfalldb/report", b.Key, body, 201)
	if !boolean(t, second, "verified") || second["linked_pitfall_id"] != first["linked_pitfall_id"] {
		t.Fatalf("second report: %v (first %v)", second, first)
	}
	// the reporter's own next request reflects its report (read fences,
	// decision 230); the other organization reads it once the read model
	// has it, which that request waited for
	s.pitfalldb(t, http.MethodGet, "/api/pitfalldb/stats", b.Key, nil, 200)

	out := s.pitfalldb(t, http.MethodPost, "/api/pitfalldb/query", a.Key, map[string]any{"task_type": taskType,
		"task_description": "export invoices", "filters": map[string]any{"language": "Go", "provider": "openai"}}, 200)
	if integer(t, out, "credits_used") != 2 {
		t.Fatalf("query: %v", out)
	}
	var got map[string]any
	for _, p := range out["pitfalls"].([]any) {
		if p.(map[string]any)["id"] == first["linked_pitfall_id"] {
			got = p.(map[string]any)
		}
	}
	if got == nil || integer(t, got, "reports") != 2 || got["fix"] != "cache pages" || got["fix_confidence"] != json.Number("1") {
		t.Fatalf("the verified pitfall: %v in %v", got, out)
	}
	for _, leaked := range []string{"alice", "bob@", "carol", "203.0.113.9", "198.51.100.4"} {
		if strings.Contains(got["title"].(string)+got["description"].(string), leaked) {
			t.Fatalf("%q leaked into %v", leaked, got)
		}
	}

	starters := s.pitfalldb(t, http.MethodPost, "/api/pitfalldb/query", b.Key, map[string]any{"task_type": "sql_generation"}, 200)
	ps := starters["pitfalls"].([]any)
	if len(ps) < 3 || ps[0].(map[string]any)["severity"] != "critical" {
		t.Fatalf("sql_generation's starter pitfalls: %v", starters)
	}

	stats := s.pitfalldb(t, http.MethodGet, "/api/pitfalldb/stats", a.Key, nil, 200)
	act := stats["recent_activity"].(map[string]any)
	if integer(t, stats, "total_reports") < 2 || integer(t, stats, "total_pitfalls") < 30 || integer(t, act, "your_reports") != 1 {
		t.Fatalf("stats: %v", stats)
	}

	for _, c := range []struct {
		path, key string
		body      any
		status    int
		code      string
	}{
		{"/api/pitfalldb/query", "", map[string]any{"task_type": "x"}, 401, "missing_api_key"},
		{"/api/pitfalldb/report", "svc_live_unknown", body, 401, "invalid_api_key"},
		{"/api/pitfalldb/query", a.Key, map[string]any{"task_description": "x"}, 400, "invalid_request"},
		{"/api/pitfalldb/report", a.Key, map[string]any{"task_type": "x", "task_description": "y"}, 400, "invalid_request"},
	} {
		if got := s.pitfalldb(t, http.MethodPost, c.path, c.key, c.body, c.status); got["error"] != c.code {
			t.Fatalf("%s %v: %v, want %s", c.path, c.body, got, c.code)
		}
	}
}
