package blackbox

import (
	"net/http"
	"testing"
	"time"
)

// TestNotifications: a workflow run to completion notifies its
// organization (workflow_completed with its workflow_id); the count, the
// unread filter, paging newest first with an opaque cursor, marking read
// by ids and by all, another organization's ids ignored, 401 without
// credentials and the 400s of bad parameters.
func TestNotifications(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	a := s.signup(t, nil)
	b := s.signup(t, nil)
	s.grant(t, a, 10000) // above the low balance after both runs: their completions are all there is to tell
	ids := map[string]bool{}
	for _, tag := range []string{"notify one", "notify two"} {
		res := s.execute(t, a.Key, process(tag, map[string]any{"delivery": polling}))
		wantStatus(t, res, http.StatusOK)
		id := str(t, res.Body, "workflow_id")
		ids[id] = true
		// one at a time: the free tier runs one workflow at once
		if wf := s.waitTerminal(t, a.Key, id, 90*time.Second); wf["status"] != "completed" && wf["status"] != "completed_partial" {
			t.Fatalf("workflow %s: %v", id, wf["status"])
		}
	}
	list := func(key, query string) *response {
		t.Helper()
		res := s.do(t, req{Path: "/api/notifications" + query, Key: key})
		wantStatus(t, res, http.StatusOK)
		if !boolean(t, res.Body, "ok") {
			t.Fatalf("list: %s", res.Raw)
		}
		return res
	}
	count := func(key string) int64 {
		t.Helper()
		res := s.do(t, req{Path: "/api/notifications/count", Key: key})
		wantStatus(t, res, http.StatusOK)
		if !boolean(t, res.Body, "ok") || str(t, res.Body, "request_id") != res.RequestID {
			t.Fatalf("count: %s", res.Raw)
		}
		return integer(t, res.Body, "unread_count")
	}
	s.poll(t, req{Path: "/api/notifications/count", Key: a.Key}, 30*time.Second, func(r *response) bool {
		n, _ := r.Body["unread_count"].(interface{ String() string })
		return r.Status == http.StatusOK && n != nil && n.String() == "2"
	}, func(last *response) string { return "two completions never notified: " + string(last.Raw) })

	res := list(a.Key, "")
	items, _ := res.Body["notifications"].([]any)
	if len(items) != 2 || integer(t, res.Body, "unread_count") != 2 || boolean(t, res.Body, "has_more") {
		t.Fatalf("list: %s", res.Raw)
	}
	for _, raw := range items {
		n := raw.(map[string]any)
		uuidField(t, n, "id")
		if str(t, n, "type") != "workflow_completed" || !ids[str(t, n, "workflow_id")] || str(t, n, "title") == "" ||
			str(t, n, "body") == "" || str(t, n, "action_url") == "" || str(t, n, "action_label") == "" || n["read_at"] != nil {
			t.Fatalf("notification: %v", n)
		}
		object(t, n, "metadata")
		if _, err := time.Parse(time.RFC3339, str(t, n, "created_at")); err != nil {
			t.Fatalf("created_at: %v", n["created_at"])
		}
	}
	if count(b.Key) != 0 || len(list(b.Key, "").Body["notifications"].([]any)) != 0 {
		t.Fatal("another organization sees the notifications")
	}

	// paging, newest first
	first := list(a.Key, "?limit=1")
	page1 := first.Body["notifications"].([]any)
	if len(page1) != 1 || !boolean(t, first.Body, "has_more") {
		t.Fatalf("page 1: %s", first.Raw)
	}
	second := list(a.Key, "?limit=1&cursor="+str(t, first.Body, "next_cursor"))
	page2 := second.Body["notifications"].([]any)
	if len(page2) != 1 || boolean(t, second.Body, "has_more") || second.Body["next_cursor"] != nil {
		t.Fatalf("page 2: %s", second.Raw)
	}
	newest, oldest := page1[0].(map[string]any), page2[0].(map[string]any)
	tn, _ := time.Parse(time.RFC3339, str(t, newest, "created_at"))
	to, _ := time.Parse(time.RFC3339, str(t, oldest, "created_at"))
	if newest["id"] == oldest["id"] || tn.Before(to) {
		t.Fatalf("pages: %v then %v", newest, oldest)
	}

	mark := func(key string, body any) int64 {
		t.Helper()
		res := s.do(t, req{Method: http.MethodPatch, Path: "/api/notifications/read", Key: key, Body: body})
		wantStatus(t, res, http.StatusOK)
		if !boolean(t, res.Body, "ok") || str(t, res.Body, "request_id") != res.RequestID {
			t.Fatalf("mark: %s", res.Raw)
		}
		return integer(t, res.Body, "updated")
	}
	// another organization's ids are ignored, never revealed
	if n := mark(b.Key, map[string]any{"notification_ids": []any{newest["id"], oldest["id"]}}); n != 0 {
		t.Fatalf("another org marked %d", n)
	}
	if count(a.Key) != 2 {
		t.Fatal("another organization's mark counted")
	}
	if n := mark(a.Key, map[string]any{"notification_ids": []any{newest["id"], "00000000-0000-4000-8000-000000000000"}}); n != 1 {
		t.Fatalf("marked %d by id, want 1", n)
	}
	if n := mark(a.Key, map[string]any{"notification_ids": []any{newest["id"]}}); n != 0 {
		t.Fatalf("marked an already read one again: %d", n)
	}
	if count(a.Key) != 1 {
		t.Fatal("the count after marking one")
	}
	unread := list(a.Key, "?unread_only=true")
	if u := unread.Body["notifications"].([]any); len(u) != 1 || u[0].(map[string]any)["id"] != oldest["id"] {
		t.Fatalf("unread_only: %s", unread.Raw)
	}
	for _, raw := range list(a.Key, "").Body["notifications"].([]any) {
		if n := raw.(map[string]any); n["id"] == newest["id"] && n["read_at"] == nil {
			t.Fatalf("marked, still unread: %v", n)
		}
	}
	if n := mark(a.Key, map[string]any{"all": true}); n != 1 {
		t.Fatalf("marked %d with all, want 1", n)
	}
	if count(a.Key) != 0 || len(list(a.Key, "?unread_only=true").Body["notifications"].([]any)) != 0 {
		t.Fatal("unread after marking all")
	}

	// no credentials
	for _, r := range []req{{Path: "/api/notifications"}, {Path: "/api/notifications/count"},
		{Method: http.MethodPatch, Path: "/api/notifications/read", Body: map[string]any{"all": true}}} {
		wantError(t, s.do(t, r), http.StatusUnauthorized, "unauthorized")
	}
	// bad parameters name their field
	bad := func(r req, field string) {
		t.Helper()
		r.Key = a.Key
		res := s.do(t, r)
		wantError(t, res, http.StatusBadRequest, "invalid_body")
		if got := object(t, object(t, res.Body, "error"), "details")["field"]; got != field {
			t.Fatalf("%s %s: field %v, want %s", r.Method, r.Path, got, field)
		}
	}
	for q, field := range map[string]string{"?limit=0": "limit", "?limit=51": "limit", "?limit=ten": "limit",
		"?unread_only=yes": "unread_only", "?cursor=not-a-cursor": "cursor"} {
		bad(req{Path: "/api/notifications" + q}, field)
	}
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "notification_ids"},
		{map[string]any{"notification_ids": []any{}}, "notification_ids"},
		{map[string]any{"notification_ids": "x"}, "notification_ids"},
		{map[string]any{"notification_ids": []any{1}}, "notification_ids"},
		{map[string]any{"all": false}, "all"},
		{map[string]any{"all": "true"}, "all"},
		{map[string]any{"all": true, "notification_ids": []any{"x"}}, "notification_ids"},
	} {
		bad(req{Method: http.MethodPatch, Path: "/api/notifications/read", Body: c.body}, c.field)
	}
}
