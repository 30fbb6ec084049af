package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"svc/adapters/outbound"
)

// captured is what a test receiver saw of one request.
type captured struct {
	method string
	header http.Header
	body   []byte
}

// receiver starts a server answering with status and answer, recording
// every request.
func receiver(t *testing.T, status int, answer string, extra http.Header) (*httptest.Server, func() []captured) {
	t.Helper()
	var mu sync.Mutex
	var got []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, captured{r.Method, r.Header.Clone(), body})
		mu.Unlock()
		for k, v := range extra {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []captured {
		mu.Lock()
		defer mu.Unlock()
		return append([]captured(nil), got...)
	}
}

// privateSender returns a Sender allowed to reach loopback test servers.
func privateSender(t *testing.T) *Sender {
	t.Helper()
	c, err := outbound.NewClient(outbound.Options{AllowPrivate: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return NewSender(c)
}

func delivery(url string) Delivery {
	return Delivery{
		ID:         "dlv_1",
		URL:        url,
		Secret:     NewSecret(),
		EventType:  "workflow_completed",
		WorkflowID: "wr_0123",
		Body:       []byte(`{"type":"workflow_completed","workflow_id":"wr_0123"}`),
		Attempt:    2,
	}
}

func TestSendDeliversSignedRequest(t *testing.T) {
	srv, requests := receiver(t, http.StatusNoContent, "", nil)
	d := delivery(srv.URL + "/hook")
	r := privateSender(t).Send(context.Background(), d)
	if !r.Delivered || r.Err != nil || r.Retryable || r.StatusCode != http.StatusNoContent {
		t.Fatalf("Result = %+v", r)
	}
	if r.Duration <= 0 {
		t.Errorf("Duration = %v", r.Duration)
	}
	got := requests()
	if len(got) != 1 {
		t.Fatalf("%d requests, want 1", len(got))
	}
	req := got[0]
	if req.method != http.MethodPost || string(req.body) != string(d.Body) {
		t.Errorf("request %s %q", req.method, req.body)
	}
	for name, want := range map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        "svc-webhooks/1",
		"X-Svc-Event":       "workflow_completed",
		"X-Svc-Delivery":    "dlv_1",
		"X-Svc-Attempt":     "2",
		"X-Svc-Workflow-Id": "wr_0123",
	} {
		if v := req.header.Get(name); v != want {
			t.Errorf("header %s = %q, want %q", name, v, want)
		}
	}
	sig := req.header.Get("X-Svc-Signature")
	if err := Verify(d.Secret, sig, req.body, 0, time.Now()); err != nil {
		t.Errorf("Verify(%q): %v", sig, err)
	}
	if err := Verify(NewSecret(), sig, req.body, 0, time.Now()); !errors.Is(err, ErrSignatureMismatch) {
		t.Errorf("Verify with another secret: %v", err)
	}
}

func TestSendStatuses(t *testing.T) {
	for _, tc := range []struct {
		status             int
		delivered, retries bool
	}{
		{200, true, false},
		{201, true, false},
		{202, true, false},
		{204, true, false},
		{400, false, false},
		{401, false, false},
		{403, false, false},
		{404, false, false},
		{410, false, false},
		{413, false, false},
		{422, false, false},
		{408, false, true},
		{425, false, true},
		{429, false, true},
		{500, false, true},
		{502, false, true},
		{503, false, true},
		{504, false, true},
	} {
		srv, _ := receiver(t, tc.status, "answer", nil)
		r := privateSender(t).Send(context.Background(), delivery(srv.URL))
		if r.StatusCode != tc.status || r.Delivered != tc.delivered || r.Retryable != tc.retries {
			t.Errorf("%d: Result = %+v", tc.status, r)
		}
		if tc.status != http.StatusNoContent && r.ResponseSnippet != "answer" {
			t.Errorf("%d: snippet %q", tc.status, r.ResponseSnippet)
		}
		if tc.delivered != (r.Err == nil) {
			t.Errorf("%d: Err = %v", tc.status, r.Err)
		}
		if !tc.delivered && !errors.Is(r.Err, ErrStatus) {
			t.Errorf("%d: Err = %v, want ErrStatus", tc.status, r.Err)
		}
		if errors.Is(r.Err, ErrGone) != (tc.status == http.StatusGone) {
			t.Errorf("%d: Err = %v, ErrGone only for 410", tc.status, r.Err)
		}
	}
}

func TestSendRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		status int
		value  string
		want   time.Duration
	}{
		{429, "120", 2 * time.Minute},
		{503, "999999", maxRetryAfter},
		{429, "soon", 0},
		{429, "", 0},
		{400, "120", 0},
	} {
		srv, _ := receiver(t, tc.status, "", http.Header{"Retry-After": {tc.value}})
		r := privateSender(t).Send(context.Background(), delivery(srv.URL))
		if r.RetryAfter != tc.want {
			t.Errorf("%d Retry-After %q: RetryAfter = %v, want %v", tc.status, tc.value, r.RetryAfter, tc.want)
		}
	}
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(90 * time.Second).Format(http.TimeFormat)
	if d := parseRetryAfter(date, now); d != 90*time.Second {
		t.Errorf("parseRetryAfter(%q) = %v", date, d)
	}
	if d := parseRetryAfter(now.Add(-time.Hour).Format(http.TimeFormat), now); d != 0 {
		t.Errorf("a past date gives %v", d)
	}
}

