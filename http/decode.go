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
// invalid_field naming it.
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
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return errInvalidField(typeErr.Field, "expected "+typeErr.Type.String()+", got "+typeErr.Value)
		}
		return newError(http.StatusBadRequest, "invalid_body", "The request body is not valid JSON: "+err.Error()).
			withFix("Check the JSON syntax: quotes, commas and braces.")
	}
	if dec.More() {
		return newError(http.StatusBadRequest, "invalid_body", "The request body holds more than one JSON value.")
	}
	return nil
}
