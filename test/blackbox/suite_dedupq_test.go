package blackbox

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// dedupq posts body to a DedupQ route with key and requires status.
func (s *server) dedupq(t *testing.T, path, key string, body any, status int) map[string]any {
	t.Helper()
	// refusals are checked here: the generic check compares the
	// envelope's status with a float64, which a json.Number never is
	res := s.do(t, req{Method: http.MethodPost, Path: path, Key: key, Body: body, NoCheck: status >= 400})
	if res.Status != status {
		t.Fatalf("POST %s %v: %d, want %d: %s", path, body, res.Status, status, res.Raw)
	}
	if status >= 400 && (res.Body["message"] == "" || res.Body["request_id"] != res.RequestID || jnum(res.Body["status"]) != float64(status)) {
		t.Fatalf("POST %s: the suite's error envelope %s", path, res.Raw)
	}
	return res.Body
}

// jnum is a JSON number of a decoded answer (json.Number), NaN otherwise.
func jnum(v any) float64 {
	n, ok := v.(json.Number)
	if !ok {
		return math.NaN()
	}
	f, err := n.Float64()
	if err != nil {
		return math.NaN()
	}
	return f
}

func suiteCode(t *testing.T, body map[string]any, code string) {
	t.Helper()
	if body["error"] != code {
		t.Fatalf("error %v, want %s", body["error"], code)
	}
}

// TestSuiteDedupQ: check, complete and stats against the real server: a
// miss claims, another task is locked out, a completion answers exact and
// semantic checks, a look-alike misses, another organization sees
// nothing, and the refusals.
func TestSuiteDedupQ(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	const content = "Translate the onboarding guide into French"

	out := s.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": content, "task_id": "bb-1"}, 200)
	if out["status"] != "miss" || out["duplicate"] != false || jnum(out["credits_used"]) != 1 {
		t.Fatalf("first check: %v", out)
	}
	out = s.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": content, "task_id": "bb-2"}, 200)
	if out["status"] != "locked" {
		t.Fatalf("second task's check: %v", out)
	}
	out = s.dedupq(t, "/api/dedupq/complete", a.Key, map[string]any{"task_id": "bb-1", "result": map[string]any{"doc": "guide-fr.md"},
		"result_type": "json", "result_summary": "the French guide", "actual_cost": 0.3, "ttl_seconds": 600, "tags": []string{"i18n"}}, 200)
	if jnum(out["credits_used"]) != 2 || out["semantic"] != true {
		t.Fatalf("complete: %v", out)
	}
	out = s.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": strings.ToUpper(content) + ".", "task_id": "bb-2"}, 200)
	if out["status"] != "hit" || out["cache_hit"] != "db_exact" || out["match"].(map[string]any)["result_summary"] != "the French guide" {
		t.Fatalf("exact check: %v", out)
	}
	out = s.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": "Please translate our onboarding guide into French"}, 200)
	if out["status"] != "hit" || out["cache_hit"] != "vector" || out["match"].(map[string]any)["match_type"] != "semantic" {
		t.Fatalf("semantic check: %v", out)
	}
	out = s.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": "Translate the onboarding guide into German", "similarity_threshold": 0.5}, 200)
	if out["status"] == "hit" {
		t.Fatalf("a look-alike hit: %v", out)
	}
	res := s.do(t, req{Method: http.MethodGet, Path: "/api/dedupq/stats", Key: a.Key})
	wantStatus(t, res, 200)
	if jnum(res.Body["total_checks"]) != 5 || jnum(res.Body["cache_hits"]) != 2 || res.Body["hit_rate"] != "40.0%" ||
		res.Body["total_cost_saved"] != "$0.6000" || res.Body["cost_of_service"] != "$0.0070" {
		t.Fatalf("stats: %v", res.Body)
	}

	b := s.signup(t, nil)
	out = s.dedupq(t, "/api/dedupq/check", b.Key, map[string]any{"content": content, "task_id": "bb-1"}, 200)
	if out["status"] != "miss" {
		t.Fatalf("another organization's check: %v", out)
	}

	suiteCode(t, s.dedupq(t, "/api/dedupq/check", "", map[string]any{"content": "x"}, 401), "missing_api_key")
	suiteCode(t, s.dedupq(t, "/api/dedupq/complete", "svc_live_unknown", map[string]any{"task_id": "x", "result": 1}, 401), "invalid_api_key")
	suiteCode(t, s.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"task_id": "x"}, 400), "invalid_request")
	suiteCode(t, s.dedupq(t, "/api/dedupq/complete", a.Key, map[string]any{"task_id": "x"}, 400), "invalid_request")
	suiteCode(t, s.dedupq(t, "/api/dedupq/complete", a.Key, map[string]any{"task_id": "x", "content": "y",
		"result": strings.Repeat("r", 300<<10)}, 413), "payload_too_large")
}

// TestSuiteDedupQAcrossInstances: two instances on one database sharing
// a Redis: a result completed through one is found through the other,
// from the shared cache (exact) and from its semantic index.
func TestSuiteDedupQAcrossInstances(t *testing.T) {
	t.Parallel()
	if err := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"}).Ping(context.Background()).Err(); err != nil {
		t.Skip("no redis at 127.0.0.1:6379:", err)
	}
	c := startCluster(t, 2, true, map[string]string{"SVC_SECRET_KEY": randomHex(32), "REDIS_URL": "redis://127.0.0.1:6379/0"})
	one, two := c.nodes[0], c.nodes[1]
	a := one.signup(t, nil)
	const content = "Benchmark Redis against Memcached for session storage"
	// the second instance's index is loaded before the result exists
	if out := two.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": "Compare two cache servers"}, 200); out["status"] != "miss" {
		t.Fatalf("first check: %v", out)
	}
	one.dedupq(t, "/api/dedupq/complete", a.Key, map[string]any{"task_id": "x-1", "content": content, "result": "memcached wins", "actual_cost": 1}, 200)
	out := two.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": content}, 200)
	if out["status"] != "hit" || out["cache_hit"] != "cache" || out["match"].(map[string]any)["result"] != "memcached wins" {
		t.Fatalf("exact check through the other instance: %v", out)
	}
	out = two.dedupq(t, "/api/dedupq/check", a.Key, map[string]any{"content": "Please benchmark Redis vs Memcached for session storage."}, 200)
	if out["status"] != "hit" || out["cache_hit"] != "vector" {
		t.Fatalf("semantic check through the other instance: %v", out)
	}
	res := two.do(t, req{Method: http.MethodGet, Path: "/api/health"})
	if svc, _ := res.Body["services"].(map[string]any); svc == nil {
		t.Fatalf("health: %s", res.Raw)
	}
}
