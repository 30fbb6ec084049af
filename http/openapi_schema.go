package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
)

// The OpenAPI document's schemas are reflected from the Go types the
// handlers decode and encode (docs/decisions.md 132): a struct is an
// object of its JSON fields, a named struct of a response a component
// ($ref). What reflection cannot see (enums, formats, which request fields
// are required, a json.RawMessage's shape) is said once per field in
// fieldNotes (openapi_fields.go), keyed by the Go type and JSON name.

// jsonSchema is a JSON Schema (2020-12, the dialect of OpenAPI 3.1).
type jsonSchema = map[string]any

// reflector turns Go types into JSON Schemas.
type reflector struct {
	// request: the types of request bodies. Nothing is required (the
	// route's entry lists what is), objects stay open (spec A surfaces unknown
	// fields as warnings), pointers mean optional, not null, and every
	// schema is written inline.
	request bool
	// components are the named response schemas, by component name.
	components map[string]jsonSchema
	names      map[reflect.Type]string
	// used records the field notes applied, for the test that every note
	// names a field that exists.
	used map[string]bool
}

func newReflector(components map[string]jsonSchema, used map[string]bool, request bool) *reflector {
	return &reflector{request: request, components: components, names: map[reflect.Type]string{}, used: used}
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	rawType     = reflect.TypeFor[json.RawMessage]()
	marshalerTy = reflect.TypeFor[json.Marshaler]()
)

// schemaOf is the schema of v's type.
func (r *reflector) schemaOf(v any) jsonSchema { return r.schema(reflect.TypeOf(v)) }

