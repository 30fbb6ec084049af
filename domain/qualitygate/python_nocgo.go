//go:build !cgo

package qualitygate

// parsePython without cgo: tree-sitter's Python grammar is C, compiled in
// only by a cgo build (the service's builds are; CGO_ENABLED=0 ones lack
// it), so the check answers that it cannot parse.
func parsePython(string) []syntaxError {
	return []syntaxError{{"Python cannot be parsed by this build of the service (built without cgo).", -1}}
}
