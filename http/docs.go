package httpapi

import "net/http"

// endpoint describes one route for GET /docs.
type endpoint struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Auth        string `json:"auth"`
	Description string `json:"description"`
}

var endpoints = []endpoint{
	{"GET", "/api/health", "none", "Service, database and cache status; products; version."},
	{"POST", "/api/keys", "none (3 per IP per 24 h)", "Sign up: creates an organization, its default workspace and an owner API key (shown once) with 2,500 credits. Body: email?, name?."},
	{"GET", "/api/keys/verify-email?token=...", "none", "The link mailed at signup: verifies the email and grants 2,500 credits once."},
	{"GET", "/api/keys/verify", "x-api-key", "Checks a key: org_id, is_paid."},
	{"GET", "/api/billing/balance", "x-api-key", "Credit balance of the key's organization (1,000 credits = 1 USD)."},
	{"POST", "/api/billing/checkout", "x-api-key (admin)", "A checkout page for credits: pack (10, 25, 100, 250 USD) or custom_amount (5-10,000 USD). Answers {url}."},
	{"POST", "/api/billing/subscribe", "x-api-key or session (admin)", "A checkout page for a subscription: tier (pro, team, enterprise), interval (monthly, annual). Answers {url}."},
	{"POST", "/api/billing/portal", "x-api-key or session (admin)", "The billing portal of the organization's processor customer. Answers {url}."},
	{"GET", "/metrics", "none", "Prometheus metrics."},
}

// docs is GET /docs: an index of the API. The full contract is the
// specification documents shipped with the service.
func (s *Server) docs(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, docsResponse{
		Service:        "svc",
		Version:        s.cfg.Version,
		Authentication: "Send your API key in the x-api-key header. Authorization: Bearer is not read.",
		Errors:         "Errors answer {error:{code, message, request_id, fix?, details?}}; quote request_id to support.",
		Endpoints:      endpoints,
	})
	return nil
}

// docsResponse is the answer of GET /docs.
type docsResponse struct {
	Service        string     `json:"service"`
	Version        string     `json:"version"`
	Authentication string     `json:"authentication"`
	Errors         string     `json:"errors"`
	Endpoints      []endpoint `json:"endpoints"`
}
