// Package workspace is the workspace aggregate. Every organization gets a
// default workspace when it is created.
package workspace

import (
	"regexp"
	"strings"
)

// Stream is the stream id of workspace id.
func Stream(id string) string { return "workspace-" + id }

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug derives a URL slug from a workspace name.
func Slug(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	if s == "" {
		return "workspace"
	}
	return s
}
