package contract

import (
	"fmt"
	"strings"
)

// wireContract is the contract as sent; the schema check has already run, so
// build only checks what a JSON Schema cannot say.
type wireContract struct {
	TaskType  string      `json:"task_type"`
	Shape     Shape       `json:"shape"`
	Fields    []wireField `json:"fields"`
	Count     *Count      `json:"count"`
	Selection *Selection  `json:"selection"`
}

type wireField struct {
	Name        string      `json:"name"`
	Type        Type        `json:"type"`
	Required    *bool       `json:"required"`
	Enum        []string    `json:"enum"`
	Minimum     *float64    `json:"minimum"`
	Maximum     *float64    `json:"maximum"`
	Items       *wireField  `json:"items"`
	Properties  []wireField `json:"properties"`
	Description string      `json:"description"`
}

func (w wireContract) build() (Contract, error) {
	fields, err := buildFields(w.Fields, "fields")
	if err != nil {
		return Contract{}, err
	}
	c := Contract{TaskType: w.TaskType, Shape: w.Shape, Fields: fields, Count: w.Count, Selection: w.Selection}
	if n := c.Count; n != nil && n.Min != nil && n.Max != nil && *n.Min > *n.Max {
		return Contract{}, errAt("count", "min %d is above max %d", *n.Min, *n.Max)
	}
	if s := c.Selection; s != nil {
		if f, ok := c.field(s.ScoreField); !ok || !f.numeric() {
			return Contract{}, errAt("selection.scoreField", "%q is not a declared number or integer field", s.ScoreField)
		}
		if s.MinCount != nil && s.MaxCount != nil && *s.MinCount > *s.MaxCount {
			return Contract{}, errAt("selection", "minCount %d is above maxCount %d", *s.MinCount, *s.MaxCount)
		}
		if n := c.Count; n != nil && n.Min != nil && s.MaxCount != nil && *n.Min > *s.MaxCount {
			return Contract{}, errAt("selection.maxCount", "%d is below count.min %d", *s.MaxCount, *n.Min)
		}
		if n := c.Count; n != nil && n.Max != nil && s.MinCount != nil && *s.MinCount > *n.Max {
			return Contract{}, errAt("selection.minCount", "%d is above count.max %d", *s.MinCount, *n.Max)
		}
	}
	return c, nil
}

func buildFields(ws []wireField, path string) ([]Field, error) {
	if ws == nil {
		return nil, nil
	}
	out := make([]Field, 0, len(ws))
	seen := map[string]bool{}
	for i, w := range ws {
		p := fmt.Sprintf("%s[%d]", path, i)
		if seen[w.Name] {
			return nil, errAt(p+".name", "duplicate field %q", w.Name)
		}
		seen[w.Name] = true
		f, err := w.build(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// build converts one field (or element schema) and checks that each keyword
// fits its type, so a contract never says something Validate would ignore.
func (w wireField) build(path string) (Field, error) {
	f := Field{Name: w.Name, Type: w.Type, Required: w.Required == nil || *w.Required,
		Enum: w.Enum, Minimum: w.Minimum, Maximum: w.Maximum, Description: w.Description}
	if w.Enum != nil && f.Type != TypeString {
		return f, errAt(path+".enum", "applies to string fields only")
	}
	for i, e := range w.Enum {
		for _, prev := range w.Enum[:i] {
			if strings.EqualFold(strings.TrimSpace(e), strings.TrimSpace(prev)) {
				return f, errAt(fmt.Sprintf("%s.enum[%d]", path, i), "duplicate of %q ignoring case", prev)
			}
		}
	}
	if (w.Minimum != nil || w.Maximum != nil) && !f.numeric() {
		return f, errAt(path, "minimum and maximum apply to number and integer fields only")
	}
	if w.Minimum != nil && w.Maximum != nil && *w.Minimum > *w.Maximum {
		return f, errAt(path, "minimum is above maximum")
	}
	if w.Items != nil {
		if f.Type != TypeArray {
			return f, errAt(path+".items", "applies to array fields only")
		}
		items, err := w.Items.build(path + ".items")
		if err != nil {
			return f, err
		}
		f.Items = &items
	}
	if w.Properties != nil {
		if f.Type != TypeObject {
			return f, errAt(path+".properties", "applies to object fields only")
		}
		props, err := buildFields(w.Properties, path+".properties")
		if err != nil {
			return f, err
		}
		f.Properties = props
	}
	return f, nil
}
