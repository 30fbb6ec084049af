package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// walker checks decoded values against fields, building the normalised copy
// and collecting violations as it goes.
type walker struct {
	violations []Violation
	changed    bool // something was normalised
}

func (w *walker) violate(path, format string, a ...any) {
	w.violations = append(w.violations, Violation{Path: path, Message: fmt.Sprintf(format, a...)})
}

// record checks m against a closed list of fields. A null optional field
// counts as absent and is dropped.
func (w *walker) record(fields []Field, m map[string]any, path string) *object {
	out := &object{}
	for _, f := range fields {
		p := path + "." + f.Name
		v, present := m[f.Name]
		switch {
		case present && v != nil:
			out.keys = append(out.keys, f.Name)
			out.vals = append(out.vals, w.value(f, v, p))
		case f.Required:
			w.violate(p, "is required")
		case present: // null optional
			w.changed = true
		}
	}
	var extra []string
	for k := range m {
		if !declared(fields, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		w.violate(path+"."+k, "is not declared in the contract")
	}
	return out
}

func declared(fields []Field, name string) bool {
	for _, f := range fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// value checks one value against f and returns its normalised form.
func (w *walker) value(f Field, v any, path string) any {
	switch f.Type {
	case TypeString:
		return w.str(f, v, path)
	case TypeNumber, TypeInteger:
		return w.number(f, v, path)
	case TypeBoolean:
		return w.boolean(v, path)
	case TypeArray:
		arr, ok := v.([]any)
		if !ok {
			w.violate(path, "must be an array, got %s", describe(v))
			return v
		}
		if f.Items == nil {
			return arr
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = w.value(*f.Items, e, fmt.Sprintf("%s[%d]", path, i))
		}
		return out
	case TypeObject:
		m, ok := v.(map[string]any)
		if !ok {
			w.violate(path, "must be an object, got %s", describe(v))
			return v
		}
		if f.Properties == nil {
			return m
		}
		return w.record(f.Properties, m, path)
	}
	return v
}

// str checks a string; an enum value is trimmed and case-folded to the
// declared spelling.
func (w *walker) str(f Field, v any, path string) any {
	s, ok := v.(string)
	if !ok {
		w.violate(path, "must be a string, got %s", describe(v))
		return v
	}
	if f.Enum == nil {
		return s
	}
	e, ok := f.enumSpelling(s)
	if !ok {
		w.violate(path, "must be one of %s, got %q", quoteAll(f.Enum), s)
		return s
	}
	if e != s {
		w.changed = true
	}
	return e
}

// boolean checks a boolean; "true" and "false" strings are converted.
func (w *walker) boolean(v any, path string) any {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		switch strings.ToLower(strings.TrimSpace(b)) {
		case "true":
			w.changed = true
			return true
		case "false":
			w.changed = true
			return false
		}
	}
	w.violate(path, "must be a boolean, got %s", describe(v))
	return v
}

// object is a record with its keys in contract order, so findings read in
// the order the contract declares.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(key string) (any, bool) {
	for i, k := range o.keys {
		if k == key {
			return o.vals[i], true
		}
	}
	return nil, false
}

// MarshalJSON writes the record's keys in contract order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := encode(k)
		val, err := encode(o.vals[i])
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encode is json.Marshal without HTML escaping: findings are data, not markup.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// describe names a decoded value's JSON type for a message.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return fmt.Sprintf("an array of %d", len(v))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
