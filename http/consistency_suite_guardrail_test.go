package httpapi_test

import "testing"

// guardrailWalks walk the guardrail write routes: each call, then what must read
// it back at once.
func guardrailWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	return nil
}

// guardrailReads are the guardrail GET routes' paths, for null lists.
func guardrailReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	return nil
}
