//go:build cgo

package qualitygate

import (
	"fmt"
	"strings"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

var pythonLanguage = sitter.NewLanguage(python.Language())

// parsePython parses Python with tree-sitter: every ERROR node (text the
// grammar could not place) and MISSING node (a token it had to assume) is
// an error, outermost first.
func parsePython(code string) []syntaxError {
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(pythonLanguage); err != nil {
		return []syntaxError{{"The Python parser could not start: " + err.Error(), -1}}
	}
	src := []byte(code)
	tree := p.Parse(src, nil)
	if tree == nil {
		return []syntaxError{{"The Python parser gave no tree.", -1}}
	}
	defer tree.Close()
	var out []syntaxError
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if len(out) > MaxIssuesPerCheck || !n.HasError() && !n.IsMissing() {
			return
		}
		switch {
		case n.IsMissing():
			out = append(out, syntaxError{fmt.Sprintf("Python syntax error: missing %q.", n.Kind()), int(n.StartByte())})
			return
		case n.IsError():
			snippet := strings.TrimSpace(n.Utf8Text(src))
			if i := strings.IndexByte(snippet, '\n'); i >= 0 {
				snippet = snippet[:i]
			}
			if utf8.RuneCountInString(snippet) > 40 {
				snippet = clip(snippet, 40)
			}
			out = append(out, syntaxError{fmt.Sprintf("Python syntax error: unexpected %q.", snippet), int(n.StartByte())})
			return
		}
		for i := uint(0); i < n.ChildCount(); i++ {
			if c := n.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(tree.RootNode())
	if len(out) == 0 && tree.RootNode().HasError() {
		out = append(out, syntaxError{"Python syntax error.", -1})
	}
	return out
}
