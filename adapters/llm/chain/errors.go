package chain

import (
	"errors"
	"strings"

	"svc/adapters/llm"
)

// providerFailure is one provider's error within an exhaustedError.
type providerFailure struct {
	Provider string
	Err      error
}

// exhaustedError is returned by a chain when every provider failed. It
// matches llm.ErrExhausted, and llm.ErrTimeout when every failure was a
// timeout; the causes are in its message and in Failures.
type exhaustedError struct {
	Failures []providerFailure
}

// Error lists every provider's failure.
func (e *exhaustedError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = f.Provider + ": " + f.Err.Error()
	}
	return llm.ErrExhausted.Error() + ": " + strings.Join(parts, "; ")
}

// Unwrap returns llm.ErrExhausted, and llm.ErrTimeout when every failure
// timed out.
func (e *exhaustedError) Unwrap() []error {
	if e.timedOut() {
		return []error{llm.ErrExhausted, llm.ErrTimeout}
	}
	return []error{llm.ErrExhausted}
}

// Attempts is the number of HTTP attempts made by all providers.
func (e *exhaustedError) Attempts() int {
	n := 0
	for _, f := range e.Failures {
		n += attemptsOf(f.Err)
	}
	return n
}

// timedOut reports whether every failure was a timeout.
func (e *exhaustedError) timedOut() bool {
	for _, f := range e.Failures {
		if !errors.Is(f.Err, llm.ErrTimeout) {
			return false
		}
	}
	return len(e.Failures) > 0
}

// attemptsOf is the number of attempts behind err: an llm.CallError's
// count, or 1.
func attemptsOf(err error) int {
	var ce *llm.CallError
	if errors.As(err, &ce) {
		return ce.Attempts
	}
	return 1
}
