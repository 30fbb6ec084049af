package planning

import (
	"path"
	"regexp"
	"strings"
	"unicode"
)

// MaxReferencedFiles is the most file references taken from one
// additional_context; later ones are ignored.
const MaxReferencedFiles = 20

var (
	// versionPattern is a version number: 1.2, 1.2.3, v1.2.3-rc.1, 2.0.0+build.
	versionPattern = regexp.MustCompile(`^[vV]?\d+(\.\d+)+([-+][0-9A-Za-z.-]*)?$`)
	// lineSuffix is a line (and column) reference after a file: login.go:42:7, login.go#L42-L50.
	lineSuffix = regexp.MustCompile(`(:\d+(:\d+)?|#L\d+(-L?\d+)?)$`)
	// extPattern is an extension: a letter, then up to nine letters or digits.
	extPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,9}$`)
)

// knownExtensions are the extensions that make a bare name (one without a
// directory) a file; a name with a directory may have any extension.
var knownExtensions = setOf(`go mod sum py pyi ipynb js mjs cjs ts tsx jsx vue svelte java kt kts scala groovy gradle rb rs c h cc cpp cxx hpp hh cs fs
	php swift dart ex exs erl hs ml clj lua pl r jl sql graphql gql proto yaml yml json jsonc json5 toml ini cfg conf env
	properties xml html htm css scss sass less md mdx rst txt adoc tex csv tsv parquet tf tfvars hcl sh bash zsh fish ps1 bat cmd
	lock log pdf docx xlsx pptx odt png jpg jpeg gif svg webp ico dockerfile makefile mk cmake bzl nix sol wasm zip gz tgz tar`)

// knownNames are extensionless file names, matched exactly (case included).
var knownNames = setOf(`Makefile GNUmakefile Dockerfile Containerfile Jenkinsfile Procfile Gemfile Rakefile Vagrantfile Brewfile
	Podfile Justfile Tiltfile Caddyfile BUILD WORKSPACE LICENSE LICENCE COPYING NOTICE CODEOWNERS .env .gitignore .gitattributes
	.dockerignore .editorconfig .npmrc .nvmrc .prettierrc .eslintrc .babelrc .bashrc .zshrc .profile`)

// techNames look like files but name technologies (matched in lower case).
var techNames = setOf(`node.js vue.js next.js nuxt.js react.js express.js nest.js three.js d3.js chart.js ember.js angular.js
	backbone.js alpine.js solid.js socket.io asp.net ado.net vb.net dot.net`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// ReferencedFiles returns the files and paths named in text, normalised
// (quotes, brackets, trailing punctuation, a leading "./" and line
// references such as ":42" or "#L42" removed; doubled slashes collapsed),
// without duplicates, in order of first appearance, at most
// MaxReferencedFiles. A token is a file reference when
//   - its last segment has an extension (a letter, then up to nine letters
//     or digits): any extension when the token has a directory part
//     (docs/x.yaml), one of knownExtensions when it is a bare name
//     (README.md, main.go);
//   - it is a well-known extensionless name (Makefile, build/Dockerfile);
//   - it is a relative path without an extension that starts with "./" or
//     has at least three segments, each with a letter (./cmd/svc,
//     src/auth/login; not 2024/01/15).
//
// URLs, emails (anything with "@"), version numbers (1.2.3, v2.0.0-rc.1),
// domain names (example.com, github.com/org/repo), technology names
// (Node.js, ASP.NET), two-segment prose (input/output, and/or) and
// absolute routes without an extension (/api/v1/plan) are not files.
func ReferencedFiles(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(text, splitsTokens) {
		ref, ok := fileRef(tok)
		if !ok || seen[ref] {
			continue
		}
		seen[ref] = true
		out = append(out, ref)
		if len(out) == MaxReferencedFiles {
			break
		}
	}
	return out
}

// splitsTokens reports whether r separates tokens: anything but letters,
// digits and the characters paths, URLs and emails are made of.
func splitsTokens(r rune) bool {
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return false
	}
	return !strings.ContainsRune("._-/~+@:#%=?&", r)
}

// fileRef normalises one token and says whether it names a file.
func fileRef(tok string) (string, bool) {
	tok = strings.TrimRight(tok, ".:?!")
	if tok == "" || strings.Contains(tok, "://") || strings.Contains(tok, "@") ||
		strings.HasPrefix(strings.ToLower(tok), "www.") {
		return "", false
	}
	tok = lineSuffix.ReplaceAllString(tok, "")
	if strings.ContainsAny(tok, ":#%=?&") || versionPattern.MatchString(tok) {
		return "", false
	}
	explicit := strings.HasPrefix(tok, "./")
	for strings.HasPrefix(tok, "./") {
		tok = strings.TrimLeft(tok[2:], "/")
	}
	if tok == "" {
		return "", false
	}
	absolute := strings.HasPrefix(tok, "/")
	ref := path.Clean(tok)
	if ref == "." || ref == ".." || ref == "/" {
		return "", false
	}
	segments := strings.Split(strings.TrimPrefix(ref, "/"), "/")
	last := segments[len(segments)-1]
	if len(segments) == 1 && !absolute {
		return ref, bareFile(last)
	}
	// github.com/org/repo: a host, not a directory (.github/ is a directory).
	if first := segments[0]; !explicit && !absolute && strings.Contains(first[1:], ".") && first != ".." {
		return "", false
	}
	switch {
	case knownNames[last] || hasExtension(last):
		return ref, true
	case absolute:
		return "", false
	default:
		for _, seg := range segments {
			if strings.IndexFunc(seg, unicode.IsLetter) < 0 && seg != ".." {
				return "", false // 2024/01/15, 1/2/3: numbers, not folders
			}
		}
		return ref, explicit || len(segments) >= 3
	}
}

// bareFile says whether a name without a directory is a file.
func bareFile(name string) bool {
	if knownNames[name] || strings.HasPrefix(name, ".env.") {
		return true
	}
	if techNames[strings.ToLower(name)] || !hasExtension(name) {
		return false
	}
	return knownExtensions[strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])]
}

// hasExtension says whether name is "stem.ext" with a non-empty stem and an
// extension shaped like extPattern.
func hasExtension(name string) bool {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || strings.Trim(name[:i], ".") == "" {
		return false
	}
	return extPattern.MatchString(name[i+1:])
}