// schema is the schema of t: a $ref for a named response struct.
func (r *reflector) schema(t reflect.Type) jsonSchema {
	if s, ok := typeSchemas[t]; ok {
		return clone(s)
	}
	if enum, ok := typeEnums[t]; ok {
		return jsonSchema{"type": "string", "enum": enum}
	}
	switch {
	case t.Kind() == reflect.Pointer:
		return r.schema(t.Elem())
	case t == timeType:
		return jsonSchema{"type": "string", "format": "date-time"}
	case t == rawType:
		return jsonSchema{}
	case t.Implements(marshalerTy) || reflect.PointerTo(t).Implements(marshalerTy):
		panic(fmt.Sprintf("openapi: %s encodes itself (MarshalJSON): give its schema in typeSchemas", t))
	}
	switch t.Kind() {
	case reflect.Bool:
		return jsonSchema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return jsonSchema{"type": "integer"}
	case reflect.Int64:
		return jsonSchema{"type": "integer", "format": "int64"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jsonSchema{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return jsonSchema{"type": "number"}
	case reflect.String:
		return jsonSchema{"type": "string"}
	case reflect.Interface:
		return jsonSchema{}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return jsonSchema{"type": "string", "contentEncoding": "base64"}
		}
		return jsonSchema{"type": "array", "items": r.schema(t.Elem())}
	case reflect.Map:
		return jsonSchema{"type": "object", "additionalProperties": r.schema(t.Elem())}
	case reflect.Struct:
		if r.request || t.Name() == "" {
			return r.object(t)
		}
		return jsonSchema{"$ref": "#/components/schemas/" + r.component(t)}
	}
	panic(fmt.Sprintf("openapi: no schema for %s (%s)", t, t.Kind()))
}

// component registers t's schema under its component name, once.
func (r *reflector) component(t reflect.Type) string {
	if name, ok := r.names[t]; ok {
		return name
	}
	name := componentName(t)
	r.names[t] = name
	if _, taken := r.components[name]; taken {
		panic(fmt.Sprintf("openapi: two types are named %s: name one in componentNames", name))
	}
	r.components[name] = jsonSchema{} // a recursive type finds its own name
	r.components[name] = r.object(t)
	return name
}

var typeArgs = regexp.MustCompile(`[\w./]*\.`)

// componentName is t's name in components.schemas: componentNames' entry,
// else the type's name (its package's for another package's types,
// type arguments spelled out), capitalised.
func componentName(t reflect.Type) string {
	if name, ok := componentNames[t]; ok {
		return name
	}
	name := typeArgs.ReplaceAllString(t.Name(), "")
	if pkg := t.PkgPath(); pkg != "" && !strings.HasSuffix(pkg, "/http") {
		name = pkg[strings.LastIndex(pkg, "/")+1:] + "_" + name
	}
	var b strings.Builder
	upper := true
	for _, c := range name {
		switch {
		case c == '_' || c == '[' || c == ']' || c == ',':
			upper = true
		case upper:
			b.WriteRune(unicode.ToUpper(c))
			upper = false
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// field is one JSON field of a struct, as encoding/json sees it.
type field struct {
	name     string
	typ      reflect.Type
	optional bool // omitempty, omitzero, or in a nil-able embedded struct
	owner    reflect.Type
}

// fields lists t's JSON fields, embedded structs' promoted as encoding/json
// promotes them (a shallower field hides a deeper one of the same name).
func fields(t reflect.Type) []field {
	var out []field
	depth := map[string]int{}
	var walk func(t reflect.Type, level int, optional bool)
	walk = func(t reflect.Type, level int, optional bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				et, opt := ft, optional
				if et.Kind() == reflect.Pointer {
					et, opt = et.Elem(), true
				}
				if et.Kind() == reflect.Struct {
					walk(et, level+1, opt)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if d, seen := depth[name]; seen && d <= level {
				continue
			}
			depth[name] = level
			omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
			out = slicesDeleteName(out, name)
			out = append(out, field{name: name, typ: ft, optional: optional || omit, owner: t})
		}
	}
	walk(t, 0, false)
	return out
}

func slicesDeleteName(fs []field, name string) []field {
	out := fs[:0]
	for _, f := range fs {
		if f.name != name {
			out = append(out, f)
		}
	}
	return out
}

// object is the object schema of struct t.
func (r *reflector) object(t reflect.Type) jsonSchema {
	props := jsonSchema{}
	var required []string
	for _, f := range fields(t) {
		key := f.owner.String() + "." + f.name
		note, noted := fieldNotes[key]
		if noted {
			r.used[key] = true
		}
		var s jsonSchema
		switch {
		case note.schema != nil:
			s = clone(note.schema)
		case note.of != nil:
			s = r.schemaOf(note.of)
		default:
			s = r.schema(f.typ)
		}
		nullable := note.nullable
		if !r.request && !f.optional && !note.never && (f.typ.Kind() == reflect.Pointer || f.typ.Kind() == reflect.Map) {
			nullable = true
		}
		for k, v := range note.patch {
			s[k] = v
		}
		if note.desc != "" {
			s["description"] = note.desc
		}
		if nullable {
			s = orNull(s)
		}
		props[f.name] = s
		if !r.request && !f.optional {
			required = append(required, f.name)
		}
	}
	out := jsonSchema{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = required
	}
	if !r.request {
		out["additionalProperties"] = false
	}
	return out
}

// orNull is s that also allows null.
func orNull(s jsonSchema) jsonSchema {
	switch typ := s["type"].(type) {
	case string:
		s["type"] = []string{typ, "null"}
		if enum, ok := s["enum"].([]any); ok {
			s["enum"] = append(append([]any{}, enum...), nil)
		}
		return s
	case []string:
		return s
	}
	if len(s) == 0 {
		return s // any value, null included
	}
	return jsonSchema{"anyOf": []any{s, jsonSchema{"type": "null"}}}
}

// clone copies s deeply enough that a patch never changes a shared schema.
func clone(s jsonSchema) jsonSchema {
	out := make(jsonSchema, len(s))
	for k, v := range s {
		if m, ok := v.(jsonSchema); ok {
			v = clone(m)
		}
		out[k] = v
	}
	return out
}
