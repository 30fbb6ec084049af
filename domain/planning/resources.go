package planning

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Resource is one resource a context server listed (MCP resources/list).
type Resource struct {
	URI  string
	Name string
}

// MatchFile says whether the file reference ref (as ReferencedFiles
// returns it) names one of resources. A resource is a candidate through
// the path of its URI (what follows the scheme, e.g. "/repo/src/a.go" of
// "file:///repo/src/a.go", unescaped, without query or fragment) and
// through its name, both with a leading "./" removed. Paths match case
// sensitively. A reference with a directory part matches a candidate
// equal to it, ending in "/"+ref, or lying below it (a folder holding the
// resource); a bare name (README.md) matches a candidate with that base
// name.
func MatchFile(ref string, resources []Resource) bool {
	_, ok := FindFile(ref, resources)
	return ok
}

// FindFile is the first of resources that ref names (MatchFile).
func FindFile(ref string, resources []Resource) (Resource, bool) {
	ref = strings.TrimPrefix(ref, "/")
	if ref == "" {
		return Resource{}, false
	}
	for _, r := range resources {
		for _, c := range [2]string{uriPath(r.URI), cleanPath(r.Name)} {
			if c != "" && matchPath(ref, c) {
				return r, true
			}
		}
	}
	return Resource{}, false
}

func matchPath(ref, candidate string) bool {
	if !strings.Contains(ref, "/") {
		return path.Base(candidate) == ref
	}
	rel := strings.TrimPrefix(candidate, "/")
	return rel == ref || strings.HasSuffix(rel, "/"+ref) ||
		strings.HasPrefix(rel, ref+"/") || strings.Contains(rel, "/"+ref+"/")
}

// uriPath is the path part of a resource URI: what follows "scheme://"
// (or "scheme:"), without query and fragment, unescaped and cleaned; a
// URI without a scheme is taken as a path.
func uriPath(uri string) string {
	rest := uri
	if i := strings.Index(uri, "://"); i > 0 {
		rest = uri[i+3:]
	} else if u, err := url.Parse(uri); err == nil && u.Scheme != "" && u.Opaque != "" {
		rest = u.Opaque
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	if p, err := url.PathUnescape(rest); err == nil {
		rest = p
	}
	return cleanPath(rest)
}

// cleanPath removes a leading "./" and collapses doubled slashes; an empty
// or "." path is "".
func cleanPath(p string) string {
	p = strings.TrimSpace(p)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" {
		return ""
	}
	if p = path.Clean(p); p == "." || p == "/" {
		return ""
	}
	return p
}

// referencedFiles fills c.ReferencedFiles from the files named in
// req.AdditionalContext, checked against the resources of the connections
// that answered resources/list: a missing file is listed in not_found,
// gets a file_not_found warning and makes the context insufficient. When
// no connection listed its resources the files cannot be checked: they
// are in neither list and an info line names them.
func referencedFiles(plan *Plan, c *Context, req Request) {
	refs := ReferencedFiles(req.AdditionalContext)
	if len(refs) == 0 {
		return
	}
	var resources []Resource
	var servers []string
	listed := false
	for _, conn := range req.Connections {
		if conn.Listed {
			listed = true
			resources = append(resources, conn.Resources...)
			servers = append(servers, connectionName(conn))
		}
	}
	if !listed {
		plan.Info = append(plan.Info, "Files named in the context: "+strings.Join(refs, ", ")+
			"; no connected server listed its resources, so they were not checked.")
		return
	}
	for _, ref := range refs {
		if MatchFile(ref, resources) {
			c.ReferencedFiles.Found = append(c.ReferencedFiles.Found, ref)
			continue
		}
		c.ReferencedFiles.NotFound = append(c.ReferencedFiles.NotFound, ref)
		c.Sufficient = false
		plan.Warnings = append(plan.Warnings, Warning{Code: "file_not_found",
			Message: fmt.Sprintf("File %s named in context.additional_context is not among the resources of %s.",
				ref, strings.Join(servers, ", ")),
			Suggestion: "Check the path (it is matched case-sensitively) and the server's access, or paste the file's content in context.additional_context."})
	}
}

// connectionName is how the plan's context names a connection.
func connectionName(conn Connection) string {
	if conn.Label != "" {
		return conn.Label
	}
	return conn.ID
}
