package blackbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// qualitygate posts body to QualityGate's validate with key and requires
// status.
func (s *server) qualitygate(t *testing.T, key string, body any, status int) map[string]any {
	t.Helper()
	// a refusal is in the suite's envelope, checked here
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/qualitygate/validate", Key: key, Body: body, NoCheck: status >= 400})
	if res.Status != status {
		t.Fatalf("POST /api/qualitygate/validate %v: %d, want %d: %s", body, res.Status, status, res.Raw)
	}
	if status >= 400 {
		qgEnvelope(t, res)
	}
	return res.Body
}

// qgEnvelope checks a refusal's suite envelope: {error, message,
// request_id (the X-Request-Id), status}.
func qgEnvelope(t *testing.T, res *response) {
	t.Helper()
	b := res.Body
	if _, ok := b["error"].(string); !ok || b["message"] == "" || b["request_id"] != res.RequestID || qgNum(b["status"]) != float64(res.Status) {
		t.Fatalf("not the suite's envelope: %s", res.Raw)
	}
}

// qgNum is a JSON number of a decoded answer (json.Number), -1 for
// anything else.
func qgNum(v any) float64 {
	n, ok := v.(json.Number)
	if !ok {
		return -1
	}
	f, err := n.Float64()
	if err != nil {
		return -1
	}
	return f
}

func qgFirstIssue(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	issues, _ := body["issues"].([]any)
	if len(issues) == 0 {
		t.Fatalf("no issue: %v", body)
	}
	return issues[0].(map[string]any)
}

// TestSuiteQualityGate: validations by directives, a JSON Schema and the
// real parsers (esbuild, tree-sitter's Python built into the binary), an
// LLM check through the offline writer, an override, the refusals, and
// the trends that read them back.
func TestSuiteQualityGate(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)

	out := s.qualitygate(t, a.Key, map[string]any{"output": "The report covers pricing.\nIt never mentions Acme... wait, Acme.",
		"directives": []any{"must include pricing", "must not mention Acme", map[string]any{"type": "max_length", "value": "40 words"}}}, 200)
	if out["verdict"] != "fail" || qgNum(out["credits_used"]) != 1 || out["fallback_behavior"] != "none" {
		t.Fatalf("directives: %v", out)
	}
	if i := qgFirstIssue(t, out); qgNum(i["line"]) != 2 || qgNum(i["column"]) != 19 || i["directive"] != "must not mention Acme" {
		t.Fatalf("issue position: %v", i)
	}
	if !strings.Contains(out["suggested_prompt_addition"].(string), `Do not mention "Acme".`) {
		t.Fatalf("suggestion: %v", out)
	}

	out = s.qualitygate(t, a.Key, map[string]any{"output": "Here:\n```json\n{\"id\": \"x\"}\n```",
		"schema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "integer"}}}}, 200)
	if i := qgFirstIssue(t, out); out["verdict"] != "fail" || i["path"] != "/id" || qgNum(i["line"]) != 3 || qgNum(i["column"]) != 8 {
		t.Fatalf("schema in a fence: %v", out)
	}

	for lang, code := range map[string]string{"python": "def ok(:\n  pass\n", "typescript": "const x: = 2", "javascript": "if (", "json": "[1,]"} {
		out = s.qualitygate(t, a.Key, map[string]any{"output": code, "language": lang}, 200)
		if i := qgFirstIssue(t, out); out["verdict"] != "fail" || i["check_type"] != "code_syntax" || qgNum(i["line"]) != 1 {
			t.Fatalf("%s: %v", lang, out)
		}
	}
	out = s.qualitygate(t, a.Key, map[string]any{"output": "```python\nprint('ok')\n```", "language": "python"}, 200)
	if out["verdict"] != "pass" || qgNum(out["score"]) != 100 {
		t.Fatalf("valid python: %v", out)
	}

	// an LLM check: 8 credits, the offline writer's judgement
	out = s.qualitygate(t, a.Key, map[string]any{"output": "Revenue grew 40% in 2024.", "check_types": []any{"factual_claims"}}, 200)
	if qgNum(out["credits_used"]) != 8 || out["verdict"] == "pass" || qgFirstIssue(t, out)["check_type"] != "factual_claims" {
		t.Fatalf("LLM check: %v", out)
	}

	// an override is a pass that keeps the issues
	out = s.qualitygate(t, a.Key, map[string]any{"output": "x", "directives": []any{"must include pricing"}, "override": true, "override_reason": "approved by legal"}, 200)
	if out["verdict"] != "pass" || out["checks_verdict"] != "fail" || out["override_reason"] != "approved by legal" || len(out["issues"].([]any)) != 1 {
		t.Fatalf("override: %v", out)
	}

	suiteCode(t, s.qualitygate(t, a.Key, map[string]any{"output": "x", "directives": []any{"x"}, "override": true}, 400), "invalid_request")
	suiteCode(t, s.qualitygate(t, a.Key, map[string]any{"directives": []any{"x"}}, 400), "invalid_request")
	suiteCode(t, s.qualitygate(t, a.Key, map[string]any{"output": "x", "directives": []any{map[string]any{"type": "must_match", "value": "(("}}}, 400), "invalid_request")
	suiteCode(t, s.qualitygate(t, "", map[string]any{"output": "x"}, 401), "missing_api_key")
	suiteCode(t, s.qualitygate(t, "svc_live_unknown", map[string]any{"output": "x"}, 401), "invalid_api_key")

	res := s.do(t, req{Method: http.MethodGet, Path: "/api/qualitygate/trends?days=1", Key: a.Key})
	wantStatus(t, res, 200)
	b := res.Body
	if qgNum(b["total_validations"]) != 9 || qgNum(b["overridden"]) != 1 || qgNum(b["credits_used"]) != 0 || qgNum(b["period_days"]) != 1 {
		t.Fatalf("trends: %v", b)
	}
	if d := b["directive_effectiveness"].([]any); len(d) == 0 || qgNum(d[0].(map[string]any)["failed"]) < 1 {
		t.Fatalf("directive effectiveness: %v", b)
	}
	res = s.do(t, req{Method: http.MethodGet, Path: "/api/qualitygate/trends?days=365", Key: a.Key, NoCheck: true})
	wantStatus(t, res, 400)
	qgEnvelope(t, res)
	suiteCode(t, res.Body, "invalid_request")

	// another organization sees none of it
	other := s.signup(t, nil)
	res = s.do(t, req{Method: http.MethodGet, Path: "/api/qualitygate/trends", Key: other.Key})
	if wantStatus(t, res, 200); qgNum(res.Body["total_validations"]) != 0 {
		t.Fatalf("another organization's trends: %v", res.Body)
	}
}
