package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"time"
)

// The notifications page: GET /api/notifications (newest first, unread
// only on request, 20 a page), marking one or all read (PATCH
// /api/notifications/read); the header shows the unread count.

// notice is a notification as spec B shows it.
type notice struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Title       string     `json:"title"`
	Body        string     `json:"body"`
	WorkflowID  *string    `json:"workflow_id"`
	ActionURL   *string    `json:"action_url"`
	ActionLabel *string    `json:"action_label"`
	ReadAt      *time.Time `json:"read_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// Link is the dashboard page the notice's action opens, in the workspace
// ws the page acts in: "" when the dashboard has no page for it.
func (n notice) Link(ws string) string {
	if n.ActionURL == nil {
		return ""
	}
	return actionPage(*n.ActionURL, ws)
}

// actionPatterns map a notification's action_url (paths of the product's
// app, domain/notification) to the dashboard's pages.
var actionPatterns = []struct {
	re   *regexp.Regexp
	page func(m []string, ws string) string
}{
	{regexp.MustCompile(`^/workflows/(wr_[0-9a-f]{32})$`), func(m []string, ws string) string {
		return wsQuery("/dashboard/workflows/"+m[1], ws)
	}},
	{regexp.MustCompile(`^/settings/billing$`), func(_ []string, ws string) string { return wsQuery("/dashboard/billing", ws) }},
	{regexp.MustCompile(`^/settings/data$`), func(_ []string, ws string) string { return wsQuery("/dashboard/account", ws) }},
	{regexp.MustCompile(`^/workspaces/([0-9a-f-]{36})/(budget|members)$`), func(m []string, _ string) string {
		return wsQuery("/dashboard/workspace", m[1])
	}},
	{regexp.MustCompile(`^/workspaces/([0-9a-f-]{36})/webhooks$`), func(m []string, _ string) string {
		return wsQuery("/dashboard/webhooks", m[1])
	}},
}

// Label is the words of the notice's action link.
func (n notice) Label() string {
	if n.ActionLabel != nil && *n.ActionLabel != "" {
		return *n.ActionLabel
	}
	return "Open"
}

func actionPage(action, ws string) string {
	for _, p := range actionPatterns {
		if m := p.re.FindStringSubmatch(action); m != nil {
			return p.page(m, ws)
		}
	}
	return ""
}

type noticeList struct {
	Notices    []notice
	Unread     int
	UnreadOnly bool
	More       string // the next page's URL, "" on the last
}

// notifications is GET /dashboard/notifications.
func (h *Handler) notifications(w http.ResponseWriter, r *http.Request, id Identity) {
	q := r.URL.Query()
	l := noticeList{UnreadOnly: q.Get("unread") != ""}
	query := url.Values{"limit": {"20"}}
	if l.UnreadOnly {
		query.Set("unread_only", "true")
	}
	if c := q.Get("cursor"); c != "" {
		query.Set("cursor", c)
	}
	var got struct {
		Notifications []notice `json:"notifications"`
		UnreadCount   int      `json:"unread_count"`
		HasMore       bool     `json:"has_more"`
		NextCursor    *string  `json:"next_cursor"`
	}
	me := h.loadChrome(r, id)
	rep := h.api.Call(r, "", http.MethodGet, "/api/notifications?"+query.Encode(), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, me, p)
		return
	}
	if !decode(rep, &got) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	l.Notices, l.Unread = got.Notifications, got.UnreadCount
	if got.HasMore && got.NextCursor != nil && len(got.Notifications) > 0 {
		next := url.Values{"cursor": {*got.NextCursor}}
		if l.UnreadOnly {
			next.Set("unread", "1")
		}
		l.More = wsQuery("/dashboard/notifications?"+next.Encode(), workspaceParam(r))
	}
	v := view{Title: "Notifications", Me: me, Data: l}
	if q.Get("marked") != "" {
		v.Notice = "Marked as read."
	}
	h.render(w, r, http.StatusOK, "notifications", v)
}

// markRead is POST /dashboard/notifications/read: one notification (id)
// or all of them (all) read, then the list again.
func (h *Handler) markRead(w http.ResponseWriter, r *http.Request, id Identity) {
	body := map[string]any{"all": true}
	if n := r.PostFormValue("id"); n != "" && r.PostFormValue("all") == "" {
		body = map[string]any{"notification_ids": []string{n}}
	}
	rep := h.api.Call(r, "", http.MethodPatch, "/api/notifications/read", body)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	back := url.Values{"marked": {"1"}}
	if r.PostFormValue("unread") != "" {
		back.Set("unread", "1")
	}
	http.Redirect(w, r, wsQuery("/dashboard/notifications?"+back.Encode(), workspaceParam(r)), http.StatusSeeOther)
}
