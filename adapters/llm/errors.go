package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Causes of a failed attempt, used to decide on a retry.
var (
	errAttemptTimeout = errors.New("attempt timed out")
	errNetwork        = errors.New("network error")
)

// StatusError is an HTTP answer outside 2xx from a provider.
type StatusError struct {
	Code int
	// Body is the start of the answer's body, for the logs.
	Body string
	// RetryAfter is the delay the Retry-After header asked for; 0 when
	// absent.
	RetryAfter time.Duration
}

// Error returns "HTTP <code>: <body>".
func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body)
}

// Retryable reports whether the status is worth another attempt: 408, 409,
// 429 and every 5xx.
func (e *StatusError) Retryable() bool {
	return e.Code == 408 || e.Code == 409 || e.Code == 429 || e.Code >= 500
}

// CallError is the failure of one provider's call after Attempts HTTP
// attempts. It matches ErrTimeout when every attempt timed out (or the
// caller's deadline passed), and wraps the last attempt's cause.
type CallError struct {
	Provider string
	Attempts int
	TimedOut bool
	Err      error
}

// Error names the provider, the attempts and the last cause.
func (e *CallError) Error() string {
	what := "failed"
	if e.TimedOut {
		what = "timed out"
	}
	return fmt.Sprintf("llm %s: %s after %d attempt(s): %v", e.Provider, what, e.Attempts, e.Err)
}

// Unwrap returns ErrTimeout (when timed out) and the last cause.
func (e *CallError) Unwrap() []error {
	if e.TimedOut {
		return []error{ErrTimeout, e.Err}
	}
	return []error{e.Err}
}

// ProviderFailure is one provider's error within an ExhaustedError.
type ProviderFailure struct {
	Provider string
	Err      error
}

// ExhaustedError is returned by a chain when every provider failed. It
// matches ErrExhausted, and ErrTimeout when every failure was a timeout;
// the causes are in its message and in Failures.
type ExhaustedError struct {
	Failures []ProviderFailure
}

// Error lists every provider's failure.
func (e *ExhaustedError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = f.Provider + ": " + f.Err.Error()
	}
	return ErrExhausted.Error() + ": " + strings.Join(parts, "; ")
}

// Unwrap returns ErrExhausted, and ErrTimeout when every failure timed out.
func (e *ExhaustedError) Unwrap() []error {
	if e.timedOut() {
		return []error{ErrExhausted, ErrTimeout}
	}
	return []error{ErrExhausted}
}

// Attempts is the number of HTTP attempts made by all providers.
func (e *ExhaustedError) Attempts() int {
	n := 0
	for _, f := range e.Failures {
		n += attemptsOf(f.Err)
	}
	return n
}

// timedOut reports whether every failure was a timeout.
func (e *ExhaustedError) timedOut() bool {
	for _, f := range e.Failures {
		if !errors.Is(f.Err, ErrTimeout) {
			return false
		}
	}
	return len(e.Failures) > 0
}

// attemptsOf is the number of attempts behind err: a CallError's count, or
// 1.
func attemptsOf(err error) int {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Attempts
	}
	return 1
}
