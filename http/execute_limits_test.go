package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"svc/domain/apikey"
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
