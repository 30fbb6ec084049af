package httpapi_test

import "testing"

// The suite's operations (spec C) in the route-coverage tests: each
// product's walks (every POST, and what must read it back) and reads (its
// GET routes, for null lists) live in consistency_suite_<product>_test.go.

// suiteWalks are the walks of every suite product's write routes.
func suiteWalks(t *testing.T, f *fixture) map[string]func(t *testing.T) {
	t.Helper()
	out := map[string]func(t *testing.T){}
	for _, ws := range []map[string]func(t *testing.T){dedupqWalks(t, f), burnrateWalks(t, f), qualitygateWalks(t, f),
		guardrailWalks(t, f), pitfalldbWalks(t, f)} {
		for name, w := range ws {
			out[name] = w
		}
	}
	return out
}

// suiteReads are the paths of every suite product's GET routes, read with
// key (a fresh organization's owner) for null lists, by route ("METHOD
// name").
func suiteReads(t *testing.T, f *fixture, key string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rs := range []map[string]string{dedupqReads(t, f, key), burnrateReads(t, f, key), qualitygateReads(t, f, key),
		guardrailReads(t, f, key), pitfalldbReads(t, f, key)} {
		for name, path := range rs {
			out[name] = path
		}
	}
	return out
}
