package blackbox

import (
	"net/http"
	"strings"
	"testing"
)

// burnrateRefused requires a suite refusal (spec C's flat envelope):
// status, code, and a message or fix naming each of names.
func burnrateRefused(t *testing.T, res *response, status int, code string, names ...string) {
	t.Helper()
	if res.Status != status || res.Body["error"] != code {
		t.Fatalf("%d %s, want %d %s", res.Status, res.Raw, status, code)
	}
	if res.Body["request_id"] != res.RequestID {
		t.Errorf("request_id %v, X-Request-Id %s", res.Body["request_id"], res.RequestID)
	}
	text, _ := res.Body["message"].(string)
	fix, _ := res.Body["fix"].(string)
	for _, n := range names {
		if !strings.Contains(text+" "+fix, n) {
			t.Errorf("%s: %q (fix %q) does not name %q", code, text, fix, n)
		}
	}
}

func TestSuiteBurnRate(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	post := func(path string, body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: path, Key: a.Key, Body: body, NoCheck: true})
	}

	// spec C's shape, and the tool manifest's in the same plan
	res := post("/api/burnrate/estimate", map[string]any{"budget_limit": 1, "plan": []any{
		map[string]any{"step": 1, "action": "summarize", "provider": "openai", "model": "gpt-4o",
			"estimated_input_tokens": 10000, "estimated_output_tokens": 1000},
		map[string]any{"step": "search", "provider": "openai", "model": "gpt-4o-mini", "estimated_input_tokens": 500,
			"estimated_output_tokens": 100, "cache_read_tokens": 0, "search_calls": 2},
		map[string]any{"step": 3, "action": "write the brief", "provider": "anthropic", "prompt_length": "medium"},
	}})
	wantStatus(t, res, http.StatusOK)
	if number(t, res.Body, "credits_used") != 1 || str(t, res.Body, "prices_as_of") == "" {
		t.Errorf("estimate %s", res.Raw)
	}
	est := object(t, res.Body, "estimate")
	if !boolean(t, est, "within_budget") || !strings.HasPrefix(str(t, est, "total_cost_usd_formatted"), "$") || number(t, est, "total_cost_usd") <= 0 {
		t.Errorf("estimate %v", est)
	}
	steps, _ := est["steps"].([]any)
	if len(steps) != 3 || number(t, steps[0].(map[string]any), "cost_usd") != 0.035 || steps[1].(map[string]any)["step"] != "search" {
		t.Errorf("steps %v", steps)
	}

	// an unknown model is a 400 naming it, never $0
	res = post("/api/burnrate/estimate", map[string]any{"plan": []any{map[string]any{"step": "x", "provider": "openai", "model": "gpt-4-turbo-max"}}})
	burnrateRefused(t, res, http.StatusBadRequest, "unknown_model", "gpt-4-turbo-max", "Step x")
	res = post("/api/burnrate/estimate", map[string]any{"plan": []any{map[string]any{"provider": "openia"}}})
	burnrateRefused(t, res, http.StatusBadRequest, "unknown_provider", "openia", "openai")
	res = post("/api/burnrate/estimate", map[string]any{})
	burnrateRefused(t, res, http.StatusBadRequest, "invalid_request", "plan")
	res = s.do(t, req{Method: http.MethodPost, Path: "/api/burnrate/estimate", Body: map[string]any{"plan": []any{}}, NoCheck: true})
	burnrateRefused(t, res, http.StatusUnauthorized, "missing_api_key")

	// tracked spend corrects the next estimate and counts today
	res = post("/api/burnrate/track", map[string]any{"provider": "openai", "model": "gpt-4o", "actual_cost": 0.05,
		"input_tokens": 10000, "output_tokens": 0})
	wantStatus(t, res, http.StatusOK)
	corr := object(t, res.Body, "correction")
	if number(t, corr, "factor") != 2 || !boolean(t, corr, "updated") || number(t, res.Body, "credits_used") != 0 {
		t.Errorf("track %s", res.Raw)
	}
	res = post("/api/burnrate/estimate", map[string]any{"plan": []any{map[string]any{"provider": "openai", "model": "gpt-4o",
		"estimated_input_tokens": 10000, "estimated_output_tokens": 0}}})
	wantStatus(t, res, http.StatusOK)
	step := object(t, res.Body, "estimate")["steps"].([]any)[0].(map[string]any)
	if number(t, step, "correction_factor") != 2 || number(t, step, "cost_usd") != 0.05 {
		t.Errorf("corrected step %v", step)
	}
	res = post("/api/burnrate/track", map[string]any{"provider": "openai", "model": "gpt-4o", "input_tokens": 1000, "output_tokens": 10})
	wantStatus(t, res, http.StatusOK)
	res = post("/api/burnrate/track", map[string]any{"provider": "openai"})
	burnrateRefused(t, res, http.StatusBadRequest, "invalid_request", "model")

	// optimize ranks substitutions
	res = post("/api/burnrate/optimize", map[string]any{"target_budget": 0.5, "plan": []any{
		map[string]any{"step": 1, "provider": "anthropic", "model": "claude-opus-4-1", "estimated_input_tokens": 30000, "estimated_output_tokens": 3000},
		map[string]any{"step": 2, "provider": "anthropic", "model": "claude-opus-4-1", "estimated_input_tokens": 30000, "estimated_output_tokens": 300},
	}})
	wantStatus(t, res, http.StatusOK)
	sg, _ := res.Body["optimization_suggestions"].([]any)
	if len(sg) < 3 || str(t, sg[0].(map[string]any), "type") != "cheaper_model" ||
		number(t, res.Body, "optimized_cost_usd") >= number(t, res.Body, "current_cost_usd") {
		t.Errorf("optimize %s", res.Raw)
	}

	// the budget: today's spend against the limit
	res = s.do(t, req{Path: "/api/burnrate/budget?daily_limit=0.06", Key: a.Key})
	wantStatus(t, res, http.StatusOK)
	if str(t, res.Body, "alert") != "warning" || number(t, res.Body, "tracked_calls") != 2 || number(t, res.Body, "estimates_today") != 2 ||
		number(t, res.Body, "optimizations_today") != 1 {
		t.Errorf("budget %s", res.Raw)
	}
	res = s.do(t, req{Path: "/api/burnrate/budget?daily_limit=-2", Key: a.Key, NoCheck: true})
	burnrateRefused(t, res, http.StatusBadRequest, "invalid_request", "daily_limit")
}

// burnratePlanFields are the fuzzed fields of a BurnRate plan (its
// step's label takes a string or a number, so it has no one kind).
var burnratePlanFields = map[string]string{"plan": "array", "plan[0]": "object", "plan[0].action": "string",
	"plan[0].provider": "string", "plan[0].model": "string", "plan[0].estimated_input_tokens": "number",
	"plan[0].estimated_output_tokens": "number", "plan[0].cache_read_tokens": "number", "plan[0].search_calls": "number",
	"plan[0].count": "number", "plan[0].prompt_length": "string", "plan[0].prompt_text_sample": "string"}
