package httpapi

import (
	"sort"
	"testing"

	"svc/http/dashboard"
)

// TestDashboardRoutes: every route the dashboard calls is a route of the
// API, needs the role the dashboard expects before it offers the action,
// and every error code it can answer has a sentence of the dashboard.
func TestDashboardRoutes(t *testing.T) {
	ops := apiOps()
	known := map[string]bool{}
	for _, c := range dashboard.Sentences() {
		known[c] = true
	}
	names := dashboard.Routes()
	if len(names) < 10 {
		t.Fatalf("the dashboard names %d routes", len(names))
	}
	for name, floor := range names {
		op, ok := ops[name]
		if !ok {
			t.Errorf("the dashboard calls %q, which is no route of the API", name)
			continue
		}
		if op.floor != floor {
			t.Errorf("%s needs role %q; the dashboard offers it from %q", name, op.floor, floor)
		}
		var missing []string
		for _, codes := range op.refusals() {
			for _, c := range codes {
				if !known[c] {
					missing = append(missing, c)
				}
			}
		}
		sort.Strings(missing)
		for _, c := range missing {
			t.Errorf("%s answers %s: the dashboard has no sentence for it (http/dashboard/apierr.go)", name, c)
		}
	}
}

// TestDashboardRouted: the dashboard is one route outside the JSON API:
// no operation of the OpenAPI document, no entry of GET /docs.
func TestDashboardRouted(t *testing.T) {
	s := routedServer()
	for _, e := range endpointsOf(s.router) {
		if len(e.Path) >= 10 && e.Path[:10] == "/dashboard" {
			t.Errorf("GET /docs lists %s %s", e.Method, e.Path)
		}
	}
	doc := openAPIOf(t, s)
	for p := range doc["paths"].(map[string]any) {
		if len(p) >= 10 && p[:10] == "/dashboard" {
			t.Errorf("the OpenAPI document has %s", p)
		}
	}
}
