package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// burnrateWalks walk the burnrate write routes: each call, then what must read
// it back at once (today's budget counts every estimate, optimization and
// tracked call).
func burnrateWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	plan := []any{map[string]any{"step": 1, "action": "summarize", "provider": "openai", "model": "gpt-4o",
		"estimated_input_tokens": 2000, "estimated_output_tokens": 500}}
	today := func(t *testing.T) map[string]any {
		t.Helper()
		code, body := f.call(t, "GET", "/api/burnrate/budget", key, nil)
		if code != 200 {
			t.Fatalf("budget: %d %v", code, body)
		}
		return body
	}
	return map[string]func(t *testing.T){
		"POST burnrate.estimate": func(t *testing.T) {
			before := today(t)["estimates_today"].(float64)
			if code, body := f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": plan}); code != 200 {
				t.Fatalf("estimate: %d %v", code, body)
			}
			if n := today(t)["estimates_today"].(float64); n != before+1 {
				t.Errorf("estimates_today %v after one more estimate, want %v", n, before+1)
			}
		},
		"POST burnrate.optimize": func(t *testing.T) {
			before := today(t)["optimizations_today"].(float64)
			if code, body := f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": plan}); code != 200 {
				t.Fatalf("optimize: %d %v", code, body)
			}
			if n := today(t)["optimizations_today"].(float64); n != before+1 {
				t.Errorf("optimizations_today %v, want %v", n, before+1)
			}
		},
		"POST burnrate.track": func(t *testing.T) {
			before := today(t)["tracked_calls"].(float64)
			if code, body := f.call(t, "POST", "/api/burnrate/track", key,
				map[string]any{"provider": "openai", "model": "gpt-4o", "actual_cost": 0.5, "input_tokens": 1000, "output_tokens": 100}); code != 200 {
				t.Fatalf("track: %d %v", code, body)
			}
			if n := today(t)["tracked_calls"].(float64); n != before+1 {
				t.Errorf("tracked_calls %v, want %v", n, before+1)
			}
		},
	}
}

// burnrateReads are the burnrate GET routes' paths, for null lists.
func burnrateReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return map[string]string{"GET burnrate.budget": "/api/burnrate/budget?daily_limit=5"}
}
