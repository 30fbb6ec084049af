package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"svc/domain/apikey"
)

// TestMCPOverhead measures what a tools/call adds to the same operation
// over REST, alternating the two in one run: GET /api/burnrate/budget (a
// free read) against tools/call burnrate_budget through /api/mcp, and
// GET /api/rigor/status against rigor_status through /api/mcp/rigor. It
// reports p50 and p99 of each and the difference; it asserts no time. Run
// with SVC_BENCH_MCP=1 (docs/benchmarks.md).
func TestMCPOverhead(t *testing.T) {
	if os.Getenv("SVC_BENCH_MCP") == "" {
		t.Skip("SVC_BENCH_MCP is not set")
	}
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	_, plan := f.call(t, "POST", "/api/rigor/plan", key, map[string]any{"task_description": "compare our pricing with three competitors"})
	id := plan["plan"].(map[string]any)["workflow_id"].(string)
	send := func(method, path string, body any) time.Duration {
		var r io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			r = bytes.NewReader(raw)
		}
		req, _ := http.NewRequest(method, f.ts.URL+path, r)
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
		}
		return time.Since(start)
	}
	call := func(tool string, args map[string]any) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}
	}
	pairs := []struct {
		name       string
		rest, tool func() time.Duration
	}{
		{"burnrate budget", func() time.Duration { return send("GET", "/api/burnrate/budget", nil) },
			func() time.Duration { return send("POST", "/api/mcp", call("burnrate_budget", map[string]any{})) }},
		{"rigor status", func() time.Duration { return send("GET", "/api/rigor/status/"+id, nil) },
			func() time.Duration {
				return send("POST", "/api/mcp/rigor", call("rigor_status", map[string]any{"workflow_id": id}))
			}},
	}
	const rounds = 550 // both paths count against the suite's 1,200 a minute
	for _, p := range pairs {
		var rest, tool []time.Duration
		n := rounds
		if p.name == "rigor status" {
			n = 55 // 120 a minute for the workflow routes, both paths counted
		}
		for range n {
			rest = append(rest, p.rest())
			tool = append(tool, p.tool())
		}
		q := func(d []time.Duration, p float64) float64 {
			slices.Sort(d)
			return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
		}
		r50, r99, t50, t99 := q(rest, 0.5), q(rest, 0.99), q(tool, 0.5), q(tool, 0.99)
		fmt.Printf("metric %s rest p50 %.3f p99 %.3f tool p50 %.3f p99 %.3f added p50 %.3f ms (n=%d)\n", p.name, r50, r99, t50, t99, t50-r50, n)
	}
}
