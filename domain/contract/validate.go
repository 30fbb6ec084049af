package contract

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Status is the step's output_validation_status.
type Status string

// The validation outcomes of spec A, from best to worst.
const (
	Valid                   Status = "valid"                     // conforms as given
	ValidAfterNormalization Status = "valid_after_normalization" // conforms once normalised
	InvalidSchema           Status = "invalid_schema"            // a record breaks the field schema
	InvalidCount            Status = "invalid_count"             // too few or too many records
	InvalidShape            Status = "invalid_shape"             // object where an array is due, or the reverse
	Unparseable             Status = "unparseable"               // no JSON object or array in the answer
	Empty                   Status = "empty"                     // nothing but whitespace
)

// Violation is one way an answer breaks the contract. Path locates it in the
// answer: "[3].score", "[0].tags[1]", ".name" (shape object); empty for the
// answer as a whole.
type Violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Result is the outcome of validating one answer.
type Result struct {
	Status     Status      `json:"status"`
	Violations []Violation `json:"violations,omitempty"`
	// Findings are the normalised records (after selection) for the step's
	// output_findings: an object for shape object, an array for shape array.
	// Set only when OK.
	Findings json.RawMessage `json:"findings,omitempty"`
}

// OK reports whether the answer conforms, as given or after normalisation.
func (r Result) OK() bool { return r.Status == Valid || r.Status == ValidAfterNormalization }

func fail(s Status, path, format string, a ...any) Result {
	return Result{Status: s, Violations: []Violation{{Path: path, Message: fmt.Sprintf(format, a...)}}}
}

// Validate normalises answer (the model's raw text) and checks it against c.
// Every violation is reported; status is the worst kind found.
func (c Contract) Validate(answer string) Result {
	if strings.TrimSpace(answer) == "" {
		return fail(Empty, "", "the answer is empty")
	}
	doc, changed, err := extract(answer)
	if err != nil {
		return fail(Unparseable, "", "%v", err)
	}
	w := &walker{changed: changed}
	if c.Shape != ShapeArray {
		m, ok := c.asObject(w, doc)
		if !ok {
			return fail(InvalidShape, "", "must be one JSON object, got %s", describe(doc))
		}
		rec := w.record(c.Fields, m, "")
		return w.result(rec, nil)
	}
	items, ok := c.asArray(w, doc)
	if !ok {
		return fail(InvalidShape, "", "must be a JSON array of objects, got %s", describe(doc))
	}
	recs := make([]*object, 0, len(items))
	for i, it := range items {
		p := fmt.Sprintf("[%d]", i)
		m, ok := it.(map[string]any)
		if !ok {
			w.violate(p, "must be an object, got %s", describe(it))
			continue
		}
		recs = append(recs, w.record(c.Fields, m, p))
	}
	if len(w.violations) > 0 {
		return w.result(nil, nil)
	}
	recs, counts := c.bound(recs)
	return w.result(recs, counts)
}

// asObject accepts a record, or an array holding exactly one record.
func (c Contract) asObject(w *walker, doc any) (map[string]any, bool) {
	switch v := doc.(type) {
	case map[string]any:
		return v, true
	case []any:
		if m, ok := single(v); ok {
			w.changed = true
			return m, true
		}
	}
	return nil, false
}

// asArray accepts an array, a single record (wrapped), or an envelope such
// as {"results": [...]} whose only key is not a declared field (unwrapped;
// JSON modes of some providers cannot answer with a bare array).
func (c Contract) asArray(w *walker, doc any) ([]any, bool) {
	switch v := doc.(type) {
	case []any:
		return v, true
	case map[string]any:
		w.changed = true
		if len(v) == 1 {
			for k, inner := range v {
				if arr, ok := inner.([]any); ok {
					if _, declared := c.field(k); !declared {
						return arr, true
					}
				}
			}
		}
		return []any{v}, true
	}
	return nil, false
}

func single(v []any) (map[string]any, bool) {
	if len(v) != 1 {
		return nil, false
	}
	m, ok := v[0].(map[string]any)
	return m, ok
}

// result turns a finished walk into a Result; findings is a record, a list
// of records or nil.
func (w *walker) result(findings any, counts []Violation) Result {
	switch {
	case len(w.violations) > 0:
		return Result{Status: InvalidSchema, Violations: w.violations}
	case len(counts) > 0:
		return Result{Status: InvalidCount, Violations: counts}
	}
	raw, err := encode(findings)
	if err != nil { // cannot happen: every value came from a JSON decoder
		return fail(InvalidSchema, "", "the normalised answer cannot be encoded: %v", err)
	}
	r := Result{Status: Valid, Findings: raw}
	if w.changed {
		r.Status = ValidAfterNormalization
	}
	return r
}
