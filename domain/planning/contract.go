package planning

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// contractSchema is the shape of preferences.output_contract (spec A). It is
// closed: a misspelled key is an error, not silently ignored.
const contractSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
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
      "properties": {"min": {"type": "integer", "minimum": 0}, "max": {"type": "integer", "minimum": 1}}
    },
    "selection": {
      "type": "object", "additionalProperties": false, "required": ["scoreField"],
      "properties": {
        "scoreField": {"type": "string", "minLength": 1},
        "minScore": {"type": "number"},
        "minCount": {"type": "integer", "minimum": 0},
        "maxCount": {"type": "integer", "minimum": 1}
      }
    }
  }
}`

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
)

func schema() *jsonschema.Schema {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(contractSchema))
		if err != nil {
			panic(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("output_contract.json", doc); err != nil {
			panic(err)
		}
		compiled = c.MustCompile("output_contract.json")
	})
	return compiled
}

const contractPath = "preferences.output_contract"

// ValidateContract checks an output_contract's shape; the error names the
// offending path, such as preferences.output_contract.fields[1].type.
func ValidateContract(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fieldErr(contractPath, "not valid JSON")
	}
	if err := schema().Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return fieldErr(contractPath, "%v", err)
		}
		leaf := deepest(ve)
		return fieldErr(pathOf(leaf.InstanceLocation), "%s", leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
	}
	var c struct {
		Shape string `json:"shape"`
		Count *struct {
			Min *int `json:"min"`
			Max *int `json:"max"`
		} `json:"count"`
		Fields []struct {
			Name    string   `json:"name"`
			Minimum *float64 `json:"minimum"`
			Maximum *float64 `json:"maximum"`
		} `json:"fields"`
	}
	_ = json.Unmarshal(raw, &c)
	if c.Count != nil && c.Count.Min != nil && c.Count.Max != nil && *c.Count.Min > *c.Count.Max {
		return fieldErr(contractPath+".count", "min %d is above max %d", *c.Count.Min, *c.Count.Max)
	}
	seen := map[string]bool{}
	for i, f := range c.Fields {
		if seen[f.Name] {
			return fieldErr(fmt.Sprintf("%s.fields[%d].name", contractPath, i), "duplicate field %q", f.Name)
		}
		seen[f.Name] = true
		if f.Minimum != nil && f.Maximum != nil && *f.Minimum > *f.Maximum {
			return fieldErr(fmt.Sprintf("%s.fields[%d]", contractPath, i), "minimum is above maximum")
		}
	}
	return nil
}

// deepest follows the first cause down to the most specific error.
func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		next := ve.Causes[0]
		for _, c := range ve.Causes { // prefer the cause that reaches deepest into the instance
			if len(c.InstanceLocation) > len(next.InstanceLocation) {
				next = c
			}
		}
		ve = next
	}
	return ve
}

func pathOf(loc []string) string {
	var b strings.Builder
	b.WriteString(contractPath)
	for _, part := range loc {
		if part != "" && strings.Trim(part, "0123456789") == "" {
			b.WriteString("[" + part + "]")
		} else {
			b.WriteString("." + part)
		}
	}
	return b.String()
}
