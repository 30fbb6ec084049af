package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The billing page: the balance (GET /api/billing/balance), credit packs
// and plans bought on the processor's checkout page (POST
// /api/billing/checkout, /subscribe: the page sends the browser to the
// URL they answer), its portal (POST /api/billing/portal), and
// auto-reload (GET and PUT /api/billing/auto-reload). The processor sends
// the browser back to /dashboard/billing with checkout=, subscription=
// (adapters/payments/stripe.go), which the page turns into a notice.

// processorOrigins are the payment processor's pages the billing forms
// may lead to: a form's redirect to another origin is refused by the
// browser under form-action 'self', so the billing page allows these.
var processorOrigins = []string{"https://checkout.stripe.com", "https://billing.stripe.com"}

// billingCSP is the dashboard's policy with the processor's pages as
// places a form may lead.
var billingCSP = strings.Replace(csp, "form-action 'self'", "form-action 'self' "+strings.Join(processorOrigins, " "), 1)

// packs are the credit packs (spec B, Limits), in USD.
var packs = []int{10, 25, 100, 250}

// reloadAmounts are auto-reload's amounts (spec B, Limits), in credits.
var reloadAmounts = []int64{5_000, 25_000, 100_000, 250_000}

// autoReload is GET /api/billing/auto-reload's answer.
type autoReload struct {
	Enabled       bool       `json:"enabled"`
	Threshold     *int64     `json:"threshold"`
	Amount        *int64     `json:"amount"`
	MonthlyLimit  *int64     `json:"monthly_limit"`
	MonthlySpent  int64      `json:"monthly_spent"`
	ResetAt       *time.Time `json:"reset_at"`
	ReloadPending bool       `json:"reload_pending"`
	LastError     *struct {
		Message  string    `json:"message"`
		FailedAt time.Time `json:"failed_at"`
	} `json:"last_error"`
	LastReloadAt *time.Time `json:"last_reload_at"`
}

// billingPage is what the billing page shows; the form values are the
// ones posted, when a form comes back refused.
type billingPage struct {
	Balance  *int64
	OrgID    string
	Tier     string
	Paid     bool
	CanPay   bool // admin and above: buy, subscribe, portal, auto-reload
	Packs    []int
	Amounts  []int64
	Reload   *autoReload
	Continue string // the processor's page, to follow by a link

	Pack, Custom, PlanTier, Interval                string
	ReloadOn, Threshold, ReloadAmount, MonthlyLimit string
}

// billingNotices are the notices of the processor's return (and of the
// page's own saves), by query parameter and value.
var billingNotices = map[string]string{
	"checkout=success":       "Thank you: your payment went through. The credits are added to the balance as soon as the payment processor confirms it, usually within a minute; reload the page to see them.",
	"checkout=cancelled":     "The purchase was cancelled: nothing was charged.",
	"subscription=success":   "Thank you: your subscription has started. The plan applies as soon as the payment processor confirms it.",
	"subscription=cancelled": "The subscription was not started: nothing was charged.",
	"saved=auto-reload":      "Auto-reload is saved.",
}

// billing is GET /dashboard/billing (any role; the controls for admins).
func (h *Handler) billing(w http.ResponseWriter, r *http.Request, id Identity) {
	b, v := h.billingView(r, id)
	q := r.URL.Query()
	for _, k := range []string{"checkout", "subscription", "saved"} {
		if n, ok := billingNotices[k+"="+q.Get(k)]; ok {
			v.Notice = n
		}
	}
	if b.Balance == nil {
		v.Problem = &problem{Status: http.StatusBadGateway, Sentence: sentence("internal_error")}
	}
	h.renderBilling(w, r, http.StatusOK, v)
}

// billingView reads the page's facts: balance, organization, auto-reload.
func (h *Handler) billingView(r *http.Request, id Identity) (*billingPage, view) {
	b := &billingPage{Tier: string(id.Tier), Paid: id.Tier.IsPaid(), CanPay: id.may("billing.checkout"), Packs: packs,
		Amounts: reloadAmounts, Pack: "25", PlanTier: "pro", Interval: "monthly", ReloadAmount: "25000"}
	ws := workspaceParam(r)
	var bal struct {
		Balance int64  `json:"balance"`
		OrgID   string `json:"org_id"`
	}
	if decode(h.api.Call(r, ws, http.MethodGet, "/api/billing/balance", nil), &bal) {
		b.Balance, b.OrgID = &bal.Balance, bal.OrgID
	}
	var ar autoReload
	if decode(h.api.Call(r, ws, http.MethodGet, "/api/billing/auto-reload", nil), &ar) {
		b.Reload = &ar
		b.ReloadOn = strconv.FormatBool(ar.Enabled)
		b.Threshold, b.MonthlyLimit = optInt(ar.Threshold), optInt(ar.MonthlyLimit)
		if ar.Amount != nil {
			b.ReloadAmount = optInt(ar.Amount)
		}
	}
	return b, view{Title: "Billing", Me: h.loadChrome(r, id), Data: b}
}

