package qualitygate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Language is a language code_syntax parses.
type Language string

// The languages, with real parsers: esbuild for JavaScript and
// TypeScript, tree-sitter's Python grammar, encoding/json for JSON.
const (
	JSON       Language = "json"
	Python     Language = "python"
	JavaScript Language = "javascript"
	TypeScript Language = "typescript"
)

// Languages are the languages in the tool manifest's order.
var Languages = []Language{JSON, Python, JavaScript, TypeScript}

// ErrLanguage is a language code_syntax does not parse.
var ErrLanguage = errors.New("unknown language")

var languageAliases = map[string]Language{"json": JSON, "python": Python, "py": Python, "python3": Python,
	"javascript": JavaScript, "js": JavaScript, "node": JavaScript, "typescript": TypeScript, "ts": TypeScript}

// ParseLanguage reads a language name (case-insensitive; js, ts, py and
// python3 are accepted for the others).
func ParseLanguage(s string) (Language, error) {
	if l, ok := languageAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return l, nil
	}
	return "", fmt.Errorf("%w %q (want one of %s)", ErrLanguage, s, languageList())
}

func languageList() string {
	names := make([]string, len(Languages))
	for i, l := range Languages {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// fenceInfos are the info strings of a fenced block of each language.
var fenceInfos = map[Language][]string{
	JSON:       {"json"},
	Python:     {"python", "py", "python3"},
	JavaScript: {"javascript", "js", "jsx", "mjs", "node"},
	TypeScript: {"typescript", "ts", "tsx"},
}

// checkSyntax parses the output's code in lang: its fenced blocks tagged
// with the language (or untagged) when it has any, else the whole output.
// Positions are the output's.
func checkSyntax(t *text, lang Language) []Issue {
	blocks := []fence{}
	for _, f := range fences(t.s) {
		if f.info == "" || contains(fenceInfos[lang], f.info) {
			blocks = append(blocks, f)
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, fence{content: t.s})
	}
	var out []Issue
	for _, b := range blocks {
		for _, e := range parse(lang, b.content) {
			i := Issue{CheckType: string(CodeSyntax), Severity: string(SeverityError), Message: e.msg}
			if e.off >= 0 {
				i.Line, i.Column = t.pos(b.at + e.off)
			}
			out = append(out, i)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// syntaxError is one parser error at a byte offset of the code (-1:
// unknown).
type syntaxError struct {
	msg string
	off int
}

func parse(lang Language, code string) []syntaxError {
	switch lang {
	case JSON:
		if msg, off, ok := jsonError(code); !ok {
			return []syntaxError{{"Invalid JSON: " + msg, off}}
		}
		return nil
	case Python:
		return parsePython(code)
	case TypeScript:
		return parseES(code, api.LoaderTS, "TypeScript")
	}
	return parseES(code, api.LoaderJS, "JavaScript")
}

// parseES parses JavaScript or TypeScript with esbuild (a transform that
// writes nothing): its errors carry a line (1-based) and a column (bytes,
// 0-based).
func parseES(code string, loader api.Loader, name string) []syntaxError {
	res := api.Transform(code, api.TransformOptions{Loader: loader, LogLevel: api.LogLevelSilent, Sourcefile: "output"})
	out := make([]syntaxError, 0, len(res.Errors))
	for _, m := range res.Errors {
		off := -1
		if l := m.Location; l != nil {
			off = lineOffset(code, l.Line) + l.Column
		}
		out = append(out, syntaxError{name + " syntax error: " + m.Text + ".", off})
	}
	return out
}

// lineOffset is the byte offset of 1-based line n of s.
func lineOffset(s string, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := strings.IndexByte(s[off:], '\n')
		if j < 0 {
			return len(s)
		}
		off += j + 1
	}
	return off
}
