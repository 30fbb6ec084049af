package httpapi_test

import (
	"math"
	"strings"
	"sync"
	"testing"

	"svc/domain/apikey"
)

// burnrateError requires a suite refusal: status, code, and a message
// containing each of names.
func burnrateError(t *testing.T, code int, body map[string]any, wantStatus int, wantCode string, names ...string) {
	t.Helper()
	if code != wantStatus || body["error"] != wantCode || body["status"] != float64(wantStatus) {
		t.Fatalf("%d %v, want %d %s", code, body, wantStatus, wantCode)
	}
	msg, _ := body["message"].(string)
	for _, n := range names {
		if !strings.Contains(msg+" "+burnrateString(body["fix"]), n) {
			t.Errorf("%s: message %q (fix %v) does not name %q", wantCode, msg, body["fix"], n)
		}
	}
}

func burnrateString(v any) string { s, _ := v.(string); return s }

func burnrateKey(t *testing.T, f *fixture) (string, string) {
	t.Helper()
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	return key, orgID
}

func TestSuiteBurnRateEstimate(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, orgID := burnrateKey(t, f)

	// spec C's REST shape
	code, body := f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"budget_limit": 0.01, "plan": []any{
		map[string]any{"step": 1, "action": "summarize", "provider": "openai", "model": "gpt-4o-2024-08-06",
			"estimated_input_tokens": 10000, "estimated_output_tokens": 1000},
		map[string]any{"step": 2, "action": "web_search", "provider": "openai", "count": 3},
		map[string]any{"step": 3, "action": "draft the report", "provider": "anthropic", "prompt_length": "long"},
		map[string]any{"step": 4, "action": "classify", "provider": "google", "model": "gemini-2.5-flash",
			"prompt_text_sample": "Is this support ticket about billing or about shipping? Answer with one word."},
	}})
	if code != 200 || body["credits_used"] != float64(1) || body["fallback_behavior"] != "none" || body["prices_as_of"] == "" {
		t.Fatalf("estimate: %d %v", code, body)
	}
	est := body["estimate"].(map[string]any)
	steps := est["steps"].([]any)
	if len(steps) != 4 || est["within_budget"] != false || est["budget_limit"] != 0.01 {
		t.Fatalf("estimate %v", est)
	}
	s1, s2, s3, s4 := steps[0].(map[string]any), steps[1].(map[string]any), steps[2].(map[string]any), steps[3].(map[string]any)
	if s1["model"] != "gpt-4o" || s1["cost_usd"] != 0.035 || s1["cost_usd_formatted"] != "$0.0350" || s1["input_tokens_source"] != "given" {
		t.Errorf("step 1 %v", s1)
	}
	if s2["search_calls"] != float64(3) || s2["cost_usd"] != 0.03 || s2["model_source"] != "none" {
		t.Errorf("search step %v", s2)
	}
	if s3["model"] != "claude-sonnet-4-5" || s3["model_source"] != "provider_default" || s3["input_tokens"] != float64(6000) ||
		s3["input_tokens_source"] != "prompt_length" || s3["output_tokens_source"] != "action_kind" {
		t.Errorf("defaults %v", s3)
	}
	if s4["input_tokens_source"] != "prompt_text_sample" || s4["output_tokens"] != float64(100) {
		t.Errorf("sample %v", s4)
	}
	total := 0.0
	for _, s := range steps {
		total += s.(map[string]any)["cost_usd"].(float64)
	}
	if got := est["total_cost_usd"].(float64); math.Abs(got-total) > 1e-5 || !strings.HasPrefix(est["total_cost_usd_formatted"].(string), "$") {
		t.Errorf("total %v, steps sum to %v", est, total)
	}
	if sg := body["optimization_suggestions"].([]any); len(sg) == 0 || len(sg) > 3 || sg[0].(map[string]any)["rank"] != float64(1) {
		t.Errorf("suggestions %v", sg)
	}

	// the tool manifest's shape: string labels, search_calls, no action
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"step": "research", "provider": "openai", "model": "gpt-4o-mini", "estimated_input_tokens": 1000.0,
			"estimated_output_tokens": 200, "cache_read_tokens": 500, "search_calls": 2},
	}})
	if code != 200 {
		t.Fatalf("manifest shape: %d %v", code, body)
	}
	st := body["estimate"].(map[string]any)["steps"].([]any)[0].(map[string]any)
	if st["step"] != "research" || st["search_calls"] != float64(2) || st["cache_read_tokens"] != float64(500) ||
		body["estimate"].(map[string]any)["within_budget"] != true {
		t.Errorf("manifest step %v", st)
	}

	// refusals
	code, body = f.call(t, "POST", "/api/burnrate/estimate", "", map[string]any{"plan": []any{}})
	burnrateError(t, code, body, 401, "missing_api_key")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", "svc_live_nope", map[string]any{"plan": []any{}})
	burnrateError(t, code, body, 401, "invalid_api_key")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{})
	burnrateError(t, code, body, 400, "invalid_request", "plan")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{}})
	burnrateError(t, code, body, 400, "invalid_request", "plan")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{map[string]any{"action": "x"}}})
	burnrateError(t, code, body, 400, "invalid_request", "plan[0].provider")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "openai", "estimated_input_tokens": "many"}}})
	burnrateError(t, code, body, 400, "invalid_request", "estimated_input_tokens")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "openai", "estimated_output_tokens": 1.5}}})
	burnrateError(t, code, body, 400, "invalid_request", "plan[0].estimated_output_tokens")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "openai", "prompt_length": "enormous"}}})
	burnrateError(t, code, body, 400, "invalid_request", "plan[0].prompt_length")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "openai", "step": true}}})
	burnrateError(t, code, body, 400, "invalid_request", "plan[0].step")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"budget_limit": -1, "plan": []any{
		map[string]any{"provider": "openai"}}})
	burnrateError(t, code, body, 400, "invalid_request", "budget_limit")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"step": "a"}, map[string]any{"step": "draft", "provider": "openai", "model": "gpt-4-o"}}})
	if code != 400 {
		t.Fatalf("%d %v", code, body)
	}
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "openai"}, map[string]any{"step": "draft", "provider": "openai", "model": "gpt-4-o"}}})
	burnrateError(t, code, body, 400, "unknown_model", "draft", "gpt-4-o", "gpt-4o")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "openai", "model": "claude-sonnet-4-5"}}})
	burnrateError(t, code, body, 400, "unknown_model", "anthropic")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "opnai", "model": "gpt-4o"}}})
	burnrateError(t, code, body, 400, "unknown_provider", "opnai", "openai")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"provider": "deepseek", "search_calls": 2}}})
	burnrateError(t, code, body, 400, "invalid_request", "plan[0].search_calls")

	// 402 before any work, also for a plan that would price
	drain(t, orgID)
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{map[string]any{"provider": "openai"}}})
	burnrateError(t, code, body, 402, "insufficient_credits")
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": []any{map[string]any{"provider": "openai"}}})
	burnrateError(t, code, body, 402, "insufficient_credits")
	// free operations still answer
	code, body = f.call(t, "GET", "/api/burnrate/budget", key, nil)
	if code != 200 || body["credits_remaining"] != float64(0) || body["estimates_today"] != float64(2) {
		t.Errorf("budget after draining: %d %v", code, body)
	}
}

