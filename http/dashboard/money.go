package dashboard

import (
	"html/template"
	"net/http"

	"svc/domain/apikey"
)

// The money pages: usage and costs with their charts, billing (balance,
// packs and subscription through Stripe Checkout, auto-reload).

// moneyRoutes are the API routes the money pages call.
var moneyRoutes = map[string]apikey.Role{
	"rigor.usage_summary": apikey.Viewer,
}

// moneySentences are the error codes of moneyRoutes not in coreSentences.
var moneySentences = map[string]string{}

// moneyFuncs are the template functions of the money pages.
var moneyFuncs = template.FuncMap{}

func (h *Handler) moneyPages(m *http.ServeMux) {}
