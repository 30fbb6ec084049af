package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"

	"svc/domain/apikey"
)

// TestSuiteRateLimit: the suite's calls have their own per-organization
// window of 1,200 a minute, apart from the workflow routes'; past it a
// suite route answers 429 rate_limited in the suite's envelope with
// Retry-After, and the workflow routes are unaffected.
func TestSuiteRateLimit(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	for i := 1; i <= 1200; i++ {
		resp, body := f.do(t, "GET", "/api/dedupq/stats", key)
		if resp.StatusCode != 200 {
			t.Fatalf("suite call %d: %d %v", i, resp.StatusCode, body)
		}
		if i == 1 && resp.Header.Get("X-RateLimit-Limit") != "1200" {
			t.Fatalf("X-RateLimit-Limit %q, want 1200", resp.Header.Get("X-RateLimit-Limit"))
		}
	}
	resp, body := f.do(t, "GET", "/api/dedupq/stats", key)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || body["error"] != "rate_limited" || body["status"] != float64(429) || retry < 1 || retry > 60 {
		t.Fatalf("the 1,201st suite call: %d %v Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	// the same window counts the tool server's calls, refused as a tool error
	call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "svc", "arguments": map[string]any{"action": "dedupq.stats"}}}
	code, out := f.call(t, "POST", "/api/mcp", key, call)
	result, _ := out["result"].(map[string]any)
	structured, _ := result["structuredContent"].(map[string]any)
	if code != 200 || result["isError"] != true || structured["error"] != "rate_limited" {
		t.Errorf("a tool call past the limit: %d %v", code, out)
	}
	// the workflow routes keep their own window
	if resp, body := f.do(t, "GET", "/api/rigor/workflows", key); resp.StatusCode != 200 {
		t.Errorf("a workflow route after the suite's limit: %d %v", resp.StatusCode, body)
	}
}