func TestSendSnippetBounded(t *testing.T) {
	// 255 ASCII bytes then a 3-byte character: the cut character is dropped.
	answer := strings.Repeat("x", SnippetBytes-1) + "€" + strings.Repeat("y", 10000)
	srv, _ := receiver(t, http.StatusInternalServerError, answer, nil)
	r := privateSender(t).Send(context.Background(), delivery(srv.URL))
	if len(r.ResponseSnippet) > SnippetBytes || !utf8.ValidString(r.ResponseSnippet) {
		t.Fatalf("snippet of %d bytes, valid %v", len(r.ResponseSnippet), utf8.ValidString(r.ResponseSnippet))
	}
	if r.ResponseSnippet != strings.Repeat("x", SnippetBytes-1) {
		t.Errorf("snippet = %q", r.ResponseSnippet)
	}
}

func TestSendNetworkErrorRetryable(t *testing.T) {
	srv, _ := receiver(t, 200, "", nil)
	url := srv.URL
	srv.Close()
	r := privateSender(t).Send(context.Background(), delivery(url))
	if r.Delivered || !r.Retryable || r.Err == nil || r.StatusCode != 0 {
		t.Errorf("Result = %+v", r)
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // lets the server notice the client leaving
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	c, err := outbound.NewClient(outbound.Options{AllowPrivate: true, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r = NewSender(c).Send(context.Background(), delivery(slow.URL))
	if r.Delivered || !r.Retryable || r.Err == nil {
		t.Errorf("timeout: Result = %+v", r)
	}
}

func TestSendBlockedNotRetryable(t *testing.T) {
	srv, requests := receiver(t, 200, "", nil)
	r := NewSender(nil).Send(context.Background(), delivery(srv.URL))
	if r.Delivered || r.Retryable || !errors.Is(r.Err, outbound.ErrBlockedAddress) {
		t.Errorf("Result = %+v", r)
	}
	if n := len(requests()); n != 0 {
		t.Errorf("the loopback receiver got %d requests", n)
	}
}

func TestSendRefusals(t *testing.T) {
	d := delivery("https://example.com/hook")
	d.Secret = ""
	r := privateSender(t).Send(context.Background(), d)
	if r.Retryable || !errors.Is(r.Err, ErrNoSecret) {
		t.Errorf("no secret: Result = %+v", r)
	}
	for _, url := range []string{"", "not a url", "https://user:pw@example.com/"} {
		r := privateSender(t).Send(context.Background(), delivery(url))
		if r.Retryable || !errors.Is(r.Err, outbound.ErrInvalidURL) {
			t.Errorf("URL %q: Result = %+v", url, r)
		}
	}
}

func TestSendFollowsRedirectSigned(t *testing.T) {
	final, requests := receiver(t, 200, "", nil)
	redirect := httptest.NewServer(http.RedirectHandler(final.URL+"/moved", http.StatusPermanentRedirect))
	defer redirect.Close()
	d := delivery(redirect.URL)
	r := privateSender(t).Send(context.Background(), d)
	if !r.Delivered {
		t.Fatalf("Result = %+v", r)
	}
	got := requests()
	if len(got) != 1 || got[0].method != http.MethodPost || string(got[0].body) != string(d.Body) {
		t.Fatalf("requests at the target: %+v", got)
	}
	if err := Verify(d.Secret, got[0].header.Get(HeaderSignature), got[0].body, 0, time.Now()); err != nil {
		t.Errorf("Verify after redirect: %v", err)
	}
	if a := got[0].header.Get(HeaderAttempt); a != strconv.Itoa(d.Attempt) {
		t.Errorf("attempt header %q", a)
	}
}

func TestSendDoesNotTurnPostIntoGet(t *testing.T) {
	final, requests := receiver(t, 200, "", nil)
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther} {
		redirect := httptest.NewServer(http.RedirectHandler(final.URL, status))
		r := privateSender(t).Send(context.Background(), delivery(redirect.URL))
		redirect.Close()
		if r.Delivered || r.Retryable || r.StatusCode != status || !errors.Is(r.Err, ErrStatus) {
			t.Errorf("%d: Result = %+v", status, r)
		}
	}
	if n := len(requests()); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}

func TestSendWithPlainClientKeepsRedirectLimit(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+"/again", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	r := NewSender(&http.Client{}).Send(context.Background(), delivery(srv.URL))
	if r.Retryable || !errors.Is(r.Err, outbound.ErrTooManyRedirects) {
		t.Errorf("Result = %+v", r)
	}
}
