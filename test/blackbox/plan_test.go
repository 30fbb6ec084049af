package blackbox

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var workflowID = regexp.MustCompile(`^wr_[0-9a-f]{32}$`)

func TestPlan(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: map[string]any{
		"task_description": "Compare our SaaS pricing with three competitors for the board",
		"task_type":        "competitive_analysis",
		"foo":              1,
		"context":          map[string]any{"additional_context": "we sell to mid-market teams"},
		"preferences":      map[string]any{"rigor_level": "standard", "require_approval": true},
	}})
	wantStatus(t, res, http.StatusOK)
	if !boolean(t, res.Body, "ok") || str(t, res.Body, "generated_title") == "" {
		t.Fatalf("plan answer %s", res.Raw)
	}
	plan := object(t, res.Body, "plan")
	id := str(t, plan, "workflow_id")
	if !workflowID.MatchString(id) {
		t.Fatalf("workflow_id %q", id)
	}
	if c := object(t, plan, "classification"); str(t, c, "task_type") != "competitive_analysis" || str(t, c, "value_class") == "" {
		t.Fatalf("classification %v", c)
	}
	seq, _ := plan["sequence"].([]any)
	if len(seq) < 4 {
		t.Fatalf("sequence %v", plan["sequence"])
	}
	total := int64(0)
	for i, raw := range seq {
		step := raw.(map[string]any)
		if integer(t, step, "step") != int64(i+1) {
			t.Fatalf("step numbers: %v", seq)
		}
		total += integer(t, step, "estimated_credits")
	}
	last := seq[len(seq)-1].(map[string]any)
	if str(t, last, "name") != "Synthesis" || str(t, last, "priority_class") != "must" || integer(t, last, "estimated_credits") != 530 {
		t.Fatalf("last step %v", last)
	}
	if review := seq[len(seq)-2].(map[string]any); str(t, review, "name") != "Multi-Perspective Review (Standard)" {
		t.Fatalf("review step %v", review)
	}
	cost := object(t, plan, "cost")
	if usd, _ := cost["usd"].(json.Number).Float64(); integer(t, cost, "credits") != total || usd != float64(total)/1000 {
		t.Fatalf("cost %v, steps sum %d", cost, total)
	}
	if _, ok := cost["range"]; ok {
		t.Fatalf("range without execution history: %v", cost)
	}
	alts := object(t, plan, "alternatives")
	if _, ok := alts["standard"]; ok || alts["quick"] == nil || alts["thorough"] == nil {
		t.Fatalf("alternatives %v", alts)
	}
	th := alts["thorough"].(map[string]any)
	for _, f := range []string{"steps", "cost", "skips", "adds", "review_model", "includes_verification", "tradeoff"} {
		if _, ok := th[f]; !ok {
			t.Fatalf("alternative lacks %s: %v", f, th)
		}
	}
	if str(t, plan, "rigor_level") != "standard" || plan["allowed_modes"] == nil {
		t.Fatalf("plan %v", plan)
	}
	ctx := object(t, plan, "context")
	if _, ok := ctx["sufficient"]; !ok || ctx["connections"] == nil || ctx["referenced_files"] == nil {
		t.Fatalf("context %v", ctx)
	}
	warnings, _ := plan["warnings"].([]any)
	if len(warnings) == 0 || warnings[0].(map[string]any)["code"] != "unknown_field" || !strings.Contains(warnings[0].(map[string]any)["message"].(string), "foo") {
		t.Fatalf("warnings %v", plan["warnings"])
	}

	st := s.do(t, req{Path: "/api/rigor/status/" + id, Key: a.Key})
	wantStatus(t, st, http.StatusOK)
	wf := object(t, st.Body, "workflow")
	if str(t, wf, "status") != "planned" || str(t, wf, "workflow_id") != id || integer(t, wf, "total_steps") != int64(len(seq)) || wf["quality_score"] != nil || str(t, wf, "execution_mode") != "standard" {
		t.Fatalf("status %v", wf)
	}
	other := s.signup(t, nil)
	wantError(t, s.do(t, req{Path: "/api/rigor/status/" + id, Key: other.Key}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Path: "/api/rigor/status/wr_nope", Key: a.Key}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Path: "/api/rigor/status/" + id}), http.StatusUnauthorized, "missing_api_key")
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	plan := func(body any) *response {
		return s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: body})
	}
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Body: map[string]any{"task_description": "x y"}}), http.StatusUnauthorized, "missing_api_key")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: `{"task_description":`}), http.StatusBadRequest, "invalid_body")
	wantError(t, plan(map[string]any{"preferences": map[string]any{}}), http.StatusBadRequest, "missing_field")
	wantError(t, plan(map[string]any{"task_description": ""}), http.StatusBadRequest, "invalid_task_description")
	wantError(t, plan(map[string]any{"task_description": "pricing"}), http.StatusBadRequest, "invalid_task_description")
	vague := plan(map[string]any{"task_description": "hello there"})
	wantError(t, vague, http.StatusBadRequest, "vague_task_description")
	details := object(t, object(t, vague.Body, "error"), "details")
	if _, ok := details["classification_confidence"]; !ok {
		t.Fatalf("vague details %v", details)
	}
	if _, ok := details["classified_as"]; !ok {
		t.Fatalf("vague details %v", details)
	}
	base := map[string]any{"task_description": "compare our pricing with competitors", "task_type": "competitive_analysis"}
	with := func(prefs map[string]any) map[string]any {
		b := map[string]any{}
		for k, v := range base {
			b[k] = v
		}
		b["preferences"] = prefs
		return b
	}
	wantError(t, plan(with(map[string]any{"skip_frameworks": []string{"SWOT Analysis"}, "only_frameworks": []string{"SWOT Analysis"}})), http.StatusBadRequest, "invalid_field")
	wantError(t, plan(with(map[string]any{"approval_before_step": []int{99}})), http.StatusBadRequest, "invalid_step_index")
	wantError(t, plan(with(map[string]any{"rigor_level": "extreme"})), http.StatusBadRequest, "invalid_field")
	bad := plan(with(map[string]any{"execution": "direct", "output_contract": map[string]any{"task_type": "x", "shape": "object", "fields": []any{map[string]any{"name": "a", "type": "date"}}}}))
	wantError(t, bad, http.StatusBadRequest, "invalid_field")
	if f := object(t, object(t, bad.Body, "error"), "details")["field"]; f != "preferences.output_contract.fields[0].type" {
		t.Fatalf("contract path %v", f)
	}
	wantError(t, plan(map[string]any{"task_description": "compare our pricing", "task_type": "nope"}), http.StatusBadRequest, "invalid_field")
	wantError(t, plan(map[string]any{"task_description": 5}), http.StatusBadRequest, "invalid_field")
}

