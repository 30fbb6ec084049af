package httpapi_test

import "testing"

// pitfalldbWalks walk the pitfalldb write routes: each call, then what must read
// it back at once.
func pitfalldbWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return nil
}

// pitfalldbReads are the pitfalldb GET routes' paths, for null lists.
func pitfalldbReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return nil
}
