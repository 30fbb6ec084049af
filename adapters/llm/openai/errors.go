package openai

import (
	"errors"
	"fmt"
	"time"
)

// Causes of a failed attempt, used to decide on a retry.
var (
	errAttemptTimeout = errors.New("attempt timed out")
	errNetwork        = errors.New("network error")
)

// statusError is an HTTP answer outside 2xx from a provider.
type statusError struct {
	Code int
	// Body is the start of the answer's body, for the logs.
	Body string
	// RetryAfter is the delay the Retry-After header asked for; 0 when
	// absent.
	RetryAfter time.Duration
}

// Error returns "HTTP <code>: <body>".
func (e *statusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body)
}

// Retryable reports whether the status is worth another attempt: 408, 409,
// 429 and every 5xx.
func (e *statusError) Retryable() bool {
	return e.Code == 408 || e.Code == 409 || e.Code == 429 || e.Code >= 500
}
