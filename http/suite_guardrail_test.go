package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"svc/domain/apikey"
)

const bigSpend = `{"name":"No big spend","description":"caps spend","priority":5,"action_types":["purchase"],
	"rules":[{"operator":"gt","field":"cost_estimate","value":100},
		{"operator":"or","rules":[{"operator":"starts_with","field":"target.url","value":"https://shop"},{"operator":"contains","field":"tags","value":"prod"}]}],
	"tests":[{"name":"cheap","proposed_action":{"type":"purchase","cost_estimate":5},"expect":"allow"},
		{"name":"dear","proposed_action":{"type":"purchase","cost_estimate":500,"tags":["prod"]},"expect":"deny"}]}`

func TestSuiteGuardRailPolicies(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)

	code, body := rawCall(t, f, "POST", "/api/guardrail/policies", key, bigSpend)
	if code != http.StatusCreated || body["credits_used"] != float64(0) || body["fallback_behavior"] != "none" {
		t.Fatalf("create: %d %v", code, body)
	}
	p := body["policy"].(map[string]any)
	if p["name"] != "No big spend" || p["priority"] != float64(5) || p["effect"] != "deny" || p["active"] != true ||
		len(p["rules"].([]any)) != 2 || len(p["tests"].([]any)) != 2 || p["id"] == "" {
		t.Fatalf("policy: %v", p)
	}
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies", key,
		`{"name":"audit everything","rules":[{"operator":"eq","field":"type","value":"delete"}]}`)
	if code != http.StatusCreated {
		t.Fatalf("second: %d %v", code, body)
	}
	// names are unique per organization, whatever their case and spacing
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies", key, `{"name":"no  BIG spend","rules":[{"operator":"eq","field":"type","value":"x"}]}`)
	wantSuiteError(t, "duplicate name", code, body, http.StatusConflict, "policy_name_conflict", "")

	code, body = rawCall(t, f, "GET", "/api/guardrail/policies", key, "")
	list, _ := body["policies"].([]any)
	if code != 200 || body["total"] != float64(2) || len(list) != 2 || list[0].(map[string]any)["name"] != "No big spend" {
		t.Fatalf("list: %d %v", code, body)
	}
	if body["credits_used"] != float64(0) || body["credits_remaining"] == nil {
		t.Fatalf("list metadata: %v", body)
	}

	for _, c := range []struct{ body, field string }{
		{`{"rules":[{"operator":"eq","field":"a","value":1}]}`, "name"},
		{`{"name":"x"}`, "rules"},
		{`{"name":"x","rules":"eq"}`, "rules"},
		{`{"name":"x","rules":[{"operator":"eq","field":"a","value":1},{"operator":"or","rules":[{"operator":"near","field":"a","value":1}]}]}`, "rules[1].rules[0].operator"},
		{`{"name":"x","rules":[{"operator":"and"}]}`, "rules[0].rules"},
		{`{"name":"x","rules":[{"operator":"gt","value":1}]}`, "rules[0].field"},
		{`{"name":"x","rules":[{"operator":"gt","field":"a","value":"big"}]}`, "rules[0].value"},
		{`{"name":"x","priority":"high","rules":[{"operator":"eq","field":"a","value":1}]}`, "priority"},
		{`{"name":"x","effect":"warn","rules":[{"operator":"eq","field":"a","value":1}]}`, "effect"},
		{`{"name":"x","rules":[{"operator":"gt","field":"c","value":1}],"tests":[{"name":"t1","proposed_action":{"type":"a","c":0},"expect":"deny"}]}`, "tests[0]"},
	} {
		code, body := rawCall(t, f, "POST", "/api/guardrail/policies", key, c.body)
		wantSuiteError(t, c.body, code, body, http.StatusBadRequest, "invalid_request", c.field)
	}
	_, body = rawCall(t, f, "POST", "/api/guardrail/policies", key,
		`{"name":"x","rules":[{"operator":"gt","field":"c","value":1}],"tests":[{"name":"t1","proposed_action":{"type":"a","c":0},"expect":"deny"}]}`)
	if !strings.Contains(fmt.Sprint(body["message"]), `"t1"`) {
		t.Fatalf("a failing test is named: %v", body)
	}

	// admin floor (decision 173); any role lists
	member, _ := keyWithRole(t, apikey.Member)
	waitKey(t, f, member)
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies", member, `{"name":"m","rules":[{"operator":"eq","field":"a","value":1}]}`)
	wantSuiteError(t, "member creates", code, body, http.StatusForbidden, "insufficient_permissions", "")
	if code, _ := rawCall(t, f, "GET", "/api/guardrail/policies", member, ""); code != 200 {
		t.Fatalf("member lists: %d", code)
	}
	code, body = rawCall(t, f, "GET", "/api/guardrail/policies", "", "")
	wantSuiteError(t, "no key", code, body, http.StatusUnauthorized, "missing_api_key", "")
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies", "svc_live_nope", bigSpend)
	wantSuiteError(t, "bad key", code, body, http.StatusUnauthorized, "invalid_api_key", "")
}

