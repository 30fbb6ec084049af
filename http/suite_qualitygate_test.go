package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm"
	"svc/commands"
	"svc/commands/suite"
	"svc/domain/apikey"
	httpapi "svc/http"
	"svc/projections"
)

func qgIssues(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["issues"].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, i := range raw {
		out = append(out, i.(map[string]any))
	}
	return out
}

func TestSuiteQualityGateValidate(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)

	// directives in words and as objects: pattern checks, 1 credit
	code, body := rawCall(t, f, "POST", "/api/qualitygate/validate", key, `{
		"output": "Our plan covers pricing.\nAcme is not a threat.",
		"directives": ["must include pricing", "must not mention Acme", {"type":"max_length","value":3,"name":"short"}, {"type":"must_match","value":"plan"}]}`)
	if code != 200 || body["verdict"] != "fail" || body["checks_verdict"] != "fail" || body["credits_used"] != float64(1) || body["fallback_behavior"] != "none" {
		t.Fatalf("validate: %d %v", code, body)
	}
	if body["score"] != float64(50) || body["override"] != false || body["override_reason"] != nil || body["output_length"] != float64(46) {
		t.Fatalf("score and record: %v", body)
	}
	if ct := body["check_types"].([]any); len(ct) != 2 || ct[0] != "directive_compliance" || ct[1] != "length" {
		t.Fatalf("inferred check types %v", ct)
	}
	issues := qgIssues(t, body)
	if len(issues) != 2 {
		t.Fatalf("issues %v", issues)
	}
	acme := issues[0]
	if acme["directive"] != "must not mention Acme" || acme["line"] != float64(2) || acme["column"] != float64(1) || acme["severity"] != "error" ||
		acme["check_type"] != "directive_compliance" || acme["path"] != nil {
		t.Fatalf("Acme issue %v", acme)
	}
	if issues[1]["directive"] != "short" || issues[1]["check_type"] != "length" {
		t.Fatalf("length issue %v", issues[1])
	}
	if s := body["suggested_prompt_addition"].(string); !strings.Contains(s, `Do not mention "Acme".`) || !strings.Contains(s, "at most 3 characters") {
		t.Fatalf("suggestion %q", s)
	}
	if r := body["recommendation"].(string); !strings.Contains(r, "Do not use") {
		t.Fatalf("recommendation %q", r)
	}
	if ds := body["directives"].([]any); len(ds) != 4 || ds[0].(map[string]any)["passed"] != true || ds[1].(map[string]any)["passed"] != false {
		t.Fatalf("directives %v", ds)
	}
	balance := body["credits_remaining"].(float64)

	// a JSON Schema: the violation's path, line and column
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, `{"output": "{\n  \"name\": 7\n}",
		"schema": {"type":"object","required":["name","age"],"properties":{"name":{"type":"string"}}}}`)
	issues = qgIssues(t, body)
	if code != 200 || body["verdict"] != "fail" || len(issues) != 2 || body["credits_remaining"] != balance-1 {
		t.Fatalf("schema: %d %v", code, body)
	}
	for _, i := range issues {
		switch i["path"] {
		case "/name":
			if i["line"] != float64(2) || i["column"] != float64(11) {
				t.Fatalf("/name %v", i)
			}
		case nil:
			if !strings.Contains(i["message"].(string), "age") {
				t.Fatalf("root %v", i)
			}
		default:
			t.Fatalf("issue %v", i)
		}
	}

	// code syntax by the real parsers
	for _, c := range []struct{ lang, code string }{
		{"python", "def f(:\n    pass\n"}, {"javascript", "const = 1;"}, {"typescript", "let x: = 1;"}, {"json", "{\"a\": }"},
	} {
		b, _ := json.Marshal(map[string]any{"output": c.code, "language": c.lang})
		code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, string(b))
		issues = qgIssues(t, body)
		if code != 200 || body["verdict"] != "fail" || len(issues) == 0 || issues[0]["line"] != float64(1) || issues[0]["check_type"] != "code_syntax" {
			t.Fatalf("%s: %d %v", c.lang, code, body)
		}
	}
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, `{"output":"x = [1, 2]\nprint(x)\n","language":"py"}`)
	if code != 200 || body["verdict"] != "pass" || body["score"] != float64(100) || len(qgIssues(t, body)) != 0 || body["suggested_prompt_addition"] != "" {
		t.Fatalf("valid python: %d %v", code, body)
	}

	// LLM checks: 8 credits, deterministic offline
	before := body["credits_remaining"].(float64)
	req := `{"output":"This is a STUPID plan and it is GUARANTEED to work!!","check_types":["tone"]}`
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, req)
	if code != 200 || body["credits_used"] != float64(8) || body["credits_remaining"] != before-8 || body["verdict"] != "fail" {
		t.Fatalf("tone: %d %v", code, body)
	}
	first := qgIssues(t, body)
	_, again := rawCall(t, f, "POST", "/api/qualitygate/validate", key, req)
	if fmt.Sprint(first) != fmt.Sprint(qgIssues(t, again)) || again["score"] != body["score"] {
		t.Fatalf("not deterministic: %v / %v", first, again["issues"])
	}

	// override: pass, issues kept, reason recorded
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key,
		`{"output":"nothing","directives":["must include pricing"],"override":true,"override_reason":"reviewed by a human"}`)
	if code != 200 || body["verdict"] != "pass" || body["checks_verdict"] != "fail" || body["override"] != true ||
		body["override_reason"] != "reviewed by a human" || len(qgIssues(t, body)) != 1 || !strings.Contains(body["recommendation"].(string), "Overridden") {
		t.Fatalf("override: %d %v", code, body)
	}

	// 400 naming the field
	for _, c := range []struct{ body, field string }{
		{`{"directives":["must include x"]}`, "output"},
		{`{"output":7}`, "output"},
		{`{"output":"x"}`, "check_types"},
		{`{"output":"x","directives":"must include x"}`, "directives"},
		{`{"output":"x","directives":[{"value":"x"}]}`, "directives[0].type"},
		{`{"output":"x","directives":[{"type":"must_include"}]}`, "directives[0].value"},
		{`{"output":"x","directives":["a",{"type":"must_shout","value":"x"}]}`, "directives[1].type"},
		{`{"output":"x","directives":[{"type":"must_match","value":"a(b"}]}`, "a(b"},
		{`{"output":"x","directives":["must not match /(/"]}`, "directives[0]"},
		{`{"output":"x","directives":[{"type":"max_length","value":"lots"}]}`, "directives[0].value"},
		{`{"output":"x","directives":[7]}`, "directives[0]"},
		{`{"output":"x","check_types":["vibes"]}`, "check_types"},
		{`{"output":"x","directives":[` + strings.Repeat(`"a",`, 100) + `"a"]}`, "directives"},
		{`{"output":"x","check_types":["schema_validation"]}`, "schema"},
		{`{"output":"x","check_types":["code_syntax"]}`, "language"},
		{`{"output":"x","schema":{"type":12}}`, "schema"},
		{`{"output":"x","schema":[1]}`, "schema"},
		{`{"output":"x","language":"cobol"}`, "language"},
		{`{"output":"x","directives":["x"],"override":true}`, "override_reason"},
		{`{"output":"x","directives":["x"],"override":true,"override_reason":"  "}`, "override_reason"},
		{`{"output":"x","directives":["x"],"override":"yes"}`, "override"},
	} {
		code, body := rawCall(t, f, "POST", "/api/qualitygate/validate", key, c.body)
		wantSuiteError(t, c.body, code, body, http.StatusBadRequest, "invalid_request", c.field)
	}
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", "", `{"output":"x","directives":["x"]}`)
	wantSuiteError(t, "no key", code, body, 401, "missing_api_key", "")
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", "svc_live_nope", `{"output":"x","directives":["x"]}`)
	wantSuiteError(t, "bad key", code, body, 401, "invalid_api_key", "")

	// 402: 5 credits pay a pattern check, not an LLM check
	drainTo(t, orgID, 5)
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, `{"output":"calm words","check_types":["tone"]}`)
	wantSuiteError(t, "LLM check on 5 credits", code, body, http.StatusPaymentRequired, "insufficient_credits", "")
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, `{"output":"calm words","directives":["calm"]}`)
	if code != 200 || body["credits_remaining"] != float64(4) {
		t.Fatalf("pattern check on 5 credits: %d %v", code, body)
	}
	drainTo(t, orgID, 0)
	code, body = rawCall(t, f, "POST", "/api/qualitygate/validate", key, `{"output":"calm words","directives":["calm"]}`)
	wantSuiteError(t, "drained", code, body, http.StatusPaymentRequired, "insufficient_credits", "")
}

