package blackbox

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardWebhookDeliveriesInBrowser: after a run, an owner logged
// in through the form sees each webhook's recent deliveries on the
// webhooks page and follows the link to the webhook's delivery page; both
// pages label every control and fit 1440 and 360 px windows, with no
// console error.
func TestDashboardWebhookDeliveriesInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	h := newHookLogServer(t, "browser-delivery-log")
	s := h.s
	b.do("open the login page", chromedp.Navigate(s.base+"/dashboard/login"))
	b.waitText("h1", "Log in", 30*time.Second)
	b.do("log in",
		chromedp.SendKeys(chromedp.ID("email"), h.owner.Email),
		chromedp.SendKeys(chromedp.ID("password"), h.owner.Password),
		chromedp.Submit(chromedp.ID("password")))
	b.waitText("h1", "Workflows", 30*time.Second)

	b.do("open the webhooks", chromedp.Click(chromedp.CSS(`nav a[href^="/dashboard/webhooks"]`)))
	b.waitText("#recent-"+h.hook, "Recent deliveries", 30*time.Second)
	b.waitText(".admin-deliveries", "delivered", 5*time.Second)
	b.checkPage("webhooks with deliveries")
	b.do("open the webhook's deliveries", chromedp.Click(chromedp.CSS(`a[href^="/dashboard/webhooks/`+h.hook+`/deliveries"]`)))
	b.waitText("h1", "Deliveries to", 30*time.Second)
	b.waitText(".admin-deliveries", "HTTP 204", 5*time.Second)
	b.checkPage("a webhook's deliveries")

	b.do("narrow", chromedp.EmulateViewport(360, 780))
	b.do("reload", chromedp.Reload())
	b.waitText("h1", "Deliveries to", 30*time.Second)
	b.checkPage("a webhook's deliveries at 360 px")
	b.do("the webhooks at 360 px", chromedp.Navigate(s.base+"/dashboard/webhooks"))
	b.waitText("#recent-"+h.hook, "Recent deliveries", 30*time.Second)
	b.checkPage("webhooks with deliveries at 360 px")
	b.noConsoleErrors()
}