func TestSuiteGuardRailCheck(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)

	// no policy: allowed, recorded, charged 1
	code, body := rawCall(t, f, "POST", "/api/guardrail/check", key, `{"agent_id":"a1","proposed_action":{"type":"purchase","cost_estimate":500}}`)
	if code != 200 || body["decision"] != "allow" || body["policy_id"] != nil || body["audit_id"] == nil ||
		body["credits_used"] != float64(1) || body["fallback_behavior"] != "none" {
		t.Fatalf("check without policies: %d %v", code, body)
	}
	before := body["credits_remaining"].(float64)
	if code, body := rawCall(t, f, "POST", "/api/guardrail/policies", key, bigSpend); code != 201 {
		t.Fatalf("create: %d %v", code, body)
	}
	// the new policy counts from the next check on
	code, body = rawCall(t, f, "POST", "/api/guardrail/check", key,
		`{"agent_id":"a1","proposed_action":{"type":"purchase","cost_estimate":500,"target":{"url":"https://shop.example/cart"}}}`)
	want := `Policy No big spend: rule cost_estimate gt 100 and target.url starts_with "https://shop" matched`
	if code != 200 || body["decision"] != "deny" || body["reason"] != want || body["policy_id"] == nil ||
		body["credits_remaining"] != before-1 {
		t.Fatalf("deny: %d %v", code, body)
	}
	if o := body["override"].(map[string]any); o["available"] != true || o["requires"] != "admin approval" {
		t.Fatalf("override: %v", o)
	}
	denied := body["audit_id"].(string)
	// another type: the policy does not apply
	code, body = rawCall(t, f, "POST", "/api/guardrail/check", key, `{"agent_id":"a2","proposed_action":{"type":"search","cost_estimate":500}}`)
	if code != 200 || body["decision"] != "allow" || body["override"].(map[string]any)["available"] != false {
		t.Fatalf("other type: %d %v", code, body)
	}

	// the audit log
	code, body = rawCall(t, f, "GET", "/api/guardrail/decisions?decision=deny", key, "")
	ds, _ := body["decisions"].([]any)
	if code != 200 || body["total"] != float64(1) || len(ds) != 1 || ds[0].(map[string]any)["audit_id"] != denied {
		t.Fatalf("decisions: %d %v", code, body)
	}
	code, body = rawCall(t, f, "GET", "/api/guardrail/decisions?agent_id=a1&limit=1", key, "")
	if ds, _ := body["decisions"].([]any); code != 200 || body["total"] != float64(2) || len(ds) != 1 {
		t.Fatalf("decisions of a1: %d %v", code, body)
	}
	if code, body := rawCall(t, f, "GET", "/api/guardrail/decisions?agent_id=42", key, ""); code != 200 || body["total"] != float64(0) {
		t.Fatalf("a numeric agent id: %d %v", code, body)
	}
	code, body = rawCall(t, f, "GET", "/api/guardrail/decisions?limit=0", key, "")
	wantSuiteError(t, "limit 0", code, body, 400, "invalid_request", "limit")

	// dry run: a draft over the recorded checks
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies/dry-run", key,
		`{"policy":{"rules":[{"operator":"gt","field":"cost_estimate","value":100}]},"days":1}`)
	if code != 200 || body["recorded_checks"] != float64(3) || body["would_deny"] != float64(3) || body["newly_denied"] != float64(2) ||
		len(body["examples"].([]any)) != 3 {
		t.Fatalf("dry run: %d %v", code, body)
	}
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies/dry-run", key, `{"policy":{"rules":[{"operator":"lt","field":"cost_estimate"}]}}`)
	wantSuiteError(t, "dry run bad rule", code, body, 400, "invalid_request", "policy.rules[0].value")
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies/dry-run", key, `{"policy":{"rules":[{"operator":"lt","field":"c","value":1}]},"days":31}`)
	wantSuiteError(t, "dry run days", code, body, 400, "invalid_request", "days")
	code, body = rawCall(t, f, "POST", "/api/guardrail/policies/dry-run", key, `{}`)
	wantSuiteError(t, "dry run no policy", code, body, 400, "invalid_request", "policy")

	for _, c := range []struct{ body, field string }{
		{`{"proposed_action":{"type":"x"}}`, "agent_id"},
		{`{"agent_id":"a"}`, "proposed_action"},
		{`{"agent_id":"a","proposed_action":{"cost_estimate":3}}`, "proposed_action.type"},
		{`{"agent_id":"a","proposed_action":"delete"}`, "proposed_action"},
		{`{"agent_id":7,"proposed_action":{"type":"x"}}`, "agent_id"},
	} {
		code, body := rawCall(t, f, "POST", "/api/guardrail/check", key, c.body)
		wantSuiteError(t, c.body, code, body, 400, "invalid_request", c.field)
	}
	code, body = rawCall(t, f, "POST", "/api/guardrail/check", "", `{"agent_id":"a","proposed_action":{"type":"x"}}`)
	wantSuiteError(t, "no key", code, body, 401, "missing_api_key", "")

	// 402 once the balance is spent, nothing recorded
	drain(t, orgID)
	code, body = rawCall(t, f, "POST", "/api/guardrail/check", key, `{"agent_id":"a1","proposed_action":{"type":"purchase"}}`)
	wantSuiteError(t, "drained", code, body, http.StatusPaymentRequired, "insufficient_credits", "")
	if _, body := rawCall(t, f, "GET", "/api/guardrail/decisions", key, ""); body["total"] != float64(3) {
		t.Fatalf("a refused check was recorded: %v", body)
	}
}

