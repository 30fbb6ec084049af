// Package contract is the output_contract of spec A: the JSON a direct-execution
// step must answer with. Parse checks a contract when a plan is made, Prompt
// tells the model what to produce, and Validate normalises and checks the
// model's answer deterministically, replacing the quality review. Pure: no I/O.
package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Shape says whether an answer is one record or a list of records.
type Shape string

// The two shapes of an answer.
const (
	ShapeObject Shape = "object" // one record
	ShapeArray  Shape = "array"  // one record per input item
)

// Type is the JSON type a field's value must have.
type Type string

// The field types a contract may declare.
const (
	TypeString  Type = "string"
	TypeNumber  Type = "number"
	TypeInteger Type = "integer"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array"
	TypeObject  Type = "object"
)

// Contract is a parsed, checked output_contract. Build it with Parse.
type Contract struct {
	TaskType  string     // the caller's own label, echoed to telemetry
	Shape     Shape      // object or array
	Fields    []Field    // the closed schema of one record
	Count     *Count     // record bounds, read only when Shape is array
	Selection *Selection // over-generate-then-select, read only when Shape is array
}

// Field is one declared key of a record, or (unnamed) the element schema of
// an array field.
type Field struct {
	Name        string
	Type        Type
	Required    bool     // defaults to true
	Enum        []string // allowed spellings, string fields only
	Minimum     *float64 // inclusive, number and integer fields only
	Maximum     *float64 // inclusive, number and integer fields only
	Items       *Field   // element schema, array fields only; nil allows any element
	Properties  []Field  // nested closed schema, object fields only; nil allows any object
	Description string   // passed to the model
}

// Count bounds the number of records in an array answer, after selection.
type Count struct {
	Min *int `json:"min"`
	Max *int `json:"max"`
}

// Selection lets the model over-generate: records are sorted by ScoreField
// (highest first), those below MinScore dropped and the rest capped at
// MaxCount; fewer than MinCount left is a violation.
type Selection struct {
	ScoreField string   `json:"scoreField"`
	MinScore   *float64 `json:"minScore"`
	MinCount   *int     `json:"minCount"`
	MaxCount   *int     `json:"maxCount"`
}

// Error is a contract that cannot be used. Path locates the offending part
// relative to the contract ("fields[2].type"; empty for the whole contract).
type Error struct {
	Path   string
	Reason string
	Err    error // the underlying decoding or schema error, if any
}

// Error formats the path from the contract's root and the reason.
func (e *Error) Error() string {
	p := "output_contract"
	if e.Path != "" {
		p += "." + e.Path
	}
	return p + ": " + e.Reason
}

// Unwrap returns the underlying decoding or schema error.
func (e *Error) Unwrap() error { return e.Err }

func errAt(path, format string, a ...any) error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, a...)}
}

// Parse checks raw against the output_contract schema of spec A and returns
// the contract. A failure is an *Error naming the offending path.
func Parse(raw json.RawMessage) (Contract, error) {
	if err := checkSchema(raw); err != nil {
		return Contract{}, err
	}
	var w wireContract
	if err := json.Unmarshal(raw, &w); err != nil {
		var ute *json.UnmarshalTypeError // e.g. a count of 5.0, which JSON Schema calls an integer
		if errors.As(err, &ute) {
			return Contract{}, &Error{Path: ute.Field, Reason: "must be a whole number", Err: err}
		}
		return Contract{}, &Error{Reason: "cannot be decoded", Err: err}
	}
	return w.build()
}

// field returns the top-level field called name.
func (c Contract) field(name string) (Field, bool) {
	for _, f := range c.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

func (f Field) numeric() bool { return f.Type == TypeNumber || f.Type == TypeInteger }

// enumSpelling returns the declared spelling of s, ignoring surrounding
// whitespace and case.
func (f Field) enumSpelling(s string) (string, bool) {
	t := strings.TrimSpace(s)
	for _, e := range f.Enum {
		if e == t {
			return e, true
		}
	}
	for _, e := range f.Enum {
		if strings.EqualFold(e, t) {
			return e, true
		}
	}
	return "", false
}