func TestSuiteQualityGateTrends(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)

	code, body := rawCall(t, f, "GET", "/api/qualitygate/trends", key, "")
	if code != 200 || body["total_validations"] != float64(0) || body["period_days"] != float64(30) || body["average_score"] != nil ||
		body["credits_used"] != float64(0) || body["check_type"] != nil {
		t.Fatalf("empty trends: %d %v", code, body)
	}
	for _, l := range []string{"by_check_type", "directive_effectiveness", "daily"} {
		if v, ok := body[l].([]any); !ok || len(v) != 0 {
			t.Fatalf("%s: %v", l, body[l])
		}
	}
	for _, b := range []string{
		`{"output":"pricing here","directives":["must include pricing","must include SLA"]}`,           // fail
		`{"output":"pricing and SLA","directives":["must include pricing","must include SLA"]}`,        // pass
		`{"output":"none","directives":["must include SLA"],"override":true,"override_reason":"fine"}`, // fail, overridden
		`{"output":"print(1)","language":"python"}`,                                                    // pass
	} {
		if code, body := rawCall(t, f, "POST", "/api/qualitygate/validate", key, b); code != 200 {
			t.Fatalf("validate %s: %d %v", b, code, body)
		}
	}
	code, body = rawCall(t, f, "GET", "/api/qualitygate/trends?days=7", key, "")
	if code != 200 || body["total_validations"] != float64(4) || body["passed"] != float64(2) || body["failed"] != float64(2) ||
		body["overridden"] != float64(1) || body["pass_rate"] != 0.5 || body["fail_rate"] != 0.5 || body["override_rate"] != 0.25 ||
		body["period_days"] != float64(7) {
		t.Fatalf("trends: %d %v", code, body)
	}
	dirs := body["directive_effectiveness"].([]any)
	top := dirs[0].(map[string]any)
	if top["directive"] != "must include SLA" || top["checked"] != float64(3) || top["failed"] != float64(2) || top["type"] != "must_include" {
		t.Fatalf("directive effectiveness %v", dirs)
	}
	if d := body["daily"].([]any); len(d) != 1 || d[0].(map[string]any)["total"] != float64(4) {
		t.Fatalf("daily %v", d)
	}
	code, body = rawCall(t, f, "GET", "/api/qualitygate/trends?check_type=code_syntax", key, "")
	if code != 200 || body["total_validations"] != float64(1) || body["check_type"] != "code_syntax" || len(body["by_check_type"].([]any)) != 1 {
		t.Fatalf("trends of code_syntax: %d %v", code, body)
	}

	for _, c := range []struct{ query, field string }{
		{"days=0", "days"}, {"days=91", "days"}, {"days=2.5", "days"}, {"days=week", "days"}, {"check_type=vibes", "check_type"},
	} {
		code, body := rawCall(t, f, "GET", "/api/qualitygate/trends?"+c.query, key, "")
		wantSuiteError(t, c.query, code, body, http.StatusBadRequest, "invalid_request", c.field)
	}
	code, body = rawCall(t, f, "GET", "/api/qualitygate/trends", "", "")
	wantSuiteError(t, "no key", code, body, 401, "missing_api_key", "")
	code, body = rawCall(t, f, "GET", "/api/qualitygate/trends", "svc_live_nope", "")
	wantSuiteError(t, "bad key", code, body, 401, "invalid_api_key", "")
}

