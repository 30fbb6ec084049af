package blackbox

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
)

// usageList requires field to be a JSON array and returns its objects.
func usageList(t testing.TB, m map[string]any, field string) []map[string]any {
	t.Helper()
	raw, ok := m[field].([]any)
	if !ok {
		t.Fatalf("field %q is %T %v, want an array", field, m[field], m[field])
	}
	out := make([]map[string]any, 0, len(raw))
	for i, v := range raw {
		o, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s[%d] is %T, want an object", field, i, v)
		}
		out = append(out, o)
	}
	return out
}

// usageRow finds the row of list whose field equals want (nil: JSON null).
func usageRow(t testing.TB, list []map[string]any, field string, want any) map[string]any {
	t.Helper()
	for _, r := range list {
		if v, ok := r[field]; ok && v == want {
			return r
		}
	}
	t.Fatalf("no row with %s = %v in %v", field, want, list)
	return nil
}

// wantKeys requires m to have exactly the given keys.
func wantKeys(t testing.TB, what string, m map[string]any, keys ...string) {
	t.Helper()
	if len(m) != len(keys) {
		t.Errorf("%s has keys %v, want exactly %v", what, keysOf(m), keys)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q: %v", what, k, m)
		}
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// usdOf requires field to be credits/1000.
func usdOf(t testing.TB, m map[string]any, field string, credits int64) {
	t.Helper()
	if got := number(t, m, field); fmt.Sprint(got) != fmt.Sprint(float64(credits)/1000) {
		t.Errorf("%s = %v, want %v (credits %d x 0.001)", field, got, float64(credits)/1000, credits)
	}
}

// injectUsage writes to the server's event log what no public endpoint can
// make yet: a viewer key in a's workspace (no workspace-key endpoint) and a
// charge without a key, as a browser session makes (no session login yet).
// It returns the viewer key.
func injectUsage(t *testing.T, s *server, a account, browserCredits int64) string {
	t.Helper()
	ctx := context.Background()
	pool, err := eventstore.Connect(ctx, s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := eventstore.New(pool)
	secret, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	if _, err := store.Append(ctx, apikey.Stream(id), event.NewStream, event.New{Metadata: event.Metadata{OrgID: a.OrgID},
		Data: apikey.Created{KeyID: id, OrgID: a.OrgID, WorkspaceID: a.WorkspaceID, Hash: secret.Hash, Prefix: secret.Prefix,
			Label: "dashboard", Role: apikey.Viewer, CreatedBy: "blackbox"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.NewChargeCreditsHandler(commands.NewRepositories(store)).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{
		OrgID: a.OrgID, Amount: browserCredits, Reason: "browser_call"}}); err != nil {
		t.Fatal(err)
	}
	return secret.Raw
}

// workflowCharges sums the CreditsCharged events of workflow id, and counts them.
func workflowCharges(events []tailEvent, id string) (credits, charges int64) {
	for _, e := range events {
		if e.Type == "CreditsCharged" && e.Data["workflow_id"] == id {
			n, _ := e.Data["amount"].(float64)
			credits += int64(n)
			charges++
		}
	}
	return credits, charges
}

func TestUsageSummaryAndCosts(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	s.grant(t, a, 10000)

	// the first workflow is free; the second is charged
	first, _ := wantQueued(t, s, s.execute(t, a.Key, process("usage free", map[string]any{"delivery": polling})), "polling")
	s.waitTerminal(t, a.Key, first, 60*time.Second)
	id, _ := wantQueued(t, s, s.execute(t, a.Key, process("usage charged", map[string]any{"delivery": polling})), "polling")
	wf := s.waitTerminal(t, a.Key, id, 60*time.Second)
	used := integer(t, wf, "credits_used")
	if wf["status"] != "completed" || used <= 0 {
		t.Fatalf("charged workflow: %v", wf)
	}
	// a gateway charge: the llm tier of enhance costs 270 credits
	res := s.do(t, req{Method: http.MethodPost, Path: "/api/rigor/enhance", Key: a.Key,
		Body: map[string]any{"task_description": "Write a launch plan for our app in Germany", "tier": "llm"}})
	wantStatus(t, res, http.StatusOK)
	const browser = 7
	viewer := injectUsage(t, s, a, browser)
	total := used + 270 + browser

	events := s.settledEvents(t, a)
	logged, steps := workflowCharges(events, id)
	if logged != used {
		t.Fatalf("the ledger charged workflow %s %d credits, status says credits_used %d", id, logged, used)
	}

	// the viewer key reads usage once the projections have the charges
	summary := func(query string) *response {
		return s.do(t, req{Path: "/api/rigor/usage-summary" + query, Key: viewer})
	}
	res = s.poll(t, req{Path: "/api/rigor/usage-summary", Key: viewer}, 60*time.Second, func(res *response) bool {
		return res.Status == http.StatusOK && fmt.Sprint(object(t, res.Body, "period_totals")["credits"]) == fmt.Sprint(total)
	}, func(res *response) string {
		return fmt.Sprintf("usage-summary did not reach %d credits within 60 s: %d %s", total, res.Status, res.Raw)
	})
	if res.Header.Get("X-RateLimit-Limit") == "" {
		t.Error("usage-summary is not rate limited (no X-RateLimit-Limit)")
	}
	checkUsageSummary(t, s, a, res, used, total, browser)

	costs := s.do(t, req{Path: "/api/rigor/costs", Key: viewer})
	wantStatus(t, costs, http.StatusOK)
	checkCosts(t, a, costs, total, steps)
	for group, rows := range map[string]int{"task_type": 2, "workspace": 2, "api_key": 2, "month": -1, "week": -1, "hour": -1} {
		res := s.do(t, req{Path: "/api/rigor/costs?group_by=" + group, Key: a.Key})
		wantStatus(t, res, http.StatusOK)
		if str(t, res.Body, "group_by") != group {
			t.Errorf("group_by %v, want %s", res.Body["group_by"], group)
		}
		list := usageList(t, res.Body, "breakdown")
		if rows > 0 && len(list) != rows {
			t.Errorf("group_by=%s: %d rows, want %d: %s", group, len(list), rows, res.Raw)
		}
		var sum int64
		for _, r := range list {
			wantKeys(t, "costs breakdown row", r, "key", "label", "workflow_count", "step_count", "credits_used", "revenue_usd")
			sum += integer(t, r, "credits_used")
		}
		if sum != total {
			t.Errorf("group_by=%s: rows add up to %d credits, want %d", group, sum, total)
		}
		if group == "api_key" {
			row := usageRow(t, list, "key", nil)
			if row["label"] != "Browser session" || integer(t, row, "credits_used") != browser {
				t.Errorf("browser-session row %v", row)
			}
		}
		if group == "task_type" {
			row := usageRow(t, list, "key", "process_improvement")
			if integer(t, row, "credits_used") != used || integer(t, row, "workflow_count") != 1 || integer(t, row, "step_count") != steps {
				t.Errorf("process_improvement row %v, want %d credits, 1 workflow, %d steps", row, used, steps)
			}
		}
	}

	// a period before the org existed: zeros, every day listed
	res = summary("?from=2020-01-01&to=2020-01-31&granularity=day")
	wantStatus(t, res, http.StatusOK)
	if n := len(usageList(t, res.Body, "trend")); n != 31 {
		t.Errorf("January 2020 by day: %d buckets, want 31", n)
	}
	if integer(t, object(t, res.Body, "period_totals"), "credits") != 0 || len(usageList(t, res.Body, "breakdown_by_api_key")) != 0 {
		t.Errorf("a period without usage: %s", res.Raw)
	}
	res = summary("?from=" + url.QueryEscape(time.Now().Add(-48*time.Hour).Format(time.RFC3339)) + "&granularity=hour")
	wantStatus(t, res, http.StatusOK)
	if n := len(usageList(t, res.Body, "trend")); n < 48 || n > 49 {
		t.Errorf("two days by hour: %d buckets", n)
	}
}

func checkUsageSummary(t *testing.T, s *server, a account, res *response, used, total, browser int64) {
	t.Helper()
	b := res.Body
	wantKeys(t, "usage-summary", b, "ok", "request_id", "credits_used", "credits_remaining", "balance", "burn_rate",
		"period_totals", "trend", "breakdown_by_workspace", "breakdown_by_task_type", "breakdown_by_api_key")
	if !boolean(t, b, "ok") || str(t, b, "request_id") != res.RequestID || integer(t, b, "credits_used") != 0 {
		t.Errorf("envelope fields: %s", res.Raw)
	}
	balance := s.balance(t, a.Key)
	bal := object(t, b, "balance")
	if integer(t, bal, "credits") != balance || integer(t, b, "credits_remaining") != balance {
		t.Errorf("balance %v, credits_remaining %v, want %d", bal, b["credits_remaining"], balance)
	}
	usdOf(t, bal, "usd", balance)

	burn := object(t, b, "burn_rate")
	if days := number(t, burn, "window_days"); days != 30 {
		t.Errorf("window_days %v, want 30 (the default period)", days)
	}
	if got, want := number(t, burn, "credits_per_day"), float64(total)/30; fmt.Sprintf("%.2f", got) != fmt.Sprintf("%.2f", want) {
		t.Errorf("credits_per_day %v, want %.2f", got, want)
	}
	number(t, burn, "usd_per_day")
	for _, sf := range []string{"workflow", "gateway"} {
		o := object(t, object(t, burn, "by_surface"), sf)
		number(t, o, "credits_per_day")
		number(t, o, "usd_per_day")
	}

	period := object(t, b, "period_totals")
	wantKeys(t, "period_totals", period, "credits", "usd", "workflow_count", "by_surface", "by_product")
	usdOf(t, period, "usd", total)
	if integer(t, period, "workflow_count") != 1 {
		t.Errorf("workflow_count %v, want 1 (the free first run costs nothing)", period["workflow_count"])
	}
	surfaces := object(t, period, "by_surface")
	if integer(t, object(t, surfaces, "workflow"), "credits") != used || integer(t, object(t, surfaces, "gateway"), "credits") != 270+browser {
		t.Errorf("by_surface %v, want workflow %d and gateway %d", surfaces, used, 270+browser)
	}

	trend := usageList(t, b, "trend")
	if len(trend) != 31 {
		t.Errorf("%d day buckets over the last 30 days, want 31", len(trend))
	}
	var sum int64
	for _, r := range trend {
		wantKeys(t, "trend bucket", r, "bucket_start", "bucket_end", "credits", "usd", "workflow_count", "by_surface", "by_product")
		start, err := time.Parse(time.RFC3339, str(t, r, "bucket_start"))
		if err != nil || start.Hour() != 0 || start.Minute() != 0 {
			t.Errorf("bucket_start %v is not a UTC midnight", r["bucket_start"])
		}
		sum += integer(t, r, "credits")
	}
	if sum != total {
		t.Errorf("the trend adds up to %d, want %d", sum, total)
	}

	ws := usageList(t, b, "breakdown_by_workspace")
	row := usageRow(t, ws, "workspace_id", a.WorkspaceID)
	wantKeys(t, "workspace row", row, "workspace_id", "workspace_name", "credits", "usd", "share")
	if integer(t, row, "credits") != used+270 {
		t.Errorf("workspace row %v, want %d credits", row, used+270)
	}
	number(t, row, "share")

	types := usageList(t, b, "breakdown_by_task_type")
	row = usageRow(t, types, "task_type", "process_improvement")
	wantKeys(t, "task type row", row, "task_type", "credits", "usd", "workflow_count", "pct")
	if integer(t, row, "credits") != used || integer(t, row, "workflow_count") != 1 {
		t.Errorf("task type row %v, want %d credits and 1 workflow", row, used)
	}
	if got, want := number(t, row, "pct"), 100*float64(used)/float64(total); fmt.Sprintf("%.1f", got) != fmt.Sprintf("%.1f", want) {
		t.Errorf("pct %v, want %.2f", got, want)
	}

	keys := usageList(t, b, "breakdown_by_api_key")
	if len(keys) != 2 {
		t.Errorf("breakdown_by_api_key %v, want the signup key and the browser session", keys)
	}
	for _, r := range keys {
		wantKeys(t, "api key row", r, "api_key_id", "api_key_name", "credits", "usd", "call_count", "pct")
	}
	row = usageRow(t, keys, "api_key_name", "Signup key")
	uuidField(t, row, "api_key_id")
	if integer(t, row, "credits") != used+270 {
		t.Errorf("signup key row %v, want %d credits", row, used+270)
	}
	row = usageRow(t, keys, "api_key_id", nil)
	if row["api_key_name"] != "Browser session" || integer(t, row, "credits") != browser || integer(t, row, "call_count") != 1 {
		t.Errorf("browser-session row %v", row)
	}
	usdOf(t, row, "usd", browser)
}

func checkCosts(t *testing.T, a account, res *response, total, steps int64) {
	t.Helper()
	b := res.Body
	wantKeys(t, "costs", b, "ok", "request_id", "credits_used", "credits_remaining", "org_id", "workspace_id", "raw_cogs_visible",
		"range", "group_by", "summary", "breakdown")
	if str(t, b, "org_id") != a.OrgID || str(t, b, "workspace_id") != a.WorkspaceID || boolean(t, b, "raw_cogs_visible") ||
		str(t, b, "group_by") != "day" || integer(t, b, "credits_used") != 0 {
		t.Errorf("costs: %s", res.Raw)
	}
	rng := object(t, b, "range")
	from, err1 := time.Parse(time.RFC3339, str(t, rng, "from"))
	to, err2 := time.Parse(time.RFC3339, str(t, rng, "to"))
	if err1 != nil || err2 != nil || to.Sub(from) != 30*24*time.Hour {
		t.Errorf("range %v, want the last 30 days", rng)
	}
	sum := object(t, b, "summary")
	wantKeys(t, "summary", sum, "workflow_count", "step_count", "credits_used", "revenue_usd")
	if integer(t, sum, "credits_used") != total || integer(t, sum, "workflow_count") != 1 || integer(t, sum, "step_count") != steps {
		t.Errorf("summary %v, want %d credits, 1 workflow, %d steps", sum, total, steps)
	}
	usdOf(t, sum, "revenue_usd", total)
	if n := len(usageList(t, b, "breakdown")); n != 31 {
		t.Errorf("costs by day: %d rows, want 31", n)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	for _, c := range []struct{ path, field string }{
		{"/api/rigor/usage-summary?granularity=year", "granularity"},
		{"/api/rigor/usage-summary?from=yesterday", "from"},
		{"/api/rigor/usage-summary?to=2026-13-01", "to"},
		{"/api/rigor/usage-summary?from=2026-02-01&to=2026-01-01", "from"},
		{"/api/rigor/usage-summary?from=2020-01-01&to=2026-01-01&granularity=hour", "granularity"},
		{"/api/rigor/costs?group_by=agent_id", "group_by"},
		{"/api/rigor/costs?from=2026-01-01T00:00:00", "from"},
		{"/api/rigor/costs?from=2020-01-01&to=2026-01-01&group_by=hour", "group_by"},
	} {
		res := s.do(t, req{Path: c.path, Key: a.Key})
		wantError(t, res, http.StatusBadRequest, "invalid_field")
		if f := object(t, object(t, res.Body, "error"), "details")["field"]; f != c.field {
			t.Errorf("%s: details.field %v, want %s", c.path, f, c.field)
		}
	}
	// a long period is fine when it is not split by hour
	wantStatus(t, s.do(t, req{Path: "/api/rigor/costs?from=2020-01-01&to=2026-01-01&group_by=api_key", Key: a.Key}), http.StatusOK)
	for _, p := range []string{"/api/rigor/usage-summary", "/api/rigor/costs"} {
		wantError(t, s.do(t, req{Path: p}), http.StatusUnauthorized, "missing_api_key")
		wantError(t, s.do(t, req{Path: p, Key: "svc_live_" + randomHex(24)}), http.StatusUnauthorized, "invalid_api_key")
	}
}
