package httpapi_test

import "testing"

// qualitygateWalks walk the qualitygate write routes: each call, then what must read
// it back at once.
func qualitygateWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return nil
}

// qualitygateReads are the qualitygate GET routes' paths, for null lists.
func qualitygateReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return nil
}
