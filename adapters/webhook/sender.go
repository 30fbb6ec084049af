package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"svc/adapters/outbound"
)

// SnippetBytes is the most bytes of a receiver's answer kept in
// Result.ResponseSnippet.
const SnippetBytes = 256

// drainBytes is how much more of an answer is read, and dropped, so the
// connection can be reused.
const drainBytes = 64 << 10

// Sentinel errors in Result.Err.
var (
	// ErrStatus is wrapped when the receiver answered with a status other
	// than 2xx.
	ErrStatus = errors.New("webhook: receiver answered non-2xx")
	// ErrGone is wrapped (besides ErrStatus) when the receiver answered
	// 410 Gone: the URL is retired and the delivery is not retried.
	ErrGone = errors.New("webhook: receiver says the URL is gone")
	// ErrNoSecret is wrapped when a Delivery has no secret to sign with.
	ErrNoSecret = errors.New("webhook: delivery has no secret")
)

// Delivery is one event to deliver to one webhook URL.
type Delivery struct {
	// ID identifies the delivery; keep it the same on every attempt so
	// receivers can drop duplicates (X-Svc-Delivery).
	ID string
	// URL is the registered webhook URL.
	URL string
	// Secret is the workflow's webhook_secret or the endpoint's secret,
	// the HMAC key.
	Secret string
	// Previous is a second secret that signs beside Secret while a
	// rotation's overlap lasts (a second v1); empty for none.
	Previous string
	// EventType is the event, e.g. workflow_completed (X-Svc-Event).
	EventType string
	// WorkflowID is the workflow the event belongs to (X-Svc-Workflow-Id).
	WorkflowID string
	// Body is the JSON payload, sent and signed as is.
	Body []byte
	// Attempt is this attempt's number, 1 for the first (X-Svc-Attempt).
	Attempt int
}

// Result is the outcome of one attempt.
type Result struct {
	// StatusCode is the receiver's HTTP status, 0 when none arrived.
	StatusCode int
	// Err says why the attempt did not deliver; nil when Delivered.
	Err error
	// Duration is the time the attempt took.
	Duration time.Duration
	// Delivered reports a 2xx answer.
	Delivered bool
	// Retryable reports whether another attempt may succeed: true for
	// 408, 425, 429, 5xx and network errors (a canceled ctx included),
	// false for other answers, a blocked address, a refused redirect, an
	// invalid URL or a missing secret.
	Retryable bool
	// RetryAfter is the receiver's Retry-After on a retryable answer, 0
	// when absent; callers may wait the longer of it and Backoff.
	RetryAfter time.Duration
	// ResponseSnippet is the start of the answer's body, at most
	// SnippetBytes bytes of valid UTF-8.
	ResponseSnippet string
}

// Sender makes delivery attempts through an SSRF-guarded client.
type Sender struct {
	client *http.Client
	now    func() time.Time
}

// NewSender returns a Sender using client, which should come from
// outbound.NewClient; nil means outbound.NewClient with default Options
// (private addresses refused, 10 s timeout).
func NewSender(client *http.Client) *Sender {
	if client == nil {
		// Cannot fail: only a CA file can make NewClient fail.
		client, _ = outbound.NewClient(outbound.Options{})
	}
	return &Sender{client: keepMethod(client), now: time.Now}
}

// keepMethod returns a copy of client that does not follow a redirect
// turning the POST into a GET (301, 302, 303), which would drop the
// payload: the 3xx answer is returned instead and ends the delivery.
// 307 and 308 resend the signed body and are followed under client's own
// policy (outbound's limit when client has none).
func keepMethod(client *http.Client) *http.Client {
	c := *client
	policy := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Method != via[0].Method {
			return http.ErrUseLastResponse
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) > outbound.MaxRedirects {
			return fmt.Errorf("%w: more than %d", outbound.ErrTooManyRedirects, outbound.MaxRedirects)
		}
		return nil
	}
	return &c
}

// Send makes one attempt to deliver d and reports its outcome. It does not
// retry: the caller records the attempt and schedules the next one with
// Backoff when Result.Retryable.
func (s *Sender) Send(ctx context.Context, d Delivery) Result {
	start := s.now()
	r := s.send(ctx, d)
	r.Duration = s.now().Sub(start)
	return r
}

// send is Send without the timing.
func (s *Sender) send(ctx context.Context, d Delivery) Result {
	if d.Secret == "" {
		return Result{Err: fmt.Errorf("webhook: deliver %s: %w", d.ID, ErrNoSecret)}
	}
	if err := outbound.CheckURL(d.URL, false); err != nil {
		return Result{Err: fmt.Errorf("webhook: deliver %s: %w", d.ID, err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Result{Err: fmt.Errorf("webhook: deliver %s: %w", d.ID, err)}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set(HeaderEvent, d.EventType)
	h.Set(HeaderDelivery, d.ID)
	h.Set(HeaderAttempt, strconv.Itoa(d.Attempt))
	if d.WorkflowID != "" {
		h.Set(HeaderWorkflowID, d.WorkflowID)
	}
	secrets := []string{d.Secret}
	if d.Previous != "" {
		secrets = append(secrets, d.Previous)
	}
	h.Set(HeaderSignature, SignAll(secrets, s.now(), d.Body))

	resp, err := s.client.Do(req)
	if err != nil {
		return Result{
			Err:       fmt.Errorf("webhook: deliver %s: %w", d.ID, err),
			Retryable: retryableError(err),
		}
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, SnippetBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainBytes))

	r := Result{StatusCode: resp.StatusCode, ResponseSnippet: snippet(head)}
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		r.Delivered = true
		return r
	case code == http.StatusGone:
		r.Err = fmt.Errorf("webhook: deliver %s: %w: %w", d.ID, ErrGone, statusError(code))
	default:
		r.Err = fmt.Errorf("webhook: deliver %s: %w", d.ID, statusError(code))
		r.Retryable = retryableStatus(code)
	}
	if r.Retryable {
		r.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), s.now())
	}
	return r
}

// statusError wraps ErrStatus with the status.
func statusError(code int) error {
	return fmt.Errorf("%w: %d %s", ErrStatus, code, http.StatusText(code))
}

// retryableStatus reports whether an answer with status code may be
// followed by a successful attempt.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return code >= 500
}

// retryableError reports whether a failed request may succeed later:
// everything but the client's own refusals, which would repeat.
func retryableError(err error) bool {
	for _, final := range []error{
		outbound.ErrBlockedAddress,
		outbound.ErrInvalidURL,
		outbound.ErrTooManyRedirects,
		outbound.ErrInsecureRedirect,
	} {
		if errors.Is(err, final) {
			return false
		}
	}
	return true
}

// maxRetryAfter caps a receiver's Retry-After.
const maxRetryAfter = 6 * time.Hour

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date;
// 0 when absent or unreadable, at most maxRetryAfter.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, maxRetryAfter))
}

// snippet returns b as valid UTF-8: invalid bytes, such as a character
// cut at the end, are dropped, so the result is never longer than b.
func snippet(b []byte) string {
	return strings.ToValidUTF8(string(b), "")
}