func TestCataloguesAndEnhance(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	tt := s.do(t, req{Path: "/api/rigor/task-types", Key: a.Key})
	wantStatus(t, tt, http.StatusOK)
	types, _ := tt.Body["task_types"].([]any)
	shapes := map[string]int{}
	for _, raw := range types {
		m := raw.(map[string]any)
		shapes[str(t, m, "shape")]++
		str(t, m, "id")
		str(t, m, "label")
	}
	if shapes["workflow"] < 30 || shapes["atomic"] < 12 {
		t.Fatalf("task types by shape %v", shapes)
	}
	wantError(t, s.do(t, req{Path: "/api/rigor/task-types"}), http.StatusUnauthorized, "missing_api_key")

	all := s.do(t, req{Path: "/api/rigor/templates"})
	wantStatus(t, all, http.StatusOK)
	list, _ := all.Body["templates"].([]any)
	if len(list) < 40 {
		t.Fatalf("%d templates", len(list))
	}
	first := list[0].(map[string]any)
	for _, f := range []string{"id", "task_type", "template_name", "template_name_i18n", "template_prompt", "placeholder_fields", "description", "description_i18n", "example_filled", "display_order", "version", "category", "categories", "demo"} {
		if _, ok := first[f]; !ok {
			t.Fatalf("template lacks %s: %v", f, first)
		}
	}
	cat := str(t, first, "category")
	byCat := s.do(t, req{Path: "/api/rigor/templates?category=" + strings.ReplaceAll(strings.ReplaceAll(cat, " ", "%20"), "&", "%26")})
	for _, raw := range byCat.Body["templates"].([]any) {
		if raw.(map[string]any)["category"] != cat {
			t.Fatalf("category filter leaked %v", raw)
		}
	}
	byType := s.do(t, req{Path: "/api/rigor/templates?task_type=" + str(t, first, "task_type")})
	if n := len(byType.Body["templates"].([]any)); n == 0 || n == len(list) {
		t.Fatalf("task_type filter returned %d of %d", n, len(list))
	}
	if none := s.do(t, req{Path: "/api/rigor/templates?task_type=nope"}); len(none.Body["templates"].([]any)) != 0 {
		t.Fatal("unknown task_type matched templates")
	}

	e := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Body: map[string]any{"task_description": "help me with stuff"}})
	wantStatus(t, e, http.StatusOK)
	if integer(t, e.Body, "score") > 40 || len(e.Body["suggestions"].([]any)) == 0 || str(t, e.Body, "request_id") == "" {
		t.Fatalf("enhance %s", e.Raw)
	}
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Body: map[string]any{"task_description": strings.Repeat("a", 10001)}}), http.StatusBadRequest, "input_too_long")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Body: map[string]any{}}), http.StatusBadRequest, "missing_field")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Body: `nope`}), http.StatusBadRequest, "invalid_body")
}

