package httpapi_test

import "testing"

// burnrateWalks walk the burnrate write routes: each call, then what must read
// it back at once.
func burnrateWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return nil
}

// burnrateReads are the burnrate GET routes' paths, for null lists.
func burnrateReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return nil
}