// renderBilling renders the billing page, whose forms may lead to the
// processor's pages.
func (h *Handler) renderBilling(w http.ResponseWriter, r *http.Request, status int, v view) {
	w.Header().Set("Content-Security-Policy", billingCSP)
	h.render(w, r, status, "money_billing", v)
}

// refused shows the billing page again with the API's refusal p and the
// values posted.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, id Identity, p *problem, keep func(*billingPage)) {
	b, v := h.billingView(r, id)
	keep(b)
	v.Problem = p
	h.renderBilling(w, r, p.Status, v)
}

// toProcessor sends the browser to the processor's page url: a 303 to
// one of processorOrigins, else the billing page with a link to it (the
// browser would refuse the redirect under form-action).
func (h *Handler) toProcessor(w http.ResponseWriter, r *http.Request, id Identity, rep Reply) {
	var out struct {
		URL string `json:"url"`
	}
	if !decode(rep, &out) || out.URL == "" {
		h.refused(w, r, id, &problem{Status: http.StatusBadGateway, Sentence: sentence("internal_error")}, func(*billingPage) {})
		return
	}
	if u, err := url.Parse(out.URL); err == nil && u.Scheme == "https" {
		for _, o := range processorOrigins {
			if "https://"+u.Host == o {
				http.Redirect(w, r, out.URL, http.StatusSeeOther)
				return
			}
		}
	}
	b, v := h.billingView(r, id)
	b.Continue = out.URL
	h.renderBilling(w, r, http.StatusOK, v)
}

// checkout is POST /dashboard/billing/checkout (admin): a pack, or a
// custom amount, then the processor's checkout page.
func (h *Handler) checkout(w http.ResponseWriter, r *http.Request, id Identity) {
	pack, custom := r.PostFormValue("pack"), strings.TrimSpace(r.PostFormValue("custom_amount"))
	body := map[string]any{"pack": number(pack)}
	if pack == "custom" {
		body = map[string]any{"custom_amount": number(custom)}
	}
	rep := h.api.Call(r, workspaceParam(r), http.MethodPost, "/api/billing/checkout", body)
	if p, bad := failed(rep); bad {
		h.refused(w, r, id, p, func(b *billingPage) { b.Pack, b.Custom = pack, custom })
		return
	}
	h.toProcessor(w, r, id, rep)
}

// subscribe is POST /dashboard/billing/subscribe (admin): a plan and its
// interval, then the processor's checkout page.
func (h *Handler) subscribe(w http.ResponseWriter, r *http.Request, id Identity) {
	tier, interval := r.PostFormValue("tier"), r.PostFormValue("interval")
	rep := h.api.Call(r, workspaceParam(r), http.MethodPost, "/api/billing/subscribe", map[string]any{"tier": tier, "interval": interval})
	if p, bad := failed(rep); bad {
		h.refused(w, r, id, p, func(b *billingPage) { b.PlanTier, b.Interval = tier, interval })
		return
	}
	h.toProcessor(w, r, id, rep)
}

// portal is POST /dashboard/billing/portal (admin): the processor's page
// that manages the subscription and the payment methods.
func (h *Handler) portal(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, workspaceParam(r), http.MethodPost, "/api/billing/portal", nil)
	if p, bad := failed(rep); bad {
		h.refused(w, r, id, p, func(*billingPage) {})
		return
	}
	h.toProcessor(w, r, id, rep)
}

// saveAutoReload is POST /dashboard/billing/auto-reload (admin): PUT
// /api/billing/auto-reload with the form, then the page with a notice.
func (h *Handler) saveAutoReload(w http.ResponseWriter, r *http.Request, id Identity) {
	f := r.PostFormValue
	on := f("enabled") == "true"
	body := map[string]any{"enabled": on}
	if on {
		body["confirm"] = f("confirm") != ""
		body["threshold"], body["amount"], body["monthly_limit"] = number(f("threshold")), number(f("amount")), number(f("monthly_limit"))
	}
	ws := workspaceParam(r)
	rep := h.api.Call(r, ws, http.MethodPut, "/api/billing/auto-reload", body)
	if p, bad := failed(rep); bad {
		h.refused(w, r, id, p, func(b *billingPage) {
			b.ReloadOn, b.Threshold, b.ReloadAmount, b.MonthlyLimit = strconv.FormatBool(on), f("threshold"), f("amount"), f("monthly_limit")
		})
		return
	}
	back := wsQuery("/dashboard/billing", ws)
	http.Redirect(w, r, back+sepOf(back)+"saved=auto-reload", http.StatusSeeOther)
}

// number is a form's number as JSON: an integer, a decimal, nil for
// none, the text itself otherwise (the route then names the field).
func number(s string) any {
	s = strings.TrimSpace(strings.ReplaceAll(s, ",", ""))
	if s == "" {
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

func optInt(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}
