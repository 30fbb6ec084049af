package dashboard

import (
	"net/http"
	"testing"

	"svc/domain/apikey"
	"svc/domain/org"
)

// teamOffer is the preview's answer for the invite of the team tests.
const teamOffer = `{"workspace_id":"w9","workspace_name":"Research","role":"member","kind":"link","invited_by":"Ann",
"expires_at":"2099-01-01T00:00:00Z"}`

// TestTeamInvitePreview: the invite page names the workspace and role
// the invite offers, who invited and until when, signed out and signed
// in, before Accept; an email invite says which account may accept; one
// to a workspace the user already has links to it instead of Accept; a
// link that cannot be used reads as its sentence with the preview's
// status and offers neither Accept nor signup; a preview that fails on
// the server leaves the page as it was (Accept, without the names).
func TestTeamInvitePreview(t *testing.T) {
	out := &teamFake{fakeAPI: &fakeAPI{replies: map[string]Reply{"POST /api/invites/preview": ok(teamOffer)}}, bodies: map[string]string{}}
	w := serve(t, out, "GET", "/dashboard/invite?token=i1.s", nil)
	teamCheck(t, "signed out", w, w.Body.String(), 200, []string{`You are invited to join <span class="invite-ws">Research</span> as Member`,
		"Invited by Ann", "the invitation expires", `action="/dashboard/invite/signup"`}, []string{"one email address"})
	if out.bodies["POST /api/invites/preview"] != `{"token":"i1.s"}` {
		t.Errorf("preview body %q", out.bodies["POST /api/invites/preview"])
	}

	f := newTeamFake(apikey.Owner, org.Free)
	f.replies["POST /api/invites/preview"] = ok(`{"workspace_id":"w9","workspace_name":"<b>Lab</b>","role":"viewer","kind":"email","invited_by":null,"expires_at":"2099-01-01T00:00:00Z"}`)
	w = serve(t, f, "GET", "/dashboard/invite?token=i1.s", nil)
	teamCheck(t, "signed in, email invite", w, w.Body.String(), 200, []string{"join <span class=\"invite-ws\">&lt;b&gt;Lab&lt;/b&gt;</span> as Viewer",
		"Accept to join &lt;b&gt;Lab&lt;/b&gt; as Viewer.", "one email address", `action="/dashboard/invite"`}, []string{"Invited by", "<b>Lab"})

	for code, tc := range map[string]struct {
		status int
		want   string
	}{
		"invite_not_found":     {404, "This invitation link does not work"},
		"invite_expired":       {410, "This invitation has expired."},
		"member_limit_reached": {402, "as many members as its plan allows, so it cannot be joined now"},
		"invalid_body":         {400, "is archived, so it cannot be joined"},
		"rate_limited":         {429, sentences["rate_limited"]},
	} {
		for _, fake := range []*teamFake{out, f} {
			fake.replies["POST /api/invites/preview"] = teamRefusal(tc.status, code, "x")
			w = serve(t, fake, "GET", "/dashboard/invite?token=i1.s", nil)
			teamCheck(t, code, w, w.Body.String(), tc.status, []string{teamHTML(tc.want)},
				[]string{`action="/dashboard/invite"`, `action="/dashboard/invite/signup"`})
		}
	}
	for _, fake := range []*teamFake{out, f} {
		fake.replies["POST /api/invites/preview"] = teamRefusal(500, "internal_error", "x")
	}
	w = serve(t, out, "GET", "/dashboard/invite?token=i1.s", nil)
	teamCheck(t, "preview failed, signed out", w, w.Body.String(), 200, []string{"You are invited to a workspace", `action="/dashboard/invite/signup"`}, nil)
	w = serve(t, f, "GET", "/dashboard/invite?token=i1.s", nil)
	teamCheck(t, "preview failed, signed in", w, w.Body.String(), 200, []string{"You are invited to a workspace", `action="/dashboard/invite"`}, nil)

	// an invite to a workspace the user is in already: nothing to accept
	f.replies["POST /api/invites/preview"] = ok(`{"workspace_id":"x","workspace_name":"Team","role":"member","kind":"link","invited_by":"Ann","expires_at":"2099-01-01T00:00:00Z"}`)
	w = serve(t, f, "GET", "/dashboard/invite?token=i1.s", nil)
	teamCheck(t, "joined already", w, w.Body.String(), 200, []string{"You can already open Team", `href="/dashboard/workspace?ws=x"`},
		[]string{`action="/dashboard/invite"`})

	// a refused accept still names what the invite offers
	f.replies["POST /api/invites/preview"] = ok(teamOffer)
	f.replies["POST /api/invites/accept"] = teamRefusal(http.StatusConflict, "already_member", "x")
	w = serve(t, f, "POST", "/dashboard/invite", teamForm("token", "i1.s"))
	teamCheck(t, "accept refused", w, w.Body.String(), 409, []string{"You are already a member of this workspace.", "join <span class=\"invite-ws\">Research</span> as Member"}, nil)
}
