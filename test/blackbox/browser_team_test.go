package blackbox

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardInviteInBrowser: invite a member and accept as them. The
// owner signs up in Chromium, opens the workspace and its members page and
// creates an invite link for an admin; a second browser (its own profile:
// no cookie of the owner's) opens the link, signs up on the invite page,
// accepts, and lands in the workspace as admin; back as the owner, the
// members list shows the new member as admin. The pages are checked
// (labels, widths at 1440 and 360 px) and written to docs/screenshots/
// (workspace, workspace-members). Skipped, saying so, without Chromium.
func TestDashboardInviteInBrowser(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	s := sharedServer(t)
	ownerEmail, inviteeEmail := uniqueEmail("browser-owner"), uniqueEmail("browser-invitee")

	owner.signUp(s, "Olga Owner", ownerEmail, "correct horse battery")

	// the workspace, from the header's navigation
	owner.do("open the workspace", chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/workspace"]`)))
	owner.waitText("h1", "Workspace Default", 30*time.Second)
	owner.checkPage("workspace")
	owner.screenshot("workspace")

	// its members page: create an invite link for an admin
	owner.do("open the members", chromedp.Click(chromedp.CSS(`a[href="/dashboard/workspace/members"]`)))
	owner.waitText("h1", "Members of Default", 30*time.Second)
	owner.checkPage("members")
	owner.do("create an invite link",
		chromedp.SetValue(chromedp.ID("link-role"), "admin"),
		chromedp.Click(chromedp.CSS(`form[action="/dashboard/workspace/invites"] button[type=submit]`)))
	owner.waitText(".notice", "The invite link was created", 30*time.Second)
	link := eval[string](owner, `(document.querySelector(".team-new input.team-url") || {value: ""}).value`)
	if !strings.Contains(link, "/dashboard/invite?token=") {
		t.Fatalf("the new invite link is %q", link)
	}
	if label := eval[string](owner, `document.querySelector(".team-new label").textContent`); !strings.Contains(label, "Admin") {
		t.Errorf("the new link's label %q does not name its role", label)
	}

	// the invitee, in a browser of their own: sign up on the invite page, accept
	invitee := newBrowser(t)
	invitee.do("open the invite link", chromedp.Navigate(s.base+link[strings.Index(link, "/dashboard/invite"):]))
	invitee.waitText("h1", "You are invited to join Default as Admin", 30*time.Second)
	if eval[bool](invitee, `!!document.querySelector('form[action="/dashboard/invite"]')`) {
		t.Error("a signed-out visitor is offered to accept")
	}
	if next := eval[string](invitee, `document.querySelector('a[href^="/dashboard/login?next="]').getAttribute("href")`); !strings.Contains(next, "token%3D") {
		t.Errorf("the login link %q does not come back to the invite", next)
	}
	invitee.checkPage("invite, signed out")
	invitee.do("sign up as the invitee",
		chromedp.SendKeys(chromedp.ID("name"), "Ivan Invitee"),
		chromedp.SendKeys(chromedp.ID("email"), inviteeEmail),
		chromedp.SendKeys(chromedp.ID("password"), "another horse battery"),
		chromedp.Submit(chromedp.ID("password")))
	invitee.waitFor("back on the invite page, signed in", `!!document.querySelector('form[action="/dashboard/invite"]')`, 30*time.Second)
	invitee.waitText(".email", inviteeEmail, 5*time.Second)
	invitee.checkPage("invite, signed in")
	invitee.do("accept", chromedp.Click(chromedp.CSS(`form[action="/dashboard/invite"] button[type=submit]`)))
	invitee.waitText(".notice", "You joined Default as admin.", 30*time.Second)
	invitee.waitText("h1", "Workspace Default", 5*time.Second)
	invitee.waitText(".role", "admin", 5*time.Second)
	if u := eval[string](invitee, `location.pathname + location.search`); !strings.HasPrefix(u, "/dashboard/workspace?ws=") {
		t.Errorf("accepting landed on %s", u)
	}
	invitee.checkPage("workspace joined")

	// back as the owner: the new member, with the role chosen
	owner.do("reopen the members", chromedp.Navigate(s.base+"/dashboard/workspace/members"))
	row := `Array.from(document.querySelectorAll("#members tbody tr")).find(function(r){ return r.textContent.indexOf(` + jsString(inviteeEmail) + `) >= 0; })`
	owner.reloadUntil("the members list shows the invitee", row, 30*time.Second)
	if role := eval[string](owner, row+`.querySelector(".role-name").textContent`); role != "Admin" {
		t.Errorf("the invitee is listed as %q, want Admin", role)
	}
	if eval[string](owner, row+`.querySelector("select").value`) != "admin" {
		t.Error("the invitee's role control does not show admin")
	}
	owner.checkPage("members with the invitee")
	owner.screenshot("workspace-members")
	owner.do("narrow", chromedp.EmulateViewport(360, 780))
	owner.do("reload", chromedp.Reload())
	owner.waitText("h1", "Members of Default", 30*time.Second)
	owner.checkPage("members at 360 px")
	owner.do("the workspace at 360 px", chromedp.Navigate(s.base+"/dashboard/workspace"))
	owner.waitText("h1", "Workspace Default", 30*time.Second)
	owner.checkPage("workspace at 360 px")
	owner.do("the settings at 360 px", chromedp.Click(chromedp.CSS(`a[href="/dashboard/workspace/settings"]`)))
	owner.waitText("h1", "Budget and model policy", 30*time.Second)
	owner.checkPage("settings at 360 px")

	owner.noConsoleErrors()
	invitee.noConsoleErrors()
}
