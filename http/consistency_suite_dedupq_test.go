package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// dedupqWalks walk the dedupq write routes: each call, then what must read
// it back at once.
func dedupqWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	stats := func(t *testing.T, key string) map[string]any {
		t.Helper()
		code, body := f.call(t, "GET", "/api/dedupq/stats", key, nil)
		if code != 200 {
			t.Fatalf("stats: %d %v", code, body)
		}
		return body
	}
	return map[string]func(t *testing.T){
		"POST dedupq.check": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			if code, body := f.call(t, "POST", "/api/dedupq/check", key, map[string]any{"content": "Read back a check", "task_id": "rb"}); code != 200 {
				t.Fatalf("check: %d %v", code, body)
			}
			if s := stats(t, key); s["total_checks"] != float64(1) || s["credits_spent"] != float64(1) {
				t.Fatalf("the check is not in the stats at once: %v", s)
			}
			// the task id is linked at once: a completion naming only it
			if code, body := f.call(t, "POST", "/api/dedupq/complete", key, map[string]any{"task_id": "rb", "result": "done"}); code != 200 {
				t.Fatalf("complete by task id: %d %v", code, body)
			}
		},
		"POST dedupq.complete": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Owner)
			waitKey(t, f, key)
			if code, body := f.call(t, "POST", "/api/dedupq/complete", key, map[string]any{"task_id": "rb", "content": "Read back a result",
				"result": map[string]any{"ok": true}, "actual_cost": 1}); code != 200 {
				t.Fatalf("complete: %d %v", code, body)
			}
			if s := stats(t, key); s["credits_spent"] != float64(2) {
				t.Fatalf("the completion is not in the stats at once: %v", s)
			}
			// found at once, exactly and semantically
			for content, tier := range map[string]string{"Read back a result": "db_exact", "Please read back a result.": "vector"} {
				code, body := f.call(t, "POST", "/api/dedupq/check", key, map[string]any{"content": content, "similarity_threshold": 0.8})
				if code != 200 || body["cache_hit"] != tier {
					t.Fatalf("check of %q right after the completion: %d %v", content, code, body)
				}
			}
		},
	}
}

// dedupqReads are the dedupq GET routes' paths, for null lists.
func dedupqReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return map[string]string{"GET dedupq.stats": "/api/dedupq/stats"}
}
