package httpapi_test

import "testing"

// dedupqWalks walk the dedupq write routes: each call, then what must read
// it back at once.
func dedupqWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return nil
}

// dedupqReads are the dedupq GET routes' paths, for null lists.
func dedupqReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return nil
}
