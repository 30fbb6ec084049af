package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Header names and fixed values of a delivery request.
const (
	// HeaderSignature carries "t=<unix seconds>,v1=<hex HMAC-SHA256>".
	HeaderSignature = "X-Svc-Signature"
	// HeaderEvent carries the event type.
	HeaderEvent = "X-Svc-Event"
	// HeaderDelivery carries the delivery id, the same on every attempt.
	HeaderDelivery = "X-Svc-Delivery"
	// HeaderAttempt carries the attempt number, 1 for the first.
	HeaderAttempt = "X-Svc-Attempt"
	// HeaderWorkflowID carries the workflow id.
	HeaderWorkflowID = "X-Svc-Workflow-Id"
	// UserAgent is the User-Agent of every delivery.
	UserAgent = "svc-webhooks/1"
)

// DefaultTolerance is the largest difference between a signature's
// timestamp and the verifier's clock that Verify accepts when given a
// tolerance of zero or less.
const DefaultTolerance = 5 * time.Minute

// Sentinel errors of Verify.
var (
	// ErrSignatureMalformed is returned for a signature header without a
	// numeric t or without any v1.
	ErrSignatureMalformed = errors.New("webhook: malformed signature header")
	// ErrSignatureMismatch is returned when no v1 matches the body.
	ErrSignatureMismatch = errors.New("webhook: signature does not match")
	// ErrSignatureExpired is returned when the signature matches but its
	// timestamp is outside the tolerance (a replay or a skewed clock).
	ErrSignatureExpired = errors.New("webhook: signature timestamp outside tolerance")
)

// Sign returns the X-Svc-Signature header value for body sent at t with
// secret: "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t.body)>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

// SignAll is Sign with every secret of secrets (a rotation's overlap:
// the new secret first): "t=<unix seconds>,v1=<hex>,v1=<hex>". A receiver
// holding either secret verifies it (Verify accepts any matching v1).
func SignAll(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(mac(s, ts, body)))
	}
	return b.String()
}

// mac computes HMAC-SHA256 keyed with the secret's bytes over ts "." body.
func mac(secret, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks an X-Svc-Signature header against body and secret: one of
// its v1 values must match, and its t must be within tolerance of now
// (DefaultTolerance when tolerance <= 0). Unknown keys in the header are
// ignored.
func Verify(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: want t=<unix seconds>,v1=<hex>", ErrSignatureMalformed)
	}
	want := mac(secret, ts, body)
	matched := false
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			matched = true
		}
	}
	if !matched {
		return ErrSignatureMismatch
	}
	if skew := now.Sub(time.Unix(sec, 0)).Abs(); skew > tolerance {
		return fmt.Errorf("%w: %s off, tolerance %s", ErrSignatureExpired, skew.Round(time.Second), tolerance)
	}
	return nil
}