// downLLM fails every call, as a provider that is down.
type downLLM struct{}

func (downLLM) Name() string { return "down" }

func (downLLM) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("provider down: %w", llm.ErrExhausted)
}

// When the LLM port fails, the pattern checks answer alone, at their price.
func TestSuiteQualityGateLLMDown(t *testing.T) {
	runner := projections.NewRunner(store, quiet, projections.All(), projections.WithPoll(10*time.Millisecond))
	deps := testDeps(t, store, runner, memoryLimiter())
	deps.Suite = suite.New(commands.NewRepositories(store), suite.Ports{LLM: downLLM{}, Queries: deps.Queries, Consistency: deps.Queries, Log: quiet})
	srv := httpapi.New(httpapi.Config{BaseURL: "http://test", Version: "test", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, deps)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { runner.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	f := &fixture{srv: srv, runner: runner}
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)

	code, body := rawCall(t, f, "POST", "/api/qualitygate/validate", key,
		`{"output":"pricing","directives":["must include pricing"],"check_types":["tone","factual_claims"]}`)
	if code != 200 || body["credits_used"] != float64(1) || body["fallback_behavior"] != suite.FallbackLLMSkipped || body["verdict"] != "pass" {
		t.Fatalf("LLM down: %d %v", code, body)
	}
	skipped := 0
	for _, i := range qgIssues(t, body) {
		if i["severity"] == "info" && strings.Contains(i["message"].(string), "Skipped") {
			skipped++
		}
	}
	if skipped != 2 || !strings.Contains(body["recommendation"].(string), "skipped") {
		t.Fatalf("skipped checks are not said: %v", body)
	}
}

// QualityGate's keys that may be null: an issue without a place, a
// directive or a JSON path; a validation not overridden; trends without a
// check type filter or without validations.
func init() {
	for _, k := range []string{"line", "column", "path", "directive", "override_reason", "check_type", "average_score"} {
		nullable[k] = true
	}
}
