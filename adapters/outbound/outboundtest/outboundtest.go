// Package outboundtest serves HTTPS test servers that the outbound client
// (adapters/outbound) trusts: the test servers of context servers and
// webhook receivers.
package outboundtest

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"svc/adapters/outbound"
)

// WriteCA writes srv's certificate as a PEM file in a temporary directory
// and returns its path (what SVC_OUTBOUND_CA_FILE names).
func WriteCA(t testing.TB, srv *httptest.Server) string {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return ca
}

// Bearer serves h over HTTPS to requests that carry "Authorization:
// Bearer token" (401 without), closed when the test ends, and returns it
// with an outbound client trusting its certificate (private addresses
// allowed or not).
func Bearer(t testing.TB, h http.Handler, token string, allowPrivate bool) (*httptest.Server, *http.Client) {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	client, err := outbound.NewClient(outbound.Options{AllowPrivate: allowPrivate, ExtraCAFile: WriteCA(t, ts)})
	if err != nil {
		t.Fatal(err)
	}
	return ts, client
}
