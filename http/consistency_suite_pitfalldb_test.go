package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// pitfalldbWalks walk the pitfalldb write routes: each call, then what must read
// it back at once.
func pitfalldbWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return map[string]func(t *testing.T){
		"POST pitfalldb.report": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Member)
			waitKey(t, f, key)
			code, body := f.call(t, "POST", "/api/pitfalldb/report", key, map[string]any{"task_type": "consistency_walk",
				"task_description": "walk", "failure": map[string]any{"error_type": "WalkError", "error_message": "walked"}})
			if code != 201 {
				t.Fatalf("report: %d %v", code, body)
			}
			_, stats := f.call(t, "GET", "/api/pitfalldb/stats", key, nil)
			act, _ := stats["recent_activity"].(map[string]any)
			if act["your_reports"] != float64(1) {
				t.Fatalf("the report is not counted at once: %v", stats)
			}
		},
		"POST pitfalldb.query": func(t *testing.T) {
			key, _ := keyWithRole(t, apikey.Member)
			waitKey(t, f, key)
			code, body := f.call(t, "POST", "/api/pitfalldb/query", key, map[string]any{"task_type": "web_scraping"})
			if code != 200 || body["credits_used"] != float64(2) {
				t.Fatalf("query: %d %v", code, body)
			}
			_, stats := f.call(t, "GET", "/api/pitfalldb/stats", key, nil)
			if stats["credits_remaining"] != body["credits_remaining"] {
				t.Fatalf("the charge is not read back at once: query %v, then %v", body["credits_remaining"], stats["credits_remaining"])
			}
		},
	}
}

// pitfalldbReads are the pitfalldb GET routes' paths, for null lists.
func pitfalldbReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return map[string]string{"GET pitfalldb.stats": "/api/pitfalldb/stats"}
}
