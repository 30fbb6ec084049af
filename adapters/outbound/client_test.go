package outbound

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer starts a plain HTTP server that answers 200 "ok" and
// counts its requests.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// get fetches target with c and closes the body.
func get(c *http.Client, target string) (int, error) {
	resp, err := c.Get(target)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

func TestLoopbackBlockedByDefault(t *testing.T) {
	srv, hits := countingServer(t)
	c, err := NewClient(Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	for _, target := range []string{
		srv.URL,
		"http://localhost:" + u.Port(),
		"http://[::1]:" + u.Port(),
		"http://0.0.0.0:" + u.Port(),
	} {
		_, err := get(c, target)
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("GET %s: error = %v, want ErrBlockedAddress", target, err)
		}
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Errorf("GET %s: error %T is not a *url.Error", target, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server was reached %d times", n)
	}
}

func TestLoopbackAllowedWithAllowPrivate(t *testing.T) {
	srv, hits := countingServer(t)
	// An environment proxy must be ignored: this one does not exist.
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	t.Setenv("NO_PROXY", "")
	c, err := NewClient(Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	code, err := get(c, srv.URL)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET = %d, %v", code, err)
	}
	if hits.Load() != 1 {
		t.Errorf("hits = %d, want 1", hits.Load())
	}
}

func TestTimeoutOption(t *testing.T) {
	for _, tc := range []struct {
		in, want time.Duration
	}{{0, DefaultTimeout}, {2 * time.Second, 2 * time.Second}, {-1, 0}} {
		c, err := NewClient(Options{Timeout: tc.in})
		if err != nil {
			t.Fatal(err)
		}
		if c.Timeout != tc.want {
			t.Errorf("Timeout %v: client timeout %v, want %v", tc.in, c.Timeout, tc.want)
		}
		if c.Transport.(*http.Transport).Proxy != nil {
			t.Error("transport uses a proxy")
		}
	}
}

// publicLoopback treats 127.0.0.1 as a public address and applies the real
// check to every other one, so a loopback test server can stand in for
// an internet host.
func publicLoopback(a netip.Addr) error {
	if a.Unmap() == netip.MustParseAddr("127.0.0.1") {
		return nil
	}
	return checkAddr(a)
}

func TestRedirectToPrivateBlocked(t *testing.T) {
	// a private server that a redirect names, listening on another
	// loopback address (publicLoopback passes 127.0.0.1 only): if the
	// redirect were followed, it would count a hit
	var hits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	private := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	private.Listener.Close()
	private.Listener = ln
	private.Start()
	t.Cleanup(private.Close)
	for _, target := range []string{
		"http://169.254.169.254/latest/meta-data/",
		private.URL + "/",
		"http://10.0.0.1/",
	} {
		var redirects atomic.Int64
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			redirects.Add(1)
			http.Redirect(w, r, target, http.StatusFound)
		}))
		c, err := newClient(Options{Timeout: 2 * time.Second}, publicLoopback)
		if err != nil {
			t.Fatal(err)
		}
		_, err = get(c, redirector.URL)
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("redirect to %s: error = %v, want ErrBlockedAddress", target, err)
		}
		if redirects.Load() != 1 {
			t.Errorf("redirect to %s: the redirecting server was reached %d times, want 1", target, redirects.Load())
		}
		redirector.Close()
	}
	if hits.Load() != 0 {
		t.Errorf("a private server was reached")
	}
}

func TestRedirectLimit(t *testing.T) {
	// /hop/N redirects to /hop/N-1; /hop/0 answers 200.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
		if n == 0 {
			fmt.Fprint(w, "ok")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	}))
	defer srv.Close()
	c, err := NewClient(Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := get(c, fmt.Sprintf("%s/hop/%d", srv.URL, MaxRedirects)); err != nil || code != 200 {
		t.Errorf("%d redirects: %d, %v", MaxRedirects, code, err)
	}
	if _, err := get(c, fmt.Sprintf("%s/hop/%d", srv.URL, MaxRedirects+1)); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("%d redirects: error = %v, want ErrTooManyRedirects", MaxRedirects+1, err)
	}
}

// writeCA writes the certificate of a TLS test server to a PEM file and
// returns its path.
func writeCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHTTPSToHTTPRedirectRefused(t *testing.T) {
	plain, hits := countingServer(t)
	tlsSrv := httptest.NewTLSServer(http.RedirectHandler(plain.URL+"/x", http.StatusTemporaryRedirect))
	defer tlsSrv.Close()
	c, err := NewClient(Options{AllowPrivate: true, ExtraCAFile: writeCA(t, tlsSrv)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := get(c, tlsSrv.URL); !errors.Is(err, ErrInsecureRedirect) {
		t.Errorf("error = %v, want ErrInsecureRedirect", err)
	}
	if hits.Load() != 0 {
		t.Error("the http target was reached")
	}
}

func TestExtraCAFileTrusted(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()

	untrusting, err := NewClient(Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	var unknown x509.UnknownAuthorityError
	if _, err := get(untrusting, srv.URL); !errors.As(err, &unknown) {
		t.Errorf("without the CA file: error = %v, want an unknown authority", err)
	}

	trusting, err := NewClient(Options{AllowPrivate: true, ExtraCAFile: writeCA(t, srv)})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := get(trusting, srv.URL); err != nil || code != http.StatusOK {
		t.Errorf("with the CA file: %d, %v", code, err)
	}
}

func TestBadCAFile(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.pem"), notPEM} {
		if _, err := NewClient(Options{ExtraCAFile: path}); !errors.Is(err, ErrBadCAFile) {
			t.Errorf("%s: error = %v, want ErrBadCAFile", path, err)
		}
	}
}
