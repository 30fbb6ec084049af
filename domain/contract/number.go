package contract

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// maxExactInt is the largest integer a float64 holds exactly (2^53).
const maxExactInt = 1 << 53

// number checks a number or integer field. A numeric string becomes a
// number, and an integral float ("3.0", "1e2") an integer.
func (w *walker) number(f Field, v any, path string) any {
	n, ok := v.(json.Number)
	if s, isString := v.(string); isString {
		if t := strings.TrimSpace(s); isNumberLiteral(t) {
			n, ok = json.Number(t), true
			w.changed = true
		}
	}
	if !ok {
		w.violate(path, "must be %s, got %s", article(f.Type), describe(v))
		return v
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(x, 0) {
		w.violate(path, "is out of range, got %s", n)
		return n
	}
	if f.Type == TypeInteger {
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			if x != math.Trunc(x) {
				w.violate(path, "must be an integer, got %s", n)
				return n
			}
			if math.Abs(x) > maxExactInt {
				w.violate(path, "is out of range for an integer, got %s", n)
				return n
			}
			n = json.Number(strconv.FormatInt(int64(x), 10))
			w.changed = true
		}
	}
	if f.Minimum != nil && x < *f.Minimum {
		w.violate(path, "must be at least %s, got %s", fmtFloat(*f.Minimum), n)
	}
	if f.Maximum != nil && x > *f.Maximum {
		w.violate(path, "must be at most %s, got %s", fmtFloat(*f.Maximum), n)
	}
	return n
}

// isNumberLiteral reports whether s is exactly one JSON number.
func isNumberLiteral(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}

// score reads a record's numeric value for selection; ok is false when the
// key is missing.
func score(o *object, key string) (float64, bool) {
	v, ok := o.get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := n.Float64()
	return x, err == nil
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func article(t Type) string {
	if t == TypeInteger {
		return "an integer"
	}
	return "a number"
}
