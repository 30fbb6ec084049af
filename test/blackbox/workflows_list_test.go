package blackbox

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// listWorkflows is GET /api/rigor/workflows?query with key, answered 200;
// it returns the body and the listed ids in order.
func (s *server) listWorkflows(t testing.TB, key, query string) (map[string]any, []string) {
	t.Helper()
	res := s.do(t, req{Path: "/api/rigor/workflows?" + query, Key: key})
	wantStatus(t, res, http.StatusOK)
	if res.Header.Get("X-RateLimit-Limit") == "" {
		t.Errorf("no X-RateLimit-Limit: the listing is rate limited")
	}
	var ids []string
	for _, w := range res.Body["workflows"].([]any) {
		ids = append(ids, str(t, w.(map[string]any), "workflow_id"))
	}
	return res.Body, ids
}

// waitListed polls the listing until it holds n workflows: plan answers
// before the workflows read model has the plan (decision 31).
func (s *server) waitListed(t testing.TB, key string, n int) []string {
	t.Helper()
	deadline, pause := time.Now().Add(30*time.Second), 50*time.Millisecond
	for {
		body, ids := s.listWorkflows(t, key, "limit=100")
		if integer(t, object(t, body, "pagination"), "total_count") == int64(n) && len(ids) == n {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("listing holds %v, want %d workflows within 30 s", ids, n)
		}
		time.Sleep(pause)
		pause = min(pause*3/2, 500*time.Millisecond) // well under the per-minute limit
	}
}

