package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxBody bounds request bodies; larger ones answer 413 body_too_large.
const maxBody = 1 << 20

// decodeBody reads a JSON object into dst. An empty body decodes as {} when
// emptyOK. Malformed JSON is invalid_body; a field of the wrong type is
// invalid_field naming it, and so is a string (value or key) holding U+0000,
// bytes that are not UTF-8 or an unpaired surrogate escape (text.go): such
// a body is refused before anything is decoded into dst.
func decodeBody(w http.ResponseWriter, r *http.Request, dst any, emptyOK bool) *apiError {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return newError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("The request body is over %d bytes.", maxBody))
		}
		return newError(http.StatusBadRequest, "invalid_body", "The request body could not be read.")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		if emptyOK {
			return nil
		}
		return newError(http.StatusBadRequest, "invalid_body", "The request body is empty; send a JSON object.").
			withFix("Send a JSON object with Content-Type: application/json.")
	}
	if raw[0] != '{' {
		return newError(http.StatusBadRequest, "invalid_body", "The request body must be a JSON object.")
	}
	valid := json.Valid(raw)
	if valid {
		if err := jsonTextError(raw, ""); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return errInvalidField(typeErr.Field, "expected "+typeErr.Type.String()+", got "+typeErr.Value).
				withDetail("expected", typeErr.Type.String())
		}
		return newError(http.StatusBadRequest, "invalid_body", "The request body is not valid JSON: "+err.Error()).
			withFix("Check the JSON syntax: quotes, commas and braces.")
	}
	if dec.More() {
		return newError(http.StatusBadRequest, "invalid_body", "The request body holds more than one JSON value.")
	}
	if !valid { // the object decoded, but a stray ] or } follows it
		return newError(http.StatusBadRequest, "invalid_body", "The request body is not valid JSON: unexpected characters after the object.").
			withFix("Check the JSON syntax: quotes, commas and braces.")
	}
	return nil
}
