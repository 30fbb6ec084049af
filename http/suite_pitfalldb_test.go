package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/domain/pitfalldb"
	"svc/eventstore"
	"svc/projections"
)

// pitfallKey is a fresh organization's owner key, usable.
func pitfallKey(t *testing.T, f *fixture) (string, string) {
	t.Helper()
	key, org := keyWithRole(t, apikey.Owner)
	waitKey(t, f, key)
	return key, org
}

func pitfallReport(t *testing.T, f *fixture, key, taskType string, failure map[string]any) map[string]any {
	t.Helper()
	code, body := f.call(t, "POST", "/api/pitfalldb/report", key, map[string]any{"task_type": taskType,
		"task_description": "nightly export of the orders table", "failure": failure})
	if code != 201 {
		t.Fatalf("report: %d %v", code, body)
	}
	if _, err := uuid.Parse(body["report_id"].(string)); err != nil || body["credits_used"] != float64(0) || body["message"] == "" {
		t.Fatalf("report answer %v", body)
	}
	return body
}

func pitfallQuery(t *testing.T, f *fixture, key string, q map[string]any) (map[string]any, []map[string]any) {
	t.Helper()
	code, body := f.call(t, "POST", "/api/pitfalldb/query", key, q)
	if code != 200 || body["credits_used"] != float64(2) || body["fallback_behavior"] != "none" {
		t.Fatalf("query: %d %v", code, body)
	}
	var out []map[string]any
	for _, p := range body["pitfalls"].([]any) {
		out = append(out, p.(map[string]any))
	}
	return body, out
}

func TestSuitePitfallDBReportVerifyQuery(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	a, _ := pitfallKey(t, f)
	b, orgB := pitfallKey(t, f)
	tt := "export_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	failure := map[string]any{"error_type": "DuplicateRowError", "error_message": "row 1234 inserted twice by the agent",
		"root_cause": "retry without idempotency key", "fix_applied": "idempotency key", "fix_worked": false, "language": "Python"}

	first := pitfallReport(t, f, a, tt, failure)
	if first["verified"] != false || first["linked_pitfall_id"] == nil {
		t.Fatalf("first report %v", first)
	}
	// one organization alone does not verify it: queries do not return it
	_, ps := pitfallQuery(t, f, a, map[string]any{"task_type": tt})
	for _, p := range ps {
		if p["id"] == first["linked_pitfall_id"] {
			t.Fatalf("an unverified pitfall was returned: %v", p)
		}
	}
	// a second organization's report of the same failure (other numbers) verifies it
	failure["error_message"] = "row 98 inserted twice by the agent"
	failure["fix_worked"] = true
	second := pitfallReport(t, f, b, strings.ToUpper(tt), failure)
	if second["verified"] != true || second["linked_pitfall_id"] != first["linked_pitfall_id"] {
		t.Fatalf("second report %v, first %v", second, first)
	}
	// the reporter's own next request reflects its report (read fences,
	// decision 230); another organization's reads it once the read model
	// has it, which the reporter's read has waited for
	pitfallQuery(t, f, b, map[string]any{"task_type": tt})
	body, ps := pitfallQuery(t, f, a, map[string]any{"task_type": tt, "filters": map[string]any{"language": "python"}})
	var got map[string]any
	for _, p := range ps {
		if p["id"] == first["linked_pitfall_id"] {
			got = p
		}
	}
	if got == nil {
		t.Fatalf("the verified pitfall is not returned: %v", body)
	}
	applies := got["applies_to"].(map[string]any)
	if got["reports"] != float64(2) || got["frequency"] != "reported 2 times by 2 organizations" || got["severity"] != "high" ||
		got["fix"] != "idempotency key" || got["fix_confidence"] != 0.5 || applies["task_type"] != tt || applies["language"] != "python" {
		t.Fatalf("pitfall %v", got)
	}
	if body["total_matching"].(float64) < float64(len(ps)) {
		t.Fatalf("total_matching %v below %d", body["total_matching"], len(ps))
	}
	// a filter it does not match leaves it out
	_, ps = pitfallQuery(t, f, a, map[string]any{"task_type": tt, "filters": map[string]any{"language": "go"}})
	for _, p := range ps {
		if p["id"] == first["linked_pitfall_id"] {
			t.Fatal("a python pitfall returned for go")
		}
	}

	// stats count it
	code, stats := f.call(t, "GET", "/api/pitfalldb/stats", a, nil)
	act, _ := stats["recent_activity"].(map[string]any)
	if code != 200 || stats["total_reports"].(float64) < 2 || stats["total_pitfalls"].(float64) < 31 || act["your_reports"] != float64(1) ||
		act["reports_last_7_days"].(float64) < 2 || stats["credits_used"] != float64(0) {
		t.Fatalf("stats %d %v", code, stats)
	}
	found := false
	for _, x := range stats["top_task_types"].([]any) {
		found = found || x.(map[string]any)["task_type"] == tt
	}
	_ = found // other tests' task types may outnumber it

	// erasing organization B takes its report away: the pitfall is left
	// with one organization's report, unverified again
	ctx := context.Background()
	if _, err := eventstore.DeleteOrgEvents(ctx, db.Pool, orgB, 100000); err != nil {
		t.Fatal(err)
	}
	if _, err := projections.EraseOrg(ctx, db.Pool, projections.All(), projections.OrgErasure{OrgID: orgB}); err != nil {
		t.Fatal(err)
	}
	_, ps = pitfallQuery(t, f, a, map[string]any{"task_type": tt})
	for _, p := range ps {
		if p["id"] == first["linked_pitfall_id"] {
			t.Fatalf("the pitfall is still verified after the erasure of one of its two organizations: %v", p)
		}
	}
	var reports, orgs int
	if err := db.Pool.QueryRow(ctx, `SELECT reports, orgs FROM pitfalldb_pitfalls WHERE pitfall_id = $1`, first["linked_pitfall_id"]).Scan(&reports, &orgs); err != nil || reports != 1 || orgs != 1 {
		t.Fatalf("after the erasure: %d reports by %d orgs, %v", reports, orgs, err)
	}
}

