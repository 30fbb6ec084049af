package outbound

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer srv.Close()
	open, err := NewClient(Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := Probe(context.Background(), open, srv.URL, time.Second); err != nil || code != http.StatusServiceUnavailable {
		t.Fatalf("answering server: %d %v", code, err)
	}
	guarded, err := NewClient(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Probe(context.Background(), guarded, srv.URL, time.Second); !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("loopback through the guarded client: %v", err)
	}
	srv.Close()
	if _, err := Probe(context.Background(), open, srv.URL, time.Second); err == nil {
		t.Fatal("a closed server answered")
	}
}
