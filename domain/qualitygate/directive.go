package qualitygate

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DirectiveType is what a directive requires of the output.
type DirectiveType string

// The directive types: the tool manifest's eight, and format (the
// output is JSON), which the words "respond in JSON" ask for.
const (
	// MustInclude and MustNotInclude compare case-insensitively.
	MustInclude    DirectiveType = "must_include"
	MustNotInclude DirectiveType = "must_not_include"
	// MustMatch and MustNotMatch are regular expressions (RE2 syntax:
	// linear time, no backreferences).
	MustMatch    DirectiveType = "must_match"
	MustNotMatch DirectiveType = "must_not_match"
	// MustContain and MustNotContain compare exactly (case-sensitive).
	MustContain    DirectiveType = "must_contain"
	MustNotContain DirectiveType = "must_not_contain"
	// MinLength and MaxLength bound the output's length: a number of
	// characters, or "N words", "N characters", "N lines".
	MinLength DirectiveType = "min_length"
	MaxLength DirectiveType = "max_length"
	// Format requires the output to be in a format: "json".
	Format DirectiveType = "format"
	// Unrecognised is a directive in words the grammar does not read: it
	// is reported (info) and not checked.
	Unrecognised DirectiveType = "unrecognised"
)

// DirectiveTypes are the types a directive object may name.
var DirectiveTypes = []DirectiveType{MustInclude, MustNotInclude, MustMatch, MustNotMatch, MustContain, MustNotContain, MinLength, MaxLength, Format}

// Length units.
const (
	UnitCharacters = "characters"
	UnitWords      = "words"
	UnitLines      = "lines"
)

// MaxDirectiveValue is the longest directive value, in bytes;
// MaxDirectives the most directives one validation checks.
const (
	MaxDirectiveValue = 4096
	MaxDirectives     = 100
)

// Errors of a directive's definition (400 naming the directive).
var (
	ErrDirectiveType  = errors.New("unknown directive type")
	ErrDirectiveValue = errors.New("invalid directive value")
	ErrPattern        = errors.New("invalid regular expression")
)

// Directive is one requirement on the output.
type Directive struct {
	Type  DirectiveType
	Value string
	// Name is the caller's name for it (optional).
	Name string
	// Text is the words it was read from ("" for an object).
	Text string

	re    *regexp.Regexp
	fold  string // Value lower-cased (MustInclude, MustNotInclude)
	limit int    // MinLength, MaxLength
	unit  string // MinLength, MaxLength
}

// Label names d in issues and trends: its name, else its words, else
// "type: value"; at most 200 characters.
func (d Directive) Label() string {
	l := d.Name
	if l == "" {
		l = d.Text
	}
	if l == "" {
		l = string(d.Type) + ": " + d.Value
	}
	return clip(l, 200)
}

// Length is a length directive's bound and unit.
func (d Directive) Length() (int, string) { return d.limit, d.unit }

// NewDirective is the directive of type typ and value (an object of the
// tool manifest), checked: an unknown type, an empty value, a pattern
// that does not compile or a length that is not a count is an error.
func NewDirective(typ, value, name string) (Directive, error) {
	d := Directive{Type: DirectiveType(strings.TrimSpace(typ)), Value: value, Name: strings.TrimSpace(name)}
	if err := d.compile(); err != nil {
		return Directive{}, err
	}
	return d, nil
}

// compile checks d and prepares what its check needs.
func (d *Directive) compile() error {
	if len(d.Value) > MaxDirectiveValue {
		return fmt.Errorf("%w: %s value longer than %d bytes", ErrDirectiveValue, d.Type, MaxDirectiveValue)
	}
	switch d.Type {
	case MustInclude, MustNotInclude, MustContain, MustNotContain:
		if strings.TrimSpace(d.Value) == "" {
			return fmt.Errorf("%w: %s needs a non-empty value", ErrDirectiveValue, d.Type)
		}
		d.fold = strings.ToLower(d.Value)
	case MustMatch, MustNotMatch:
		re, err := regexp.Compile(d.Value)
		if err != nil {
			return fmt.Errorf("%w %q: %w", ErrPattern, d.Value, err)
		}
		d.re = re
	case MinLength, MaxLength:
		n, unit, ok := parseLength(d.Value)
		if !ok {
			return fmt.Errorf("%w: %s needs a count such as 500, \"500 characters\", \"200 words\" or \"40 lines\", not %q",
				ErrDirectiveValue, d.Type, d.Value)
		}
		d.limit, d.unit = n, unit
	case Format:
		if !strings.EqualFold(strings.TrimSpace(d.Value), "json") {
			return fmt.Errorf("%w: format supports \"json\", not %q", ErrDirectiveValue, d.Value)
		}
		d.Value = "json"
	case Unrecognised:
	default:
		names := make([]string, len(DirectiveTypes))
		for i, t := range DirectiveTypes {
			names[i] = string(t)
		}
		return fmt.Errorf("%w %q (want one of %s)", ErrDirectiveType, d.Type, strings.Join(names, ", "))
	}
	return nil
}

var lengthValue = regexp.MustCompile(`^(\d{1,9})\s*(characters?|chars?|words?|lines?)?$`)

// parseLength reads "500", "500 words", "500 chars", "40 lines".
func parseLength(v string) (int, string, bool) {
	m := lengthValue.FindStringSubmatch(strings.ToLower(strings.TrimSpace(v)))
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, "", false
	}
	switch {
	case strings.HasPrefix(m[2], "word"):
		return n, UnitWords, true
	case strings.HasPrefix(m[2], "line"):
		return n, UnitLines, true
	}
	return n, UnitCharacters, true
}

// clip is s cut to n characters, with an ellipsis when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
