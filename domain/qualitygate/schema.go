package qualitygate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrSchema is a schema that does not compile.
var ErrSchema = errors.New("invalid JSON Schema")

// errNoLoad refuses every $ref outside the schema: a schema never reads
// a file or the network.
var errNoLoad = errors.New("a schema may only refer to itself ($ref to #...)")

type noLoader struct{}

func (noLoader) Load(url string) (any, error) { return nil, fmt.Errorf("%w: %s", errNoLoad, url) }

var printer = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema (draft 2020-12 unless it names its
// $schema; formats are annotations, not asserted).
type Schema struct{ s *jsonschema.Schema }

// CompileSchema compiles the JSON Schema raw (a JSON object).
func CompileSchema(raw []byte) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: a schema is a JSON object", ErrSchema)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "urn:qualitygate:schema"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrSchema, strings.ReplaceAll(err.Error(), url, "schema"))
	}
	return &Schema{s: s}, nil
}

// fence is a fenced code block of the output: its info string and its
// content's byte offset.
type fence struct {
	info    string
	content string
	at      int
}

var fenceRe = regexp.MustCompile("(?ms)^[ \\t]*```[ \\t]*([A-Za-z0-9_+.#-]*)[^\\n]*\\n(.*?)^[ \\t]*```")

// fences are the output's fenced code blocks, in order.
func fences(s string) []fence {
	var out []fence
	for _, m := range fenceRe.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, fence{info: strings.ToLower(s[m[2]:m[3]]), content: s[m[4]:m[5]], at: m[4]})
	}
	return out
}

// jsonError reports whether s is one JSON value; if not, why and at
// which byte offset (-1 when unknown).
func jsonError(s string) (string, int, bool) {
	var v json.RawMessage
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		return "", 0, true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset) - 1
		if strings.TrimSpace(s) == "" {
			off = -1
		}
		return se.Error() + ".", max(off, 0), false
	}
	return err.Error() + ".", -1, false
}

// instance finds the JSON the schema applies to: the whole output, else
// its first ```json (or untagged) block that parses. at is its byte
// offset in the output; an issue says why there is none.
func instance(t *text) (any, string, int, *Issue) {
	trimmed := strings.TrimSpace(t.s)
	lead := strings.Index(t.s, trimmed)
	if _, _, ok := jsonError(trimmed); ok {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(trimmed))
		if err == nil {
			return v, trimmed, lead, nil
		}
	}
	for _, f := range fences(t.s) {
		if f.info != "json" && f.info != "" {
			continue
		}
		if _, _, ok := jsonError(f.content); ok {
			if v, err := jsonschema.UnmarshalJSON(strings.NewReader(f.content)); err == nil {
				return v, f.content, f.at, nil
			}
		}
	}
	msg, off, _ := jsonError(trimmed)
	i := Issue{CheckType: string(SchemaValidation), Severity: string(SeverityError),
		Message: "The output is not JSON (nor holds a ```json block that parses): " + msg}
	if off >= 0 {
		i.Line, i.Column = t.pos(lead + off)
	}
	return nil, "", 0, &i
}

// check validates the output's JSON against s.
func (s *Schema) check(t *text) []Issue {
	v, src, at, bad := instance(t)
	if bad != nil {
		return []Issue{*bad}
	}
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{CheckType: string(SchemaValidation), Severity: string(SeverityError), Message: err.Error()}}
	}
	offsets := pointerOffsets(src)
	var out []Issue
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ptr := pointer(e.InstanceLocation)
		i := Issue{CheckType: string(SchemaValidation), Severity: string(SeverityError), Path: ptr,
			Message: "At " + displayPointer(ptr) + ": " + e.ErrorKind.LocalizedString(printer) + "."}
		if off, ok := offsets[ptr]; ok {
			i.Line, i.Column = t.pos(at + off)
		}
		out = append(out, i)
	}
	walk(ve)
	return out
}

// pointer is the JSON pointer of tokens ("" for the root).
func pointer(tokens []string) string {
	var b strings.Builder
	r := strings.NewReplacer("~", "~0", "/", "~1")
	for _, t := range tokens {
		b.WriteString("/" + r.Replace(t))
	}
	return b.String()
}

func displayPointer(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// pointerOffsets maps the JSON pointer of every value of src (valid
// JSON) to its byte offset.
func pointerOffsets(src string) map[string]int {
	p := &ptrScanner{s: src, out: map[string]int{}}
	p.value("")
	return p.out
}

type ptrScanner struct {
	s   string
	i   int
	out map[string]int
}

func (p *ptrScanner) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

var ptrEscape = strings.NewReplacer("~", "~0", "/", "~1")

func (p *ptrScanner) value(ptr string) {
	p.ws()
	if p.i >= len(p.s) {
		return
	}
	p.out[ptr] = p.i
	switch p.s[p.i] {
	case '{':
		p.i++
		for p.ws(); p.i < len(p.s) && p.s[p.i] != '}'; p.ws() {
			key := p.str()
			p.ws()
			p.i++ // :
			p.value(ptr + "/" + ptrEscape.Replace(key))
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
			}
		}
		p.i++
	case '[':
		p.i++
		for n := 0; ; n++ {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] == ']' {
				break
			}
			p.value(ptr + "/" + strconv.Itoa(n))
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
			}
		}
		p.i++
	case '"':
		p.str()
	default:
		for p.i < len(p.s) && strings.IndexByte(",]} \t\r\n", p.s[p.i]) < 0 {
			p.i++
		}
	}
}

// str reads the string at p.i and returns its value.
func (p *ptrScanner) str() string {
	start := p.i
	p.i++
	for p.i < len(p.s) && p.s[p.i] != '"' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var v string
	if err := json.Unmarshal([]byte(p.s[start:min(p.i, len(p.s))]), &v); err != nil {
		return ""
	}
	return v
}
