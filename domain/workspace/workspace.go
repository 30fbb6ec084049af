// Package workspace is the workspace aggregate. Every organization gets a
// default workspace when it is created.
package workspace

import (
	"regexp"
	"strings"
)

// EventCreated starts a workspace stream.
const EventCreated = "WorkspaceCreated"

// Created is the data of WorkspaceCreated.
type Created struct {
	WorkspaceID string `json:"workspace_id"`
	OrgID       string `json:"org_id"`
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	IsDefault   bool   `json:"is_default"`
}

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
