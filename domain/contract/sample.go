package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Sample returns an answer that conforms to c as given (Validate says
// Valid): every declared key filled, enums from their spellings, numbers
// within their bounds (and at or above the selection's minScore), as many
// records as count and selection demand. String values cycle through words
// ("<key> <n>" when words is empty). It is what a writer without a model
// answers; a contract no value can satisfy (an integer field bounded
// between two adjacent fractions) yields a sample that does not validate.
func (c Contract) Sample(words ...string) json.RawMessage {
	s := sampler{c: c, words: words}
	var doc any
	if c.Shape != ShapeArray {
		doc = s.record(c.Fields, 0, true)
	} else {
		recs := make([]any, c.sampleCount())
		for i := range recs {
			recs[i] = s.record(c.Fields, i, true)
		}
		doc = recs
	}
	raw, err := encode(doc)
	if err != nil { // cannot happen: the sample holds strings, numbers, booleans and records
		return json.RawMessage("null")
	}
	return raw
}

// sampleCount is how many records an array sample holds: the least the
// count and the selection require, at least one.
func (c Contract) sampleCount() int {
	n := 1
	if c.Count != nil && c.Count.Min != nil {
		n = max(n, *c.Count.Min)
	}
	if s := c.Selection; s != nil && s.MinCount != nil {
		n = max(n, *s.MinCount)
	}
	if c.Count != nil && c.Count.Max != nil {
		n = min(n, *c.Count.Max)
	}
	if s := c.Selection; s != nil && s.MaxCount != nil {
		n = min(n, *s.MaxCount)
	}
	return n
}

// sampler fills the records of a sample.
type sampler struct {
	c     Contract
	words []string
	used  int // strings written so far, to cycle through words
}

// record fills every field of a record; top marks the contract's own
// fields (the selection's score field is one of them).
func (s *sampler) record(fields []Field, i int, top bool) *object {
	o := &object{}
	for _, f := range fields {
		o.keys = append(o.keys, f.Name)
		o.vals = append(o.vals, s.value(f, i, top))
	}
	return o
}

func (s *sampler) value(f Field, i int, top bool) any {
	switch f.Type {
	case TypeString:
		if len(f.Enum) > 0 {
			return f.Enum[i%len(f.Enum)]
		}
		return s.text(f.Name, i)
	case TypeNumber, TypeInteger:
		lo := f.Minimum
		if sel := s.c.Selection; top && sel != nil && sel.ScoreField == f.Name && sel.MinScore != nil && (lo == nil || *sel.MinScore > *lo) {
			lo = sel.MinScore
		}
		return sampleNumber(f.Type == TypeInteger, lo, f.Maximum)
	case TypeBoolean:
		return true
	case TypeArray:
		if f.Items == nil {
			return []any{}
		}
		return []any{s.value(*f.Items, i, false)}
	case TypeObject:
		if f.Properties == nil {
			return map[string]any{}
		}
		return s.record(f.Properties, i, false)
	}
	return nil
}

// text is the next string value.
func (s *sampler) text(name string, i int) string {
	if len(s.words) == 0 {
		if name == "" {
			name = "item"
		}
		return fmt.Sprintf("%s %d", name, i+1)
	}
	w := s.words[s.used%len(s.words)]
	s.used++
	return w
}

// sampleNumber is 1 moved into [lo, hi], whole for an integer.
func sampleNumber(integer bool, lo, hi *float64) json.Number {
	x := 1.0
	if hi != nil && x > *hi {
		x = *hi
		if integer {
			x = math.Floor(x)
		}
	}
	if lo != nil && x < *lo {
		x = *lo
		if integer {
			x = math.Ceil(x)
		}
	}
	if integer {
		return json.Number(strconv.FormatInt(int64(x), 10))
	}
	return json.Number(fmtFloat(x))
}
