package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"svc/adapters/ratelimit"
	"svc/commands"
	"svc/domain/apikey"
	"svc/domain/credit"
	httpapi "svc/http"
)

// dailySpent is a limiter whose daily execute budget is used up; every
// other window is the in-memory limiter's.
type dailySpent struct{ httpapi.Limiter }

func (d dailySpent) Allow(ctx context.Context, key string, limit int, window time.Duration) (httpapi.LimitDecision, error) {
	if strings.HasPrefix(key, "execute-day:") {
		return httpapi.LimitDecision{Limit: limit, RetryAfter: time.Hour}, nil
	}
	return d.Limiter.Allow(ctx, key, limit, window)
}

// TestDailyExecuteLimit: the 1,001st execute of a UTC day answers 429
// rate_limit_exceeded with retry_after (seconds to midnight UTC) and
// Retry-After, and queues nothing.
func TestDailyExecuteLimit(t *testing.T) {
	f := newFixture(t, dailySpent{memoryLimiter()}, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	req, _ := http.NewRequest("POST", f.ts.URL+"/api/rigor/execute", strings.NewReader(`{"task_description":"compare our pricing with three competitors","delivery":{"method":"polling"}}`))
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := decode(t, resp)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	details, _ := body["error"].(map[string]any)["details"].(map[string]any)
	if resp.StatusCode != http.StatusTooManyRequests || errCode(body) != "rate_limit_exceeded" || retry < 1 || retry > 86401 ||
		body["retry_after"] != float64(retry) || details["limit"] != float64(1000) {
		t.Fatalf("%d %v Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	var n int
	if err := db.Pool.QueryRow(t.Context(), "SELECT count(*) FROM events WHERE type = 'WorkflowQueued' AND org_id = $1", orgID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d workflows queued past the daily limit", n)
	}
}

// tinyDaily is the in-process limiter with a daily execute allowance of
// limit instead of the tier's; it gives counts back like serve's.
type tinyDaily struct {
	apiLimiter
	limit int
}

func (d tinyDaily) Allow(ctx context.Context, key string, limit int, window time.Duration) (httpapi.LimitDecision, error) {
	if strings.HasPrefix(key, "execute-day:") {
		limit = d.limit
	}
	return d.apiLimiter.Allow(ctx, key, limit, window)
}

// countedToday is how many executes of org the limiter counts today (read
// by counting one more with a limit it cannot reach, and giving it back).
func countedToday(t *testing.T, l tinyDaily, orgID string) int {
	t.Helper()
	ctx := context.Background()
	key := "execute-day:" + orgID + ":" + time.Now().UTC().Format("2006-01-02")
	const huge = 1 << 30
	d, err := l.apiLimiter.Allow(ctx, key, huge, 24*time.Hour)
	if err != nil || !d.Allowed {
		t.Fatalf("probe: %+v, %v", d, err)
	}
	if err := l.Undo(ctx, key); err != nil {
		t.Fatal(err)
	}
	return huge - d.Remaining - 1
}

// postExecute posts body to execute with key and decodes the answer.
func postExecute(t *testing.T, f *fixture, key, body string) (int, map[string]any) {
	t.Helper()
	return post(t, f, "/api/rigor/execute", key, body)
}

func post(t *testing.T, f *fixture, path, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.ts.URL+path, strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, decode(t, resp)
}

// TestRefusedExecutesKeepTheDailyAllowance: with a daily allowance of 2,
// executes the command refuses (409 duplicate_task, 429
// concurrent_limit_exceeded, 404 not_found, 402 insufficient_credits) use
// none of it: the second accepted execute passes, and the limit still
// refuses the third.
func TestRefusedExecutesKeepTheDailyAllowance(t *testing.T) {
	lim := tinyDaily{apiLimiter{ratelimit.NewMemory()}, 2}
	f := newFixture(t, lim, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	want := func(status int, body map[string]any, wantStatus int, code string, counted int) {
		t.Helper()
		if status != wantStatus || (code != "" && errCode(body) != code) {
			t.Fatalf("%d %v, want %d %s", status, body, wantStatus, code)
		}
		if n := countedToday(t, lim, orgID); n != counted {
			t.Fatalf("after a %d %s: %d executes counted today, want %d", status, code, n, counted)
		}
	}
	first := `{"task_description":"compare our pricing with three competitors","delivery":{"method":"polling"}}`
	second := `{"task_description":"draft a launch plan for our mobile app in Germany","delivery":{"method":"polling"}}`

	status, body := postExecute(t, f, key, first)
	want(status, body, http.StatusOK, "", 1)
	a, _ := body["workflow_id"].(string)
	status, body = postExecute(t, f, key, first)
	want(status, body, http.StatusConflict, "duplicate_task", 1)
	status, body = postExecute(t, f, key, second) // the free tier runs one at a time
	want(status, body, http.StatusTooManyRequests, "concurrent_limit_exceeded", 1)
	status, body = postExecute(t, f, key, `{"workflow_id":"wr_00000000000000000000000000000000","delivery":{"method":"polling"}}`)
	want(status, body, http.StatusNotFound, "not_found", 1)
	status, body = postExecute(t, f, key, `{"task_description":"x"}`) // refused before it is counted
	want(status, body, http.StatusBadRequest, "invalid_task_description", 1)

	status, body = post(t, f, "/api/rigor/workflows/actions", key, `{"action":"cancel","confirm":true,"workflow_ids":["`+a+`"]}`)
	if status != http.StatusOK {
		t.Fatalf("cancel: %d %v", status, body)
	}
	ctx := context.Background()
	repos := commands.NewRepositories(store)
	bal, err := commands.NewChargeCreditsHandler(repos).Handle(ctx, commands.ChargeCredits{Charge: credit.Charged{OrgID: orgID, Amount: 2500, Reason: "test"}})
	if err != nil || bal.Balance != 0 {
		t.Fatalf("draining the balance: %+v, %v", bal, err)
	}
	status, body = postExecute(t, f, key, second)
	want(status, body, http.StatusPaymentRequired, "insufficient_credits", 1)

	if _, err := commands.NewGrantCreditsHandler(repos).Handle(ctx, commands.GrantCredits{OrgID: orgID, Amount: 10_000, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	status, body = postExecute(t, f, key, second)
	want(status, body, http.StatusOK, "", 2)
	status, body = postExecute(t, f, key, `{"task_description":"summarise last week's support tickets by theme","delivery":{"method":"polling"}}`)
	want(status, body, http.StatusTooManyRequests, "rate_limit_exceeded", 2)
}

// TestWorkflowIDsCountQueuedWorkflows: an execute with workflow_ids counts
// one execute per queued workflow: those the limits refuse are given back,
// a refusal of the whole request counts nothing, and ids the allowance
// does not cover refuse the request (429 rate_limit_exceeded) with nothing
// queued.
func TestWorkflowIDsCountQueuedWorkflows(t *testing.T) {
	lim := tinyDaily{apiLimiter{ratelimit.NewMemory()}, 2}
	f := newFixture(t, lim, nil)
	f.start(t)
	key, orgID := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	plan := func(desc string) []string {
		t.Helper()
		status, body := post(t, f, "/api/rigor/plan", key, `{"task_description":"`+desc+`"}`)
		plan, _ := body["plan"].(map[string]any)
		plans, _ := plan["plans"].([]any)
		if status != http.StatusOK || len(plans) != 2 {
			t.Fatalf("multi-intent plan: %d %v", status, body)
		}
		var ids []string
		for _, p := range plans {
			ids = append(ids, p.(map[string]any)["workflow_id"].(string))
		}
		return ids
	}
	ids := plan("audit our authentication code for security vulnerabilities and draft a launch plan for the new mobile app")

	// the free tier runs one workflow at a time: the first is queued, the
	// second refused and given back
	status, body := postExecute(t, f, key, `{"workflow_ids":["`+ids[0]+`","`+ids[1]+`"]}`)
	queued, _ := body["workflows"].([]any)
	refused, _ := body["refused"].([]any)
	if status != http.StatusOK || len(queued) != 1 || len(refused) != 1 {
		t.Fatalf("%d %v", status, body)
	}
	r := refused[0].(map[string]any)
	e, _ := r["error"].(map[string]any)
	details, _ := e["details"].(map[string]any)
	if q := queued[0].(map[string]any); q["workflow_id"] != ids[0] || q["status"] != "queued" || q["delivery_mode"] != "polling" ||
		r["workflow_id"] != ids[1] || e["code"] != "concurrent_limit_exceeded" || details["workflow_id"] != ids[1] || e["request_id"] == "" {
		t.Fatalf("answer %v", body)
	}
	if n := countedToday(t, lim, orgID); n != 1 {
		t.Fatalf("%d executes counted, want 1 (the queued workflow)", n)
	}

	// refused whole: nothing counted
	status, body = postExecute(t, f, key, `{"workflow_ids":["`+ids[1]+`"]}`)
	details, _ = body["error"].(map[string]any)["details"].(map[string]any)
	if status != http.StatusTooManyRequests || errCode(body) != "concurrent_limit_exceeded" || details["workflow_id"] != ids[1] {
		t.Fatalf("%d %v", status, body)
	}
	status, body = postExecute(t, f, key, `{"workflow_ids":["wr_00000000000000000000000000000000"]}`)
	if status != http.StatusNotFound || errCode(body) != "not_found" {
		t.Fatalf("%d %v", status, body)
	}
	if n := countedToday(t, lim, orgID); n != 1 {
		t.Fatalf("%d executes counted after refusals, want 1", n)
	}

	// two more do not fit in the day's allowance of 2
	more := plan("review our vendor contracts for compliance risks and write a hiring plan for the support team")
	status, body = postExecute(t, f, key, `{"workflow_ids":["`+more[0]+`","`+more[1]+`"]}`)
	if status != http.StatusTooManyRequests || errCode(body) != "rate_limit_exceeded" {
		t.Fatalf("%d %v", status, body)
	}
	if n := countedToday(t, lim, orgID); n != 1 {
		t.Fatalf("%d executes counted after the daily refusal, want 1", n)
	}
	var n int
	if err := db.Pool.QueryRow(t.Context(), "SELECT count(*) FROM events WHERE type = 'WorkflowQueued' AND org_id = $1", orgID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d workflows queued (%v), want 1", n, err)
	}
}