func TestSuiteBurnRateTrackCorrectsEstimates(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := burnrateKey(t, f)
	plan := map[string]any{"plan": []any{map[string]any{"provider": "openai", "model": "gpt-4o",
		"estimated_input_tokens": 1_000_000, "estimated_output_tokens": 0}}}
	stepOf := func() map[string]any {
		t.Helper()
		code, body := f.call(t, "POST", "/api/burnrate/estimate", key, plan)
		if code != 200 {
			t.Fatalf("estimate %d %v", code, body)
		}
		return body["estimate"].(map[string]any)["steps"].([]any)[0].(map[string]any)
	}
	if s := stepOf(); s["cost_usd"] != 2.5 || s["correction_factor"] != float64(1) {
		t.Fatalf("before tracking %v", s)
	}
	// paid twice the list price of its tokens
	code, body := f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o-2024-11-20",
		"actual_cost": 0.01, "input_tokens": 2000, "output_tokens": 0, "task_id": "t-1"})
	if code != 200 || body["credits_used"] != float64(0) || body["model"] != "gpt-4o" || body["cost_usd"] != 0.01 ||
		body["observed_ratio"] != float64(2) || body["task_id"] != "t-1" {
		t.Fatalf("track %d %v", code, body)
	}
	corr := body["correction"].(map[string]any)
	if corr["updated"] != true || corr["factor"] != float64(2) || corr["previous_factor"] != float64(1) || corr["samples"] != float64(1) {
		t.Errorf("correction %v", corr)
	}
	if s := stepOf(); s["cost_usd"] != float64(5) || s["correction_factor"] != float64(2) || s["list_cost_usd"] != 2.5 {
		t.Errorf("after tracking %v", s)
	}
	// the manifest's shape: tokens, no cost; priced with the correction
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o",
		"input_tokens": 1000, "output_tokens": 0})
	if code != 200 || body["cost_source"] != "price_map" || body["cost_usd"] != 0.005 ||
		body["correction"].(map[string]any)["updated"] != false {
		t.Errorf("track by tokens %d %v", code, body)
	}
	// a model the map does not list counts in the budget with its cost
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "ft:my-model", "actual_cost": 1})
	if code != 200 || body["known_model"] != false {
		t.Errorf("unknown model with a cost %d %v", code, body)
	}
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "ft:my-model",
		"input_tokens": 1, "output_tokens": 1})
	burnrateError(t, code, body, 400, "unknown_model", "ft:my-model")
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai"})
	burnrateError(t, code, body, 400, "invalid_request", "model")
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o"})
	burnrateError(t, code, body, 400, "invalid_request", "actual_cost")
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o", "actual_cost": -1})
	burnrateError(t, code, body, 400, "invalid_request", "actual_cost")
	code, body = f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o", "actual_cost": 1, "input_tokens": -3})
	burnrateError(t, code, body, 400, "invalid_request", "input_tokens")
	code, body = f.call(t, "POST", "/api/burnrate/track", "", map[string]any{})
	burnrateError(t, code, body, 401, "missing_api_key")

	// today's budget: 0.01 + 0.005 + 1 tracked
	code, body = f.call(t, "GET", "/api/burnrate/budget?daily_limit=1.2", key, nil)
	if code != 200 || body["spend_usd"] != 1.015 || body["tracked_calls"] != float64(3) || body["alert"] != "warning" ||
		body["remaining_usd"] != 0.185 || body["percent_used"] != 84.6 || len(body["by_model"].([]any)) != 2 {
		t.Fatalf("budget %d %v", code, body)
	}
	if m := body["by_model"].([]any)[0].(map[string]any); m["model"] != "ft:my-model" || m["spend_usd"] != float64(1) {
		t.Errorf("by model %v", m)
	}
	for q, alert := range map[string]string{"": "none", "?daily_limit=10": "ok", "?daily_limit=1": "exceeded"} {
		if code, body := f.call(t, "GET", "/api/burnrate/budget"+q, key, nil); code != 200 || body["alert"] != alert {
			t.Errorf("budget%s: %d %v, want alert %s", q, code, body, alert)
		}
	}
	code, body = f.call(t, "GET", "/api/burnrate/budget?daily_limit=abc", key, nil)
	burnrateError(t, code, body, 400, "invalid_request", "daily_limit")
	code, body = f.call(t, "GET", "/api/burnrate/budget?daily_limit=0", key, nil)
	burnrateError(t, code, body, 400, "invalid_request", "daily_limit")
	code, body = f.call(t, "GET", "/api/burnrate/budget", "svc_live_nope", nil)
	burnrateError(t, code, body, 401, "invalid_api_key")
	// another organization sees none of it
	other, _ := burnrateKey(t, f)
	if code, body := f.call(t, "GET", "/api/burnrate/budget", other, nil); code != 200 || body["spend_usd"] != float64(0) {
		t.Errorf("another org's budget %d %v", code, body)
	}
}