func TestPlanMultiIntent(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/plan", Key: a.Key, Body: map[string]any{
		"task_description": "audit our authentication code for security vulnerabilities and draft a launch plan for the new mobile app"}})
	wantStatus(t, res, http.StatusOK)
	plan := object(t, res.Body, "plan")
	if _, ok := plan["workflow_id"]; ok {
		t.Fatalf("multi-intent plan has a top-level workflow_id: %s", res.Raw)
	}
	plans, _ := plan["plans"].([]any)
	groups, _ := plan["intent_groups"].([]any)
	if len(plans) != 2 || len(groups) != 2 || plan["total_cost"] == nil || plan["info"] == nil || plan["warnings"] == nil {
		t.Fatalf("multi-intent shape: %s", res.Raw)
	}
	sum := int64(0)
	for i, g := range groups {
		group := g.(map[string]any)
		id := str(t, group, "workflow_id")
		if id != str(t, plans[i].(map[string]any), "workflow_id") || !workflowID.MatchString(id) {
			t.Fatalf("group %d workflow id %q", i, id)
		}
		if st := s.do(t, req{Path: "/api/rigor/status/" + id, Key: a.Key}); st.Status != http.StatusOK {
			t.Fatalf("status of %s: %d", id, st.Status)
		}
		str(t, group, "primary_task_type")
		str(t, group, "reason")
		sum += integer(t, object(t, plans[i].(map[string]any), "cost"), "credits")
	}
	if integer(t, object(t, plan, "total_cost"), "credits") != sum {
		t.Fatalf("total_cost %v, plans sum %d", plan["total_cost"], sum)
	}
}

func TestEnhanceLLMTier(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	body := map[string]any{"task_description": "help me with stuff", "tier": "llm"}
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Body: body}), http.StatusUnauthorized, "missing_api_key")
	wantError(t, s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Body: map[string]any{"task_description": "a b", "tier": "gpt"}}), http.StatusBadRequest, "invalid_field")
	balance := int64(2500)
	for balance >= 270 {
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Key: a.Key, Body: body})
		wantStatus(t, res, http.StatusOK)
		balance -= 270
		if e := str(t, res.Body, "enhanced"); !strings.Contains(e, "Objective:") || !strings.Contains(e, "help me with stuff") || integer(t, res.Body, "credits_used") != 270 || integer(t, res.Body, "credits_remaining") != balance {
			t.Fatalf("llm tier: %s", res.Raw)
		}
	}
	short := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Key: a.Key, Body: body})
	wantError(t, short, http.StatusPaymentRequired, "insufficient_credits")
	details := object(t, object(t, short.Body, "error"), "details")
	if integer(t, details, "required_credits") != 270 {
		t.Fatalf("402 details %v", details)
	}
	s.waitBalance(t, a.Key, balance, 15*time.Second)
	// the free tier with a key reports the balance and charges nothing
	free := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Key: a.Key, Body: map[string]any{"task_description": "help me with stuff"}})
	wantStatus(t, free, http.StatusOK)
	if integer(t, free.Body, "credits_used") != 0 || integer(t, free.Body, "credits_remaining") != balance {
		t.Fatalf("free tier with a key: %s", free.Raw)
	}
}

func TestEnhanceAnonymousRateLimit(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	ip := nextIP()
	body := map[string]any{"task_description": "help me with stuff"}
	for i := 0; i < 120; i++ {
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", XFF: ip, Body: body})
		if res.Status != http.StatusOK || res.Header.Get("X-RateLimit-Limit") != "120" {
			t.Fatalf("request %d: %d %s, X-RateLimit-Limit %q", i+1, res.Status, res.Raw, res.Header.Get("X-RateLimit-Limit"))
		}
	}
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", XFF: ip, Body: body})
	wantError(t, res, http.StatusTooManyRequests, "rate_limit_exceeded")
	if res.Header.Get("Retry-After") == "" || res.Body["retry_after"] == nil {
		t.Fatalf("429 without retry information: %v %s", res.Header, res.Raw)
	}
	if other := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", XFF: nextIP(), Body: body}); other.Status != http.StatusOK {
		t.Fatalf("another address limited: %d", other.Status)
	}
}
