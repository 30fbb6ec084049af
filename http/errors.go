package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

// apiError is an error answer in the specification's envelope:
// {error:{code, message, request_id, fix?, docs?, details?}} plus, for a few
// platform answers, flat fields beside "error".
type apiError struct {
	Status  int
	Code    string
	Message string
	Fix     string
	Details map[string]any
	Flat    map[string]any
	Headers map[string]string
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

func (e *apiError) withFlat(k string, v any) *apiError {
	if e.Flat == nil {
		e.Flat = map[string]any{}
	}
	e.Flat[k] = v
	return e
}

// withRetryAfter adds spec A's retry_after (flat) and the Retry-After
// header.
func (e *apiError) withRetryAfter(secs int) *apiError {
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Headers["Retry-After"] = strconv.Itoa(secs)
	return e.withFlat("retry_after", secs)
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
	body := map[string]any{}
	for k, v := range ae.Flat {
		body[k] = v
	}
	env := map[string]any{"code": ae.Code, "message": ae.Message, "request_id": requestID(r.Context())}
	if ae.Fix != "" {
		env["fix"] = ae.Fix
	}
	if len(ae.Details) > 0 {
		env["details"] = ae.Details
	}
	body["error"] = env
	writeJSON(w, ae.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
}
