package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

// apiError is an error answer in the specification's envelope:
// {error:{code, message, request_id, fix?, details?}} plus, for the rate
// limits, retry_after or retry_after_seconds beside "error".
type apiError struct {
	Status  int
	Code    string
	Message string
	Fix     string
	Details map[string]any
	// RetryAfter and RetryAfterSeconds are the flat fields of a refusal
	// by a rate limit (spec A's and spec B's names); nil when absent.
	RetryAfter, RetryAfterSeconds *int
	Headers                       map[string]string

	// Available, Min and Max are the flat fields of a refused checkout
	// amount (spec B: invalid_pack lists available, invalid_custom_amount
	// has min and max); empty when absent.
	Available []int64
	Min, Max  *int64
	// ExistingID is the flat existing_id of a refused duplicate
	// connection (spec A); "" when absent.
	ExistingID string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, message string) *apiError {
	return &apiError{Status: status, Code: code, Message: message}
}

func (e *apiError) withFix(fix string) *apiError { e.Fix = fix; return e }

func (e *apiError) withDetail(k string, v any) *apiError {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[k] = v
	return e
}

// withRetryAfterField adds spec A's flat retry_after, in seconds.
func (e *apiError) withRetryAfterField(secs int) *apiError { e.RetryAfter = &secs; return e }

// withRetryAfterSeconds adds spec B's flat retry_after_seconds.
func (e *apiError) withRetryAfterSeconds(secs int) *apiError { e.RetryAfterSeconds = &secs; return e }

// withRetryAfter adds spec A's retry_after (flat) and the Retry-After
// header.
func (e *apiError) withRetryAfter(secs int) *apiError {
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Headers["Retry-After"] = strconv.Itoa(secs)
	return e.withRetryAfterField(secs)
}

func errWorkflowNotFound(id string) *apiError {
	return newError(http.StatusNotFound, "not_found", "No workflow "+strconv.Quote(id)+" in your organization.")
}

func errMissingField(field string) *apiError {
	return newError(http.StatusBadRequest, "missing_field", "Field "+field+" is required.").withDetail("field", field)
}

func errInvalidField(field, why string) *apiError {
	return newError(http.StatusBadRequest, "invalid_field", "Field "+field+" is invalid: "+why).withDetail("field", field)
}

var errInternal = newError(http.StatusInternalServerError, "internal_error", "Something went wrong on our side. Retry, and quote the request_id if it persists.")

// writeError writes err in the envelope; anything that is not an *apiError
// is logged and answered as internal_error.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if isSuitePath(r.URL.Path) {
		s.writeSuiteError(w, r, err)
		return
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = errInternal
	}
	if ae.Status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "error", err.Error(), "code", ae.Code, "request_id", requestID(r.Context()), "path", r.URL.Path)
	}
	for k, v := range ae.Headers {
		w.Header().Set(k, v)
	}
	writeJSON(w, ae.Status, errorResponse{
		Error:      errorEnvelope{Code: ae.Code, Message: ae.Message, RequestID: requestID(r.Context()), Fix: ae.Fix, Details: ae.Details},
		RetryAfter: ae.RetryAfter, RetryAfterSeconds: ae.RetryAfterSeconds,
		Available: ae.Available, Min: ae.Min, Max: ae.Max, ExistingID: ae.ExistingID,
	})
}

// errorResponse is the body of an error answer.
type errorResponse struct {
	Error             errorEnvelope `json:"error"`
	RetryAfter        *int          `json:"retry_after,omitempty"`
	RetryAfterSeconds *int          `json:"retry_after_seconds,omitempty"`
	Available         []int64       `json:"available,omitempty"`
	Min               *int64        `json:"min,omitempty"`
	Max               *int64        `json:"max,omitempty"`
	ExistingID        string        `json:"existing_id,omitempty"`
}

// errorEnvelope is the error object; details' keys vary by code.
type errorEnvelope struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	RequestID string         `json:"request_id"`
	Fix       string         `json:"fix,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(withEmptyLists(body))
}
