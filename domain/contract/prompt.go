package contract

import (
	"fmt"
	"strings"
)

// Prompt is a compact instruction describing the JSON the contract requires,
// to append to the model's prompt: shape and count, then one line per field
// with its type, enum, bounds, whether it is required and its description.
func (c Contract) Prompt() string {
	var b strings.Builder
	b.WriteString("Answer with JSON only, no prose and no code fences: ")
	if c.Shape == ShapeArray {
		b.WriteString(c.arrayIntro())
		b.WriteString(", each with exactly these keys and no others:\n")
	} else {
		b.WriteString("one JSON object with exactly these keys and no others:\n")
	}
	writeFields(&b, c.Fields, "")
	if s := c.Selection; s != nil && c.Shape == ShapeArray {
		fmt.Fprintf(&b, "The objects are ranked by %q, highest first", s.ScoreField)
		if s.MinScore != nil {
			fmt.Fprintf(&b, "; those below %s are dropped", fmtFloat(*s.MinScore))
		}
		if s.MaxCount != nil {
			fmt.Fprintf(&b, "; the best %d are kept", *s.MaxCount)
		}
		b.WriteString(".\n")
	}
	if anyOptional(c.Fields) {
		b.WriteString("Omit an optional key rather than inventing a value.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func anyOptional(fields []Field) bool {
	for _, f := range fields {
		if !f.Required || anyOptional(nestedFields(f)) {
			return true
		}
	}
	return false
}

// arrayIntro says how many objects to return. With a selection the model
// over-generates: up to twice maxCount candidates.
func (c Contract) arrayIntro() string {
	var lo, hi *int
	if c.Count != nil {
		lo, hi = c.Count.Min, c.Count.Max
	}
	noun := "objects"
	if s := c.Selection; s != nil {
		noun = "candidate objects"
		if s.MinCount != nil && (lo == nil || *s.MinCount > *lo) {
			lo = s.MinCount
		}
		if s.MaxCount != nil {
			twice := 2 * *s.MaxCount
			hi = &twice
		}
	}
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return fmt.Sprintf("a JSON array of exactly %d %s", *lo, noun)
	case lo != nil && hi != nil && *lo < *hi:
		return fmt.Sprintf("a JSON array of %d to %d %s", *lo, *hi, noun)
	case hi != nil:
		return fmt.Sprintf("a JSON array of at most %d %s", *hi, noun)
	case lo != nil:
		return fmt.Sprintf("a JSON array of at least %d %s", *lo, noun)
	}
	return "a JSON array of " + noun + ", one per input item"
}

func writeFields(b *strings.Builder, fields []Field, indent string) {
	for _, f := range fields {
		need := "required"
		if !f.Required {
			need = "optional"
		}
		fmt.Fprintf(b, "%s- %q (%s %s)", indent, f.Name, need, typeSpec(f))
		if f.Description != "" {
			b.WriteString(": " + f.Description)
		}
		b.WriteByte('\n')
		if nested := nestedFields(f); nested != nil {
			writeFields(b, nested, indent+"  ")
		}
	}
}

// typeSpec describes a field's type and constraints: `integer, 0 to 100`,
// `array of string, each one of "a", "b"`.
func typeSpec(f Field) string {
	parts := []string{string(f.Type)}
	switch {
	case f.Type == TypeArray && f.Items != nil:
		parts = []string{"array of " + typeSpec(*f.Items)}
		if f.Items.Description != "" {
			parts = append(parts, "each "+f.Items.Description)
		}
	case f.Type == TypeObject && f.Properties != nil:
		parts = []string{"object with exactly these keys"}
	case f.Enum != nil:
		parts = append(parts, "one of "+quoteAll(f.Enum))
	case f.Minimum != nil && f.Maximum != nil:
		parts = append(parts, fmtFloat(*f.Minimum)+" to "+fmtFloat(*f.Maximum))
	case f.Minimum != nil:
		parts = append(parts, "at least "+fmtFloat(*f.Minimum))
	case f.Maximum != nil:
		parts = append(parts, "at most "+fmtFloat(*f.Maximum))
	}
	return strings.Join(parts, ", ")
}

// nestedFields are the keys to list under a field: its own properties, or
// those of its array's object items.
func nestedFields(f Field) []Field {
	for f.Type == TypeArray && f.Items != nil {
		f = *f.Items
	}
	if f.Type == TypeObject {
		return f.Properties
	}
	return nil
}
