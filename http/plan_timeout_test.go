package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"svc/domain/apikey"
	httpapi "svc/http"
	"svc/projections"
)

// TestPlanTimeout runs planning with a budget it cannot meet: 504
// plan_timeout, and nothing is saved.
func TestPlanTimeout(t *testing.T) {
	f := newFixture(t, nil, nil) // for the key's projection
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)

	runner := projections.NewRunner(store, quiet, projections.All())
	slow := httpapi.New(httpapi.Config{BaseURL: "http://test", Version: "test", PlanTimeout: time.Nanosecond},
		testDeps(t, store, runner, memoryLimiter()))
	ts := httptest.NewServer(slow.Handler())
	defer ts.Close()

	var before int
	if err := db.Pool.QueryRow(t.Context(), "SELECT count(*) FROM events WHERE type = 'WorkflowPlanned'").Scan(&before); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/rigor/plan", strings.NewReader(`{"task_description":"compare our pricing with three competitors"}`))
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := decode(t, resp)
	if resp.StatusCode != http.StatusGatewayTimeout || errCode(body) != "plan_timeout" {
		t.Fatalf("%d %v", resp.StatusCode, body)
	}
	var after int
	if err := db.Pool.QueryRow(t.Context(), "SELECT count(*) FROM events WHERE type = 'WorkflowPlanned'").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("a timed-out plan was saved: %d -> %d", before, after)
	}
}

func decode(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body
}
