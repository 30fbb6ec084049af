package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// metaSchema is the shape of an output_contract (spec A). It is closed: a
// misspelled key is an error, not silently ignored.
const metaSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
    "count": {"type": "integer", "minimum": 0, "maximum": 100000},
    "field": {
      "type": "object",
      "additionalProperties": false,
      "required": ["name", "type"],
      "properties": {
        "name": {"type": "string", "minLength": 1},
        "type": {"enum": ["string", "number", "integer", "boolean", "array", "object"]},
        "required": {"type": "boolean"},
        "enum": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "minimum": {"type": "number"},
        "maximum": {"type": "number"},
        "items": {"$ref": "#/$defs/element"},
        "properties": {"type": "array", "items": {"$ref": "#/$defs/field"}, "minItems": 1},
        "description": {"type": "string"}
      }
    },
    "element": {
      "type": "object",
      "additionalProperties": false,
      "required": ["type"],
      "properties": {
        "type": {"enum": ["string", "number", "integer", "boolean", "array", "object"]},
        "enum": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "minimum": {"type": "number"},
        "maximum": {"type": "number"},
        "items": {"$ref": "#/$defs/element"},
        "properties": {"type": "array", "items": {"$ref": "#/$defs/field"}, "minItems": 1},
        "description": {"type": "string"}
      }
    }
  },
  "type": "object",
  "additionalProperties": false,
  "required": ["task_type", "shape", "fields"],
  "properties": {
    "task_type": {"type": "string", "minLength": 1},
    "shape": {"enum": ["object", "array"]},
    "fields": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/field"}},
    "count": {
      "type": "object", "additionalProperties": false,
      "properties": {"min": {"$ref": "#/$defs/count"}, "max": {"$ref": "#/$defs/count", "minimum": 1}}
    },
    "selection": {
      "type": "object", "additionalProperties": false, "required": ["scoreField"],
      "properties": {
        "scoreField": {"type": "string", "minLength": 1},
        "minScore": {"type": "number"},
        "minCount": {"$ref": "#/$defs/count"},
        "maxCount": {"$ref": "#/$defs/count", "minimum": 1}
      }
    }
  }
}`

var compiled = sync.OnceValue(func() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(metaSchema))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("output_contract.json", doc); err != nil {
		panic(err)
	}
	return c.MustCompile("output_contract.json")
})

// checkSchema validates raw against metaSchema; the error names the most
// specific path that failed.
func checkSchema(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &Error{Reason: "not valid JSON", Err: err}
	}
	err = compiled().Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Reason: err.Error(), Err: err}
	}
	leaf := deepest(ve)
	return &Error{Path: pathOf(leaf.InstanceLocation), Reason: leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English)), Err: err}
}

// deepest follows the causes down to the error that reaches deepest into the
// instance.
func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		next := ve.Causes[0]
		for _, c := range ve.Causes {
			if len(c.InstanceLocation) > len(next.InstanceLocation) {
				next = c
			}
		}
		ve = next
	}
	return ve
}

// pathOf turns a JSON pointer's tokens into "fields[1].type".
func pathOf(loc []string) string {
	var b strings.Builder
	for _, part := range loc {
		switch {
		case part != "" && strings.Trim(part, "0123456789") == "":
			b.WriteString("[" + part + "]")
		case b.Len() > 0:
			b.WriteString("." + part)
		default:
			b.WriteString(part)
		}
	}
	return b.String()
}
