package blackbox

import (
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"
)

// TestWorkspaceBudget: a budget is Team and up, set by admins; an execute
// whose estimate exceeds what is left of it is 402
// workspace_budget_exceeded; the budget answer and the workspace resource
// show the month's spend, what remains and the reset; null removes the
// limit; viewers read, other organizations see nothing.
func TestWorkspaceBudget(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "budget")
	path := "/api/workspaces/" + p.WorkspaceID + "/budget"
	get := func(who req) *response {
		who.Path = path
		res := s.do(t, who)
		wantStatus(t, res, http.StatusOK)
		if res.Body["workspace_id"] != p.WorkspaceID {
			t.Fatalf("budget answer %s", res.Raw)
		}
		return res
	}
	put := func(v any) *response {
		return s.do(t, req{Method: http.MethodPut, Path: path, Header: p.cookie(), Body: map[string]any{"monthly_credit_budget": v}})
	}

	// free tier: no budget to set, none shown
	wantError(t, put(5000), http.StatusForbidden, "tier_required")
	free := get(req{Header: p.cookie()})
	if free.Body["monthly_credit_budget"] != nil || integer(t, free.Body, "current_month_spend") != 0 || number(t, free.Body, "budget_utilization_pct") != 0 {
		t.Fatalf("free tier budget %s", free.Raw)
	}
	now := time.Now().UTC()
	next := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	if at, err := time.Parse(time.RFC3339, str(t, free.Body, "reset_at")); err != nil || !at.Equal(next) {
		t.Fatalf("reset_at %v, want %v", free.Body["reset_at"], next)
	}

	setTier(t, s, p, "team")
	key := s.keyWithRole(t, p, p.WorkspaceID, "member")
	viewer := s.keyWithRole(t, p, p.WorkspaceID, "viewer")
	if out := cli(t, s.dbURL, "credits", "grant", "--org", p.OrgID, "--credits", "20000", "--reason", "blackbox budget"); out.Code != 0 {
		t.Fatalf("svc credits grant: %s", out)
	}
	// the first run is free: it spends nothing of the budget
	first, _ := wantQueued(t, s, s.execute(t, key, process("free budget run "+randomHex(4), map[string]any{"delivery": polling})), "polling")

	// bodies: missing is missing_field, anything but a positive integer or null invalid_body
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Header: p.cookie(), Body: map[string]any{}}), http.StatusBadRequest, "missing_field")
	for _, bad := range []any{0, -5, 1.5, "100", true, []int{1}, 1e13} {
		wantError(t, put(bad), http.StatusBadRequest, "invalid_body")
	}
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Header: p.cookie(), Body: `{"monthly_credit_budget":`}), http.StatusBadRequest, "invalid_body")
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Key: viewer, Body: map[string]any{"monthly_credit_budget": 10}}), http.StatusForbidden, "forbidden")
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Key: key, Body: map[string]any{"monthly_credit_budget": 10}}), http.StatusForbidden, "forbidden")

	// a budget of 1 refuses the next run, saying what it needs
	set := put(1)
	wantStatus(t, set, http.StatusOK)
	if set.Body["workspace_id"] != p.WorkspaceID || integer(t, set.Body, "monthly_credit_budget") != 1 {
		t.Fatalf("set: %s", set.Raw)
	}
	runX := process("budget run x "+randomHex(4), map[string]any{"delivery": polling})
	refused := s.execute(t, key, runX)
	wantError(t, refused, http.StatusPaymentRequired, "workspace_budget_exceeded")
	details := object(t, object(t, refused.Body, "error"), "details")
	est := integer(t, details, "estimated")
	if integer(t, details, "budget") != 1 || integer(t, details, "remaining") != 1 || integer(t, details, "used") != 0 || est <= 1 {
		t.Fatalf("402 details %v", details)
	}

	// a budget of one and a half runs: one passes, the next is refused
	budget := est + est/2
	wantStatus(t, put(budget), http.StatusOK)
	x, xEst := wantQueued(t, s, s.execute(t, key, runX), "polling")
	if xEst != est {
		t.Fatalf("estimate %d, refused at %d", xEst, est)
	}
	runY := process("budget run y "+randomHex(4), map[string]any{"delivery": polling})
	over := s.execute(t, key, runY)
	wantError(t, over, http.StatusPaymentRequired, "workspace_budget_exceeded")
	details = object(t, object(t, over.Body, "error"), "details")
	if integer(t, details, "budget") != budget || integer(t, details, "used") != est || integer(t, details, "remaining") != budget-est {
		t.Fatalf("402 details %v, want %d used of %d", details, est, budget)
	}

	// once the run is charged, the budget shows it
	s.waitTerminal(t, key, first, 90*time.Second)
	wf := s.waitTerminal(t, key, x, 90*time.Second)
	if wf["status"] != "completed" {
		t.Fatalf("run %v", wf)
	}
	used := integer(t, wf, "credits_used")
	shown := s.poll(t, req{Path: path, Key: viewer}, 30*time.Second, func(res *response) bool {
		return res.Status == http.StatusOK && integer(t, res.Body, "current_month_spend") == used
	}, func(res *response) string { return fmt.Sprintf("the budget never shows %d spent: %s", used, res.Raw) })
	if integer(t, shown.Body, "monthly_credit_budget") != budget ||
		math.Abs(number(t, shown.Body, "budget_utilization_pct")-math.Round(float64(used)*10000/float64(budget))/100) > 0.001 {
		t.Fatalf("budget %s", shown.Raw)
	}
	ws := s.do(t, req{Path: "/api/workspaces/" + p.WorkspaceID, Header: p.cookie()})
	wantStatus(t, ws, http.StatusOK)
	b := object(t, ws.Body, "budget")
	if integer(t, b, "monthly_credit_budget") != budget || integer(t, b, "monthly_credits_used") != used ||
		integer(t, b, "budget_remaining") != budget-used || str(t, b, "budget_reset_at") != next.Format(time.RFC3339) {
		t.Fatalf("workspace budget %v", b)
	}

	// null removes the limit
	removed := put(nil)
	wantStatus(t, removed, http.StatusOK)
	if v, ok := removed.Body["monthly_credit_budget"]; !ok || v != nil {
		t.Fatalf("remove: %s", removed.Raw)
	}
	after := get(req{Key: viewer})
	if after.Body["monthly_credit_budget"] != nil || integer(t, after.Body, "current_month_spend") != used || number(t, after.Body, "budget_utilization_pct") != 0 {
		t.Fatalf("after removal %s", after.Raw)
	}
	if ws := s.do(t, req{Path: "/api/workspaces/" + p.WorkspaceID, Header: p.cookie()}); ws.Body["budget"] != nil {
		t.Fatalf("a removed budget is shown: %s", ws.Raw)
	}
	y, _ := wantQueued(t, s, s.execute(t, key, runY), "polling")
	s.waitTerminal(t, key, y, 90*time.Second)

	// another organization sees nothing
	q := s.signUpPerson(t, "budget-other")
	wantError(t, s.do(t, req{Path: path, Header: q.cookie()}), http.StatusNotFound, "not_found")
	wantError(t, s.do(t, req{Method: http.MethodPut, Path: path, Header: q.cookie(), Body: map[string]any{"monthly_credit_budget": 10}}),
		http.StatusNotFound, "not_found")
	replayBilling(t, s.dbURL, p.OrgID)
}
