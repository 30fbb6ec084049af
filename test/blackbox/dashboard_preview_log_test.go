package blackbox

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardInvitePreview: the invite page names the workspace, the
// role and who invited before anyone accepts, signed out (with log in and
// sign up) and signed in (with Accept, which joins); once the link is used
// up, or revoked, the page says it does not work (404) and offers nothing;
// a member opening a link to their workspace is sent to it instead.
func TestDashboardInvitePreview(t *testing.T) {
	t.Parallel()
	s := sharedServer(t)
	owner := s.signUpPerson(t, "dash-preview-owner")
	wantStatus(t, s.do(t, req{Method: http.MethodPut, Path: "/api/workspaces/" + owner.WorkspaceID, Header: owner.cookie(),
		Body: map[string]any{"name": "Preview team"}}), http.StatusOK)
	link := func(body map[string]any) (token, id string) {
		t.Helper()
		res := s.do(t, req{Method: http.MethodPost, Path: "/api/workspaces/" + owner.WorkspaceID + "/invites", Header: owner.cookie(), Body: body})
		wantStatus(t, res, http.StatusCreated)
		return str(t, res.Body, "token"), str(t, res.Body, "invite_id")
	}
	token, _ := link(map[string]any{"role": "member", "max_uses": 1})
	invite := "/dashboard/invite?token=" + url.QueryEscape(token)
	check := func(who, cookie string, status int, want, not []string) string {
		t.Helper()
		code, _, body := page(t, s, http.MethodGet, invite, cookie, nil, nil)
		if code != status {
			t.Fatalf("%s: %d, want %d: %.3000s", who, code, status, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) && !strings.Contains(body, html.EscapeString(w)) {
				t.Errorf("%s lacks %q: %.3000s", who, w, body)
			}
		}
		for _, n := range not {
			if strings.Contains(body, n) {
				t.Errorf("%s has %q", who, n)
			}
		}
		return body
	}
	check("signed out", "", http.StatusOK, []string{`You are invited to join <span class="invite-ws">Preview team</span> as Member`,
		"Invited by User dash-preview-owner", "the invitation expires", "Log in to accept", `action="/dashboard/invite/signup"`}, nil)

	joiner := s.signUpPerson(t, "dash-preview-joiner")
	asJoiner := "svc_session=" + joiner.Access
	body := check("signed in", asJoiner, http.StatusOK, []string{"Preview team</span> as Member", "Accept to join Preview team as Member.",
		`action="/dashboard/invite"`}, []string{`action="/dashboard/invite/signup"`})
	code, h, body := page(t, s, http.MethodPost, "/dashboard/invite", asJoiner, url.Values{"csrf_token": {csrfOf(t, body)}, "token": {token}}, nil)
	if code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "ws="+owner.WorkspaceID) {
		t.Fatalf("accept: %d %v %.2000s", code, h, body)
	}
	// used up: the link's one use is taken
	used := []string{"This invitation link does not work"}
	check("used up, signed in", asJoiner, http.StatusNotFound, used, []string{`action="/dashboard/invite"`})
	check("used up, signed out", "", http.StatusNotFound, used, []string{`action="/dashboard/invite/signup"`, "Preview team"})

	// a new link, opened by the member: nothing to accept
	again, _ := link(map[string]any{"role": "viewer"})
	invite = "/dashboard/invite?token=" + url.QueryEscape(again)
	check("a member", asJoiner, http.StatusOK, []string{"You can already open Preview team", "/dashboard/workspace?ws=" + owner.WorkspaceID},
		[]string{`action="/dashboard/invite"`})

	revoked, id := link(map[string]any{"role": "viewer"})
	wantStatus(t, s.do(t, req{Method: http.MethodDelete, Path: "/api/workspaces/" + owner.WorkspaceID + "/invites/" + id, Header: owner.cookie()}), http.StatusOK)
	invite = "/dashboard/invite?token=" + url.QueryEscape(revoked)
	check("revoked", "", http.StatusNotFound, used, []string{"Preview team"})
}

// TestDashboardWebhookDeliveryLog: the webhooks page shows each webhook's
// latest deliveries (state, attempts, the receiver's last answer, the run)
// and links to the rest; the webhook's delivery page lists them with every
// attempt; a webhook of other events says it has none yet; an unknown
// webhook's page reads as its sentence.
func TestDashboardWebhookDeliveryLog(t *testing.T) {
	t.Parallel()
	h := newHookLogServer(t, "dash-delivery-log")
	s, asOwner, ws := h.s, "svc_session="+h.owner.Access, h.owner.WorkspaceID
	code, _, body := page(t, s, http.MethodGet, "/dashboard/webhooks?ws="+ws, asOwner, nil, nil)
	if code != http.StatusOK {
		t.Fatalf("webhooks page: %d %.3000s", code, body)
	}
	for _, w := range []string{`id="recent-` + h.hook + `"`, "Recent deliveries", "s-delivered", "HTTP 204", "A workflow completed",
		`href="/dashboard/workflows/` + h.workflowID + `?ws=` + ws + `"`, "No delivery yet"} {
		if !strings.Contains(body, w) {
			t.Errorf("webhooks page lacks %q: %.4000s", w, body)
		}
	}
	more := regexp.MustCompile(`href="(/dashboard/webhooks/` + h.hook + `/deliveries\?[^"]*)">(Older deliveries|All deliveries, with each attempt)<`).FindStringSubmatch(body)
	if more == nil {
		t.Fatalf("no link to the webhook's deliveries: %.4000s", body)
	}
	if h.steps+1 > 5 && more[2] != "Older deliveries" {
		t.Errorf("%d deliveries, 5 shown, and no link to older ones", h.steps+1)
	}
	code, _, body = page(t, s, http.MethodGet, html.UnescapeString(more[1]), asOwner, nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "Deliveries to") || !strings.Contains(body, h.hookURL) ||
		!strings.Contains(body, "Each attempt") || !strings.Contains(body, "(500)") || !strings.Contains(body, "HTTP 204") {
		t.Fatalf("the delivery page: %d %.4000s", code, body)
	}
	code, _, body = page(t, s, http.MethodGet, "/dashboard/webhooks/00000000-0000-4000-8000-000000000000/deliveries?ws="+ws, asOwner, nil, nil)
	if code != http.StatusNotFound || !strings.Contains(body, "This webhook does not exist in this workspace") {
		t.Errorf("an unknown webhook's deliveries: %d %.3000s", code, body)
	}
}