func TestSuitePitfallDBStarterAndSemantic(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := pitfallKey(t, f)
	body, ps := pitfallQuery(t, f, key, map[string]any{"task_type": "Web Scraping"})
	if len(ps) < 4 || body["total_matching"].(float64) < 4 {
		t.Fatalf("starter pitfalls of web_scraping: %v", body)
	}
	rank := map[string]int{"critical": 4, "high": 3, "medium": 2, "low": 1}
	for i, p := range ps {
		if i > 0 && rank[p["severity"].(string)] > rank[ps[i-1]["severity"].(string)] {
			t.Fatalf("not ranked by severity: %v", ps)
		}
		if p["fix"] == "" || len(p["tags"].([]any)) == 0 || !strings.HasPrefix(p["frequency"].(string), "known pitfall") {
			t.Fatalf("starter pitfall %v", p)
		}
	}
	// a description puts the relevant ones first
	_, sem := pitfallQuery(t, f, key, map[string]any{"task_type": "web_scraping",
		"task_description": "scrape prices from a shop whose pages render the product list with JavaScript"})
	if !strings.Contains(sem[0]["title"].(string), "JavaScript") {
		t.Fatalf("semantic search ranked first %v", sem[0])
	}
	// a report matching a starter pitfall's signals joins it, verified
	rep := pitfallReport(t, f, key, "web_scraping", map[string]any{"error_type": "HTTPError", "error_message": "429 Too Many Requests from shop.example.com"})
	if rep["verified"] != true || !strings.Contains(rep["message"].(string), "starter set") {
		t.Fatalf("report of a starter pitfall %v", rep)
	}
}

