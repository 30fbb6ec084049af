package dashboard

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"svc/domain/apikey"
)

// The money pages: usage and costs with their charts (money_usage.go,
// money_chart.go), billing: the balance, credit packs and plans through
// the processor's checkout, its portal, auto-reload (money_billing.go).

// moneyRoutes are the API routes the money pages call.
var moneyRoutes = map[string]apikey.Role{
	"rigor.usage_summary": apikey.Viewer, "rigor.costs": apikey.Viewer,
	"billing.balance": "", "billing.auto_reload": "",
	"billing.checkout": apikey.Admin, "billing.subscribe": apikey.Admin, "billing.portal": apikey.Admin,
	"billing.auto_reload_update": apikey.Admin,
}

// moneySentences are the error codes of moneyRoutes not in coreSentences.
var moneySentences = map[string]string{
	"invalid_pack":          "Choose one of the packs: 10, 25, 100 or 250 USD.",
	"invalid_custom_amount": "A custom amount is a whole number of US dollars from 5 to 10,000.",
	"invalid_tier":          "Choose a plan: Pro, Team or Enterprise.",
	"invalid_interval":      "Choose monthly or annual billing.",
	"already_subscribed":    "This organization already has a subscription: change or cancel it with “Manage billing”.",
	"no_billing_account":    "This organization has bought nothing yet, so there is no billing account to manage. Buy credits or subscribe first.",
	"billing_unavailable":   "Payments are not available on this service right now. Try again later, or ask its operator.",
}

// moneyFuncs are the template functions of the money pages.
var moneyFuncs = template.FuncMap{
	"svgNum":       svgNum,
	"money":        formatUSD,
	"taskTypeName": taskTypeName,
	"mul1000":      func(usd int) int64 { return int64(usd) * 1000 },
	"planTiers":    func() []option { return planTiers },
	"gridEnd":      func(width int) int { return width - colRight }, // a column chart's plot ends before its right margin
}

// planTiers are the plans one subscribes to (spec B).
var planTiers = []option{{"pro", "Pro"}, {"team", "Team"}, {"enterprise", "Enterprise"}}

// moneyPages registers the money pages.
func (h *Handler) moneyPages(m *http.ServeMux) {
	m.HandleFunc("GET /dashboard/usage", h.signedIn(h.usage))
	m.HandleFunc("GET /dashboard/billing", h.signedIn(h.billing))
	m.HandleFunc("POST /dashboard/billing/checkout", h.signedIn(h.checkout))
	m.HandleFunc("POST /dashboard/billing/subscribe", h.signedIn(h.subscribe))
	m.HandleFunc("POST /dashboard/billing/portal", h.signedIn(h.portal))
	m.HandleFunc("POST /dashboard/billing/auto-reload", h.signedIn(h.saveAutoReload))
}

// formatUSD is an amount of US dollars with cents and separators
// ($1,234.50).
func formatUSD(usd float64) string {
	sign := ""
	if usd < 0 {
		sign, usd = "-", -usd
	}
	whole, cents, _ := strings.Cut(strconv.FormatFloat(usd, 'f', 2, 64), ".")
	n, _ := strconv.ParseInt(whole, 10, 64)
	return sign + "$" + formatInt(n) + "." + cents
}
