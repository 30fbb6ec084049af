package blackbox

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDashboardNotifications: a finished workflow's notification shows in
// the header's unread count and on the notifications page, with a link
// to the workflow's page; marking it read (one, then all) empties the
// unread list; a refusal of the API reads as a sentence.
func TestDashboardNotifications(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	p := s.signUpPerson(t, "notices")
	key := s.keyWithRole(t, p, p.WorkspaceID, "member")
	session := "svc_session=" + p.Access

	code, _, body := page(t, s, http.MethodGet, "/dashboard/notifications", session, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "No notification yet.") || strings.Contains(body, `class="count"`) {
		t.Fatalf("no notification yet: %d %.3000s", code, body)
	}

	var ids []string
	for _, tag := range []string{"notice one", "notice two"} {
		res := s.execute(t, key, process(tag, map[string]any{"delivery": polling}))
		wantStatus(t, res, http.StatusOK)
		id := str(t, res.Body, "workflow_id")
		ids = append(ids, id)
		s.waitTerminal(t, key, id, 90*time.Second)
	}
	// both completions (and, maybe, a low balance) are notified
	var unread int
	s.poll(t, req{Path: "/api/notifications?limit=50", Key: key}, 30*time.Second, func(r *response) bool {
		n, _ := r.Body["unread_count"].(interface{ String() string })
		if r.Status != http.StatusOK || n == nil || !strings.Contains(string(r.Raw), ids[0]) || !strings.Contains(string(r.Raw), ids[1]) {
			return false
		}
		unread, _ = strconv.Atoi(n.String())
		return true
	}, func(last *response) string { return "the completions were never notified: " + string(last.Raw) })

	code, _, body = page(t, s, http.MethodGet, "/dashboard/notifications", session, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`<span class="count">%d<span class="visually-hidden"> unread</span></span>`, unread)) ||
		!strings.Contains(body, fmt.Sprintf("%d unread.", unread)) || strings.Count(body, `<li class="unread">`) != unread {
		t.Fatalf("%d unread: %d %.4000s", unread, code, body)
	}
	for _, id := range ids {
		if !strings.Contains(body, `href="/dashboard/workflows/`+id+`"`) {
			t.Errorf("the notice of %s links no page of it: %.4000s", id, body)
		}
	}
	token := csrfOf(t, body)
	one := strings.SplitN(strings.SplitN(body, `name="id" value="`, 2)[1], `"`, 2)[0]

	// one read: the unread-only list keeps the other
	code, h, _ := page(t, s, http.MethodPost, "/dashboard/notifications/read", session,
		url.Values{"csrf_token": {token}, "id": {one}, "unread": {"1"}}, nil)
	if code != http.StatusSeeOther || h.Get("Location") != "/dashboard/notifications?marked=1&unread=1" {
		t.Fatalf("mark one read: %d %v", code, h)
	}
	_, _, body = page(t, s, http.MethodGet, "/dashboard/notifications?marked=1&unread=1", session, nil, nil)
	if !strings.Contains(body, "Marked as read.") || strings.Count(body, `<li class="unread">`) != unread-1 || strings.Contains(body, one) ||
		!strings.Contains(body, "Show all") {
		t.Errorf("one left unread: %.4000s", body)
	}

	// all read
	if code, _, _ := page(t, s, http.MethodPost, "/dashboard/notifications/read", session,
		url.Values{"csrf_token": {token}, "all": {"1"}}, nil); code != http.StatusSeeOther {
		t.Fatalf("mark all read: %d", code)
	}
	_, _, body = page(t, s, http.MethodGet, "/dashboard/notifications?unread=1", session, nil, nil)
	if !strings.Contains(body, "No unread notification.") || strings.Contains(body, `class="count"`) {
		t.Errorf("all read: %.3000s", body)
	}
	_, _, body = page(t, s, http.MethodGet, "/dashboard/notifications", session, nil, nil)
	if strings.Count(body, "<li>") != unread || !strings.Contains(body, "Nothing unread.") {
		t.Errorf("the read notices: %.3000s", body)
	}

	// a cursor the API refuses
	code, _, body = page(t, s, http.MethodGet, "/dashboard/notifications?cursor=nonsense", session, nil, nil)
	if code != http.StatusBadRequest || !strings.Contains(body, `role="alert"`) || strings.Contains(body, "internal") {
		t.Errorf("a bad cursor: %d %.2000s", code, body)
	}
}