func TestSuitePitfallDBScrubsStoredEvents(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, _ := pitfallKey(t, f)
	file, err := os.Open("../domain/pitfalldb/testdata/scrub_corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var inputs, bad []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		var c struct {
			Input          string   `json:"input"`
			MustNotContain []string `json:"must_not_contain"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if len(c.MustNotContain) > 0 {
			inputs = append(inputs, c.Input)
			bad = append(bad, c.MustNotContain...)
		}
	}
	// each nasty input in a field, four reports' fields at a time
	fields := []string{"error_message", "root_cause", "fix_applied", "error_type"}
	var ids []string
	for i := 0; i < len(inputs); i += len(fields) {
		failure := map[string]any{}
		for j, field := range fields {
			if i+j < len(inputs) {
				failure[field] = truncate(inputs[i+j], 200)
			}
		}
		body := pitfallReport(t, f, key, "scrub_test", failure)
		ids = append(ids, body["report_id"].(string))
	}
	// and every one in a task description
	code, body := f.call(t, "POST", "/api/pitfalldb/report", key, map[string]any{"task_type": "scrub_test",
		"task_description": strings.Join(inputs, "\n"), "failure": map[string]any{"error_type": "ScrubTest"}})
	if code != 201 {
		t.Fatalf("report: %d %v", code, body)
	}
	ids = append(ids, body["report_id"].(string))
	rows, err := db.Pool.Query(context.Background(), `SELECT data::text FROM events WHERE type = 'PitfallReported' AND data->>'report_id' = ANY($1)`, ids)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := collectStrings(rows)
	if err != nil || len(stored) != len(ids) {
		t.Fatalf("%d events for %d reports: %v", len(stored), len(ids), err)
	}
	// the text a report carries: its ids (random UUIDs, which may hold
	// "415" by chance) are left out of the comparison
	var texts []string
	for _, raw := range stored {
		var ev pitfalldb.Reported
		if err := json.Unmarshal([]byte(raw), &ev); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, ev.TaskType, ev.Signature, ev.TaskDescription, ev.ErrorType, ev.ErrorMessage, ev.RootCause,
			ev.FixApplied, ev.Language, ev.Framework, ev.Provider)
	}
	all := strings.Join(texts, "\n")
	// the events hold JSON: compare with the JSON spelling of each item too
	for _, b := range bad {
		enc, _ := json.Marshal(b)
		if strings.Contains(all, b) || strings.Contains(all, strings.Trim(string(enc), `"`)) {
			t.Errorf("%q reached the log", b)
		}
	}
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func collectStrings(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close()
}) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func TestSuitePitfallDBRefusals(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	key, orgID := pitfallKey(t, f)
	for _, c := range []struct {
		path  string
		key   string
		body  any
		code  int
		error string
		field string
	}{
		{"/api/pitfalldb/query", "", map[string]any{"task_type": "x"}, 401, "missing_api_key", ""},
		{"/api/pitfalldb/report", "svc_live_nope", map[string]any{"task_type": "x"}, 401, "invalid_api_key", ""},
		{"/api/pitfalldb/query", key, map[string]any{}, 400, "invalid_request", "task_type"},
		{"/api/pitfalldb/query", key, map[string]any{"task_type": 5}, 400, "invalid_request", "task_type"},
		{"/api/pitfalldb/query", key, map[string]any{"task_type": "x", "filters": "python"}, 400, "invalid_request", "filters"},
		{"/api/pitfalldb/query", key, map[string]any{"task_type": "???"}, 400, "invalid_request", "task_type"},
		{"/api/pitfalldb/query", key, map[string]any{"task_type": "x", "filters": map[string]any{"language": strings.Repeat("x", 201)}}, 400, "invalid_request", "filters.language"},
		{"/api/pitfalldb/report", key, map[string]any{"task_description": "d", "failure": map[string]any{"error_type": "E"}}, 400, "invalid_request", "task_type"},
		{"/api/pitfalldb/report", key, map[string]any{"task_type": "t", "failure": map[string]any{"error_type": "E"}}, 400, "invalid_request", "task_description"},
		{"/api/pitfalldb/report", key, map[string]any{"task_type": "t", "task_description": "d"}, 400, "invalid_request", "failure"},
		{"/api/pitfalldb/report", key, map[string]any{"task_type": "t", "task_description": "d", "failure": map[string]any{"fix_applied": "x"}}, 400, "invalid_request", "failure"},
		{"/api/pitfalldb/report", key, map[string]any{"task_type": "t", "task_description": "d", "failure": map[string]any{"error_type": "E", "fix_worked": "yes"}}, 400, "invalid_request", "fix_worked"},
		{"/api/pitfalldb/report", key, map[string]any{"task_type": "t", "task_description": strings.Repeat("x", 4001), "failure": map[string]any{"error_type": "E"}}, 400, "invalid_request", "task_description"},
	} {
		code, body := f.call(t, "POST", c.path, c.key, c.body)
		if code != c.code || body["error"] != c.error || !strings.Contains(body["message"].(string), c.field) {
			t.Errorf("%s %v: %d %v, want %d %s naming %q", c.path, c.body, code, body, c.code, c.error, c.field)
		}
	}
	if code, body := f.call(t, "GET", "/api/pitfalldb/stats", "", nil); code != 401 || body["error"] != "missing_api_key" {
		t.Errorf("stats without a key: %d %v", code, body)
	}
	// a balance of 1 does not cover a query (2 credits); reports and stats stay free
	drainTo(t, orgID, 1)
	code, body := f.call(t, "POST", "/api/pitfalldb/query", key, map[string]any{"task_type": "web_scraping"})
	if code != 402 || body["error"] != "insufficient_credits" {
		t.Fatalf("query with 1 credit: %d %v", code, body)
	}
	body = pitfallReport(t, f, key, "t", map[string]any{"error_type": "E"})
	if body["credits_remaining"] != float64(1) {
		t.Fatalf("report with 1 credit: %v", body)
	}
	if code, body := f.call(t, "GET", "/api/pitfalldb/stats", key, nil); code != 200 || body["credits_remaining"] != float64(1) {
		t.Fatalf("stats with 1 credit: %d %v", code, body)
	}
}

