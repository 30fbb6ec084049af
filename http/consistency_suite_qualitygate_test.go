package httpapi_test

import (
	"testing"

	"svc/domain/apikey"
)

// qualitygateWalks walk the qualitygate write routes: each call, then what must read
// it back at once.
func qualitygateWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	key, _ := keyWithRole(t, apikey.Owner)
	return map[string]func(t *testing.T){
		"POST qualitygate.validate": func(t *testing.T) {
			waitKey(t, f, key)
			_, before := rawCall(t, f, "GET", "/api/qualitygate/trends?days=1", key, "")
			code, body := rawCall(t, f, "POST", "/api/qualitygate/validate", key,
				`{"output":"walked","directives":["must include walked","must not mention running"]}`)
			if code != 200 {
				t.Fatalf("validate: %d %v", code, body)
			}
			_, after := rawCall(t, f, "GET", "/api/qualitygate/trends?days=1", key, "")
			if after["total_validations"] != before["total_validations"].(float64)+1 || after["passed"] != before["passed"].(float64)+1 {
				t.Fatalf("the validation is not in the trends: %v then %v", before, after)
			}
		},
	}
}

// qualitygateReads are the qualitygate GET routes' paths, for null lists.
func qualitygateReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return map[string]string{"GET qualitygate.trends": "/api/qualitygate/trends"}
}
