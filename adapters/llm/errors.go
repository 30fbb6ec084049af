package llm

import "fmt"

// CallError is the failure of one provider's call after Attempts HTTP
// attempts. It matches ErrTimeout when every attempt timed out (or the
// caller's deadline passed), and wraps the last attempt's cause. A chain
// counts a failed provider's attempts from it.
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
