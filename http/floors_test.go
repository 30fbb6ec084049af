package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// TestWorkflowRouteFloors: each workflow route refuses a key below its
// floor with 403 insufficient_permissions before reading the body, and a
// wrong method on a rigor route is 405.
func TestWorkflowRouteFloors(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.start(t)
	viewer, _ := keyWithRole(t, apikey.Viewer)
	member, _ := keyWithRole(t, apikey.Member)
	waitKey(t, f, viewer)
	waitKey(t, f, member)
	cases := []struct {
		method, path, key string
	}{
		{"POST", "/api/rigor/execute", viewer},
		{"POST", "/api/rigor/step", viewer},
		{"POST", "/api/rigor/resume", viewer},
		{"POST", "/api/rigor/approve", member},
		{"POST", "/api/rigor/workflows/actions", member},
	}
	for _, c := range cases {
		resp, body := f.do(t, c.method, c.path, c.key)
		if resp.StatusCode != 403 || errCode(body) != "insufficient_permissions" {
			t.Errorf("%s %s below its floor: %d %v", c.method, c.path, resp.StatusCode, body)
		}
	}
	// at the floor the body is read: an empty one is invalid_body
	if resp, body := f.do(t, "POST", "/api/rigor/resume", member); resp.StatusCode != 400 || errCode(body) != "invalid_body" {
		t.Errorf("member resume: %d %v", resp.StatusCode, body)
	}
	resp, body := f.do(t, "DELETE", "/api/rigor/step", member)
	if resp.StatusCode != 405 || errCode(body) != "method_not_allowed" || resp.Header.Get("Allow") != "POST" {
		t.Errorf("DELETE /api/rigor/step: %d %v Allow %q", resp.StatusCode, body, resp.Header.Get("Allow"))
	}
}