func TestWorkflowsList(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a, b := s.signup(t, nil), s.signup(t, nil)
	tag := "zq" + randomHex(4) // a term no other workflow on the server has
	first := s.planStored(t, a.Key, competitive(tag+" alpha", nil))
	second := s.planStored(t, a.Key, process(tag+" beta snake_case", nil))
	res := s.execute(t, a.Key, process(tag+" gamma", map[string]any{"delivery": polling}))
	ran, _ := wantQueued(t, s, res, "polling")
	s.waitTerminal(t, a.Key, ran, 30*time.Second)
	s.planStored(t, b.Key, competitive(tag+" alpha", nil))
	newest := []string{ran, second, first}
	if ids := s.waitListed(t, a.Key, 3); !reflect.DeepEqual(ids, newest) {
		t.Fatalf("listing %v, want newest first %v", ids, newest)
	}

	// the answer's shape
	body, _ := s.listWorkflows(t, a.Key, "")
	if !boolean(t, body, "ok") || integer(t, body, "credits_used") != 0 || !reqIDPattern.MatchString(str(t, body, "request_id")) {
		t.Errorf("envelope: %v", body)
	}
	if rem := integer(t, body, "credits_remaining"); rem != s.balance(t, a.Key) {
		t.Errorf("credits_remaining %d, balance %d", rem, s.balance(t, a.Key))
	}
	pg := object(t, body, "pagination")
	if pg["cursor"] != nil || boolean(t, pg, "has_more") || integer(t, pg, "total_count") != 3 || integer(t, pg, "limit") != 20 {
		t.Errorf("pagination %v", pg)
	}
	cs := object(t, body, "concurrent_summary")
	if integer(t, cs, "active") != 0 || integer(t, cs, "limit") != 1 || integer(t, cs, "remaining") != 1 {
		t.Errorf("concurrent_summary %v (free tier: limit 1)", cs)
	}
	rows := body["workflows"].([]any)
	done, planned := rows[0].(map[string]any), rows[1].(map[string]any)
	for _, w := range []map[string]any{done, planned} {
		str(t, w, "task_type")
		str(t, w, "created_at")
		str(t, w, "generated_title")
		integer(t, w, "current_step")
		integer(t, w, "credits_charged")
		if boolean(t, w, "history_locked") || boolean(t, w, "counts_toward_limit") {
			t.Errorf("history_locked or counts_toward_limit on %v", w)
		}
		if ex := str(t, w, "task_excerpt"); !strings.Contains(ex, tag) || len([]rune(ex)) > 200 {
			t.Errorf("task_excerpt %q", ex)
		}
		if str(t, w, "approval_status") != "not_required" {
			t.Errorf("approval_status %v", w["approval_status"])
		}
		if _, ok := w["error"]; ok {
			t.Errorf("error present though unset: %v", w)
		}
	}
	if str(t, done, "status") != "completed" || str(t, done, "started_at") == "" || str(t, done, "completed_at") == "" ||
		integer(t, done, "total_steps") != integer(t, done, "current_step") || len(done["available_actions"].([]any)) != 0 {
		t.Errorf("completed row %v", done)
	}
	if str(t, planned, "status") != "planned" || planned["started_at"] != nil || planned["completed_at"] != nil ||
		!reflect.DeepEqual(planned["available_actions"], []any{"cancel"}) {
		t.Errorf("planned row %v", planned)
	}

	// filters
	created := func(id string) string {
		for _, r := range rows {
			if w := r.(map[string]any); w["workflow_id"] == id {
				return url.QueryEscape(str(t, w, "created_at"))
			}
		}
		t.Fatalf("%s not listed", id)
		return ""
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"status=planned", []string{second, first}},
		{"status=completed,%20planned", newest},
		{"status=completed&status=planned", newest},
		{"task_type=process_improvement", []string{ran, second}},
		{"task_type=process_improvement&status=planned", []string{second}},
		{"counts_toward_limit=false", newest},
		{"counts_toward_limit=true", nil},
		{"created_after=" + created(second), []string{ran}},
		{"created_before=" + created(second), []string{first}},
		{"created_after=2000-01-01&created_before=" + created(ran), []string{second, first}},
		{"q=" + strings.ToUpper(tag), newest},
		{"q=" + tag + "+alpha", []string{first}},
		{"q=" + tag + ",beta", []string{second}},
		{"q=snake_case", []string{second}},
		{"q=snakeXcase", nil},
		{"q=" + tag + "+alpha+beta", nil},
		{"q=%2A%2A%2A+%3F%3F", newest},
		{"folder_id=unassigned", newest},
		{"folder_id=fld_123", nil},
	} {
		body, ids := s.listWorkflows(t, a.Key, c.query)
		if !reflect.DeepEqual(ids, c.want) || integer(t, object(t, body, "pagination"), "total_count") != int64(len(c.want)) {
			t.Errorf("%s: %v (total %v), want %v", c.query, ids, object(t, body, "pagination")["total_count"], c.want)
		}
	}
	if _, ids := s.listWorkflows(t, b.Key, "q="+tag); len(ids) != 1 {
		t.Errorf("the other org lists %v, want its one workflow", ids)
	}

	// cursor pages of one
	var paged []string
	query := "limit=1&status=planned,completed"
	for range 4 {
		body, ids := s.listWorkflows(t, a.Key, query)
		paged = append(paged, ids...)
		pg := object(t, body, "pagination")
		if integer(t, pg, "total_count") != 3 || integer(t, pg, "limit") != 1 {
			t.Errorf("page pagination %v", pg)
		}
		if !boolean(t, pg, "has_more") {
			if pg["cursor"] != nil {
				t.Errorf("a cursor on the last page: %v", pg)
			}
			break
		}
		query = "limit=1&status=planned,completed&cursor=" + url.QueryEscape(str(t, pg, "cursor"))
	}
	if !reflect.DeepEqual(paged, newest) {
		t.Errorf("pages gave %v, want %v", paged, newest)
	}

	// bad parameters
	long := strings.Repeat("a", 201)
	for _, q := range []string{"limit=0", "limit=101", "limit=ten", "status=running", "created_after=yesterday",
		"created_before=2026-13-01", "counts_toward_limit=yes", "cursor=not-a-cursor", "q=" + long} {
		res := s.do(t, req{Path: "/api/rigor/workflows?" + q, Key: a.Key})
		wantError(t, res, http.StatusBadRequest, "invalid_field")
		field, _, _ := strings.Cut(q, "=")
		if d, _ := res.Body["error"].(map[string]any)["details"].(map[string]any); d["field"] != field {
			t.Errorf("%s: details %v, want field %s", q, d, field)
		}
	}
	if _, ids := s.listWorkflows(t, a.Key, "q="+strings.Repeat("a", 200)); len(ids) != 0 {
		t.Errorf("200 characters of q: %v", ids)
	}
	wantError(t, s.do(t, req{Path: "/api/rigor/workflows"}), http.StatusUnauthorized, "missing_api_key")
	wantError(t, s.do(t, req{Path: "/api/rigor/workflows", Key: "svc_live_" + randomHex(24)}), http.StatusUnauthorized, "invalid_api_key")

	// Enterprise: no concurrent limit (the key cache keeps the tier up to 10 s)
	if out := cli(t, s.dbURL, "org", "set-tier", "--org", a.OrgID, "--tier", "enterprise"); out.Code != 0 {
		t.Fatalf("svc org set-tier: %s", out)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Second) {
		body, _ := s.listWorkflows(t, a.Key, "limit=1")
		cs := object(t, body, "concurrent_summary")
		if _, has := cs["limit"]; has && cs["limit"] == nil && cs["remaining"] == nil && integer(t, cs, "active") == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("enterprise concurrent_summary %v, want limit and remaining null", cs)
		}
	}
}