func TestSuiteBurnRateOptimize(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := burnrateKey(t, f)
	plan := []any{
		map[string]any{"step": "analyze", "provider": "anthropic", "model": "claude-opus-4-1", "estimated_input_tokens": 20000, "estimated_output_tokens": 4000},
		map[string]any{"step": "write", "provider": "anthropic", "model": "claude-opus-4-1", "estimated_input_tokens": 20000, "estimated_output_tokens": 800},
	}
	code, body := f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": plan, "target_budget": 1})
	if code != 200 || body["credits_used"] != float64(1) {
		t.Fatalf("optimize %d %v", code, body)
	}
	sg := body["optimization_suggestions"].([]any)
	if len(sg) != 4 {
		t.Fatalf("suggestions %v", sg)
	}
	kinds := map[string]bool{}
	prev := math.Inf(1)
	for i, x := range sg {
		m := x.(map[string]any)
		kinds[m["type"].(string)] = true
		if m["rank"] != float64(i+1) || m["saving_usd"].(float64) > prev || m["saving_usd"].(float64) <= 0 {
			t.Errorf("not ranked: %v", sg)
		}
		prev = m["saving_usd"].(float64)
	}
	for _, k := range []string{"cheaper_model", "prompt_caching", "batch_api", "fewer_output_tokens"} {
		if !kinds[k] {
			t.Errorf("no %s suggestion: %v", k, sg)
		}
	}
	first := sg[0].(map[string]any)
	if first["type"] != "cheaper_model" || first["to_model"] != "claude-sonnet-4-5" || len(first["steps"].([]any)) != 2 {
		t.Errorf("first %v", first)
	}
	cur, opt := body["current_cost_usd"].(float64), body["optimized_cost_usd"].(float64)
	if opt >= cur || body["meets_target"] != true || body["target_budget"] != float64(1) ||
		math.Abs(body["potential_savings_usd"].(float64)-(cur-opt)) > 1e-5 {
		t.Errorf("totals %v", body)
	}
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": plan, "max_suggestions": 1, "target_budget": 0.001})
	if code != 200 || len(body["optimization_suggestions"].([]any)) != 1 || body["meets_target"] != false {
		t.Errorf("one suggestion %d %v", code, body)
	}
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": plan, "max_suggestions": 0})
	burnrateError(t, code, body, 400, "invalid_request", "max_suggestions")
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": plan, "target_budget": "cheap"})
	burnrateError(t, code, body, 400, "invalid_request", "target_budget")
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{})
	burnrateError(t, code, body, 400, "invalid_request", "plan")
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": []any{map[string]any{"provider": "anthropic", "model": "claude-9"}}})
	burnrateError(t, code, body, 400, "unknown_model", "claude-9")
	code, body = f.call(t, "POST", "/api/burnrate/optimize", "", map[string]any{"plan": plan})
	burnrateError(t, code, body, 401, "missing_api_key")
	// nothing to save
	code, body = f.call(t, "POST", "/api/burnrate/optimize", key, map[string]any{"plan": []any{map[string]any{"provider": "tavily", "action": "search"}}})
	if code != 200 || len(body["optimization_suggestions"].([]any)) != 0 || body["potential_savings_usd"] != float64(0) {
		t.Errorf("nothing to save %d %v", code, body)
	}
}