// Two instances (two servers over one database) creating one name at
// once: exactly one wins.
func TestSuiteGuardRailConcurrentNames(t *testing.T) {
	a, b := newFixture(t, nil, nil), newFixture(t, nil, nil)
	a.start(t)
	b.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, a, key)
	waitKey(t, b, key)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results = map[int]int{}
	)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := a
			if i%2 == 1 {
				f = b
			}
			code, _ := rawCall(t, f, "POST", "/api/guardrail/policies", key, fmt.Sprintf(`{"name":"Same %s","rules":[{"operator":"eq","field":"n","value":%d}]}`,
				[]string{"name", "NAME"}[i%2], i))
			mu.Lock()
			results[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if results[201] != 1 || results[409] != 7 {
		t.Fatalf("results: %v", results)
	}
	// the instance that did not create it sees it at once, in checks too
	_, body := rawCall(t, b, "GET", "/api/guardrail/policies", key, "")
	if body["total"] != float64(1) {
		t.Fatalf("list on b: %v", body)
	}
	// b's cache of the organization's policies, filled before the next
	// policy, sees it from the next check on
	_, body = rawCall(t, b, "POST", "/api/guardrail/check", key, `{"agent_id":"x","proposed_action":{"type":"t","m":1}}`)
	if body["decision"] != "allow" {
		t.Fatalf("before: %v", body)
	}
	if code, body := rawCall(t, a, "POST", "/api/guardrail/policies", key, `{"name":"m","rules":[{"operator":"eq","field":"m","value":1}]}`); code != 201 {
		t.Fatalf("create on a: %d %v", code, body)
	}
	_, body = rawCall(t, b, "POST", "/api/guardrail/check", key, `{"agent_id":"x","proposed_action":{"type":"t","m":1}}`)
	if body["decision"] != "deny" {
		t.Fatalf("after: %v", body)
	}
}

// Concurrent checks of one organization share transactions: each is
// charged once, answered the balance after its own charge, and recorded.
func TestSuiteGuardRailConcurrentChecks(t *testing.T) {
	f := newFixture(t, allowAll{}, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	_, body := rawCall(t, f, "GET", "/api/guardrail/policies", key, "")
	start := body["credits_remaining"].(float64)
	const n = 40
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[float64]bool{}
		ids  = map[string]bool{}
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body := rawCall(t, f, "POST", "/api/guardrail/check", key, fmt.Sprintf(`{"agent_id":"c%d","proposed_action":{"type":"t"}}`, i))
			if code != 200 {
				t.Errorf("check %d: %d %v", i, code, body)
				return
			}
			mu.Lock()
			seen[body["credits_remaining"].(float64)] = true
			ids[body["audit_id"].(string)] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(seen) != n || len(ids) != n {
		t.Fatalf("%d distinct balances, %d audit ids, want %d", len(seen), len(ids), n)
	}
	for i := 1; i <= n; i++ {
		if !seen[start-float64(i)] {
			t.Fatalf("no check was answered the balance %v: %v", start-float64(i), seen)
		}
	}
	_, body = rawCall(t, f, "GET", "/api/guardrail/decisions?limit=100", key, "")
	if body["total"] != float64(n) || body["credits_remaining"] != start-n {
		t.Fatalf("after: %v", body)
	}
}

// Concurrent checks the balance does not all cover: exactly those it
// covers are answered and recorded, the others are 402 and recorded
// nowhere (a group refused as a whole is written again check by check).
func TestSuiteGuardRailGroupShortOfCredits(t *testing.T) {
	f := newFixture(t, allowAll{}, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	drainTo(t, orgID, 5)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		codes = map[int]int{}
	)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := rawCall(t, f, "POST", "/api/guardrail/check", key, fmt.Sprintf(`{"agent_id":"s%d","proposed_action":{"type":"t"}}`, i))
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 5 || codes[402] != 7 {
		t.Fatalf("statuses %v", codes)
	}
	_, body := rawCall(t, f, "GET", "/api/guardrail/decisions", key, "")
	if body["total"] != float64(5) || body["credits_remaining"] != float64(0) {
		t.Fatalf("after: %v", body)
	}
}