// TestSuitePitfallDBConcurrentReports: reports of one pitfall from two
// organizations at once all land (a lost version race is decided again),
// and the pitfall counts each once.
func TestSuitePitfallDBConcurrentReports(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	a, _ := pitfallKey(t, f)
	b, _ := pitfallKey(t, f)
	tt := "race_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	const n = 12
	ids := make(chan string, n)
	done := make(chan struct{})
	for i := range n {
		key := a
		if i%2 == 1 {
			key = b
		}
		go func() {
			defer func() { done <- struct{}{} }()
			code, body := f.call(t, "POST", "/api/pitfalldb/report", key, map[string]any{"task_type": tt, "task_description": "d",
				"failure": map[string]any{"error_type": "RaceError", "error_message": "lost update"}})
			if code != 201 {
				t.Errorf("report: %d %v", code, body)
				return
			}
			ids <- body["linked_pitfall_id"].(string)
		}()
	}
	for range n {
		<-done
	}
	close(ids)
	var id string
	for got := range ids {
		if id != "" && got != id {
			t.Fatalf("one failure joined two pitfalls: %s and %s", id, got)
		}
		id = got
	}
	// each key's next request reflects its own reports (read fences,
	// decision 230): b's read waits for b's, a's query for a's
	pitfallQuery(t, f, b, map[string]any{"task_type": tt})
	_, ps := pitfallQuery(t, f, a, map[string]any{"task_type": tt})
	var got map[string]any
	for _, p := range ps {
		if p["id"] == id {
			got = p
		}
	}
	if got == nil || got["reports"] != float64(n) || got["frequency"] != "reported 12 times by 2 organizations" {
		t.Fatalf("after %d concurrent reports: %v", n, ps)
	}
}