// TestSuiteBurnRateConcurrentTracks: tracks of one model racing (the
// calibration is one stream) are each counted once, none lost.
func TestSuiteBurnRateConcurrentTracks(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := burnrateKey(t, f)
	const n = 12
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body := f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o-mini",
				"actual_cost": 0.0003, "input_tokens": 1000, "output_tokens": 250})
			if code != 200 {
				t.Errorf("track: %d %v", code, body)
			}
		}()
	}
	wg.Wait()
	code, body := f.call(t, "POST", "/api/burnrate/track", key, map[string]any{"provider": "openai", "model": "gpt-4o-mini",
		"actual_cost": 0.0003, "input_tokens": 1000, "output_tokens": 250})
	if c := body["correction"].(map[string]any); code != 200 || c["samples"] != float64(n+1) || c["factor"] != float64(1) {
		t.Errorf("after %d concurrent tracks: %d %v", n, code, body)
	}
	_, body = f.call(t, "GET", "/api/burnrate/budget", key, nil)
	if body["tracked_calls"] != float64(n+1) || body["spend_usd"] != 0.0039 {
		t.Errorf("budget %v", body)
	}
}

func TestSuiteBurnRateCountIsForSearches(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := burnrateKey(t, f)
	code, body := f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"action": "summarize", "provider": "openai", "count": 3}}})
	burnrateError(t, code, body, 400, "invalid_request", "plan[0].count", "search_calls")
	code, body = f.call(t, "POST", "/api/burnrate/estimate", key, map[string]any{"plan": []any{
		map[string]any{"action": "research", "provider": "tavily", "count": 3},
		map[string]any{"action": "summarize", "provider": "openai", "search_calls": 2, "estimated_input_tokens": 0, "estimated_output_tokens": 0}}})
	if code != 200 {
		t.Fatalf("%d %v", code, body)
	}
	steps := body["estimate"].(map[string]any)["steps"].([]any)
	if s := steps[0].(map[string]any); s["search_calls"] != float64(3) || s["cost_usd"] != 0.024 {
		t.Errorf("tavily %v", s)
	}
	if s := steps[1].(map[string]any); s["search_calls"] != float64(2) || s["cost_usd"] != 0.02 || s["model"] != "gpt-4o" {
		t.Errorf("searches beside a model call %v", s)
	}
}
