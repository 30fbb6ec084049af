package httpapi_test

import "testing"

// TestDocsListEveryRoute: GET /docs describes every route the API has.
func TestDocsListEveryRoute(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	if missing := f.srv.UndocumentedRoutes(); len(missing) > 0 {
		t.Errorf("routes without a description in http/docs.go's routeDocs: %v", missing)
	}
	resp, body := f.do(t, "GET", "/docs", "")
	eps, _ := body["endpoints"].([]any)
	if resp.StatusCode != 200 || len(eps) != len(f.srv.Routes()) {
		t.Fatalf("GET /docs: %d with %d endpoints, the API has %d routes", resp.StatusCode, len(eps), len(f.srv.Routes()))
	}
	for _, raw := range eps {
		e := raw.(map[string]any)
		if e["path"] == "" || e["auth"] == "" || e["description"] == "" {
			t.Errorf("endpoint %v", e)
		}
	}
}
