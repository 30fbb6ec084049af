// Package workflow is the workflow aggregate. A workflow starts as a plan
// (WorkflowPlanned); execute queues it (WorkflowQueued), a worker runs its
// steps one event each, an independent review scores the deliverable, and a
// terminal event (completed, completed_partial, failed, halted) ends it.
package workflow

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
)

// Statuses of spec A reached so far.
const (
	StatusPlanned          = "planned"
	StatusQueued           = "queued"
	StatusExecuting        = "executing"
	StatusQualityReview    = "quality_review"
	StatusCompleted        = "completed"
	StatusCompletedPartial = "completed_partial"
	StatusFailed           = "failed"
	StatusHalted           = "halted"
)

// Active reports whether status counts toward the concurrent limit.
func Active(status string) bool {
	switch status {
	case StatusQueued, StatusExecuting, "step_executing", "resuming", StatusQualityReview,
		"interactive_waiting", "pending_approval", "pending_human_review":
		return true
	}
	return false
}

// RunnableStatuses are the statuses in which a worker still has to move a
// workflow: Next decides an action in each of them.
var RunnableStatuses = []string{StatusQueued, StatusExecuting, StatusQualityReview, StatusStepExecuting, StatusApproved, StatusResuming}

// Terminal reports whether nothing more happens to a workflow in status.
func Terminal(status string) bool {
	switch status {
	case StatusCompleted, StatusCompletedPartial, StatusFailed, StatusHalted, StatusCancelled, StatusTimedOut, StatusAborted:
		return true
	}
	return false
}

// ErrNotFound is a workflow id with no stream (or of another org).
var ErrNotFound = errors.New("workflow not found")

// NewID returns "wr_" and 32 hex characters.
func NewID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "wr_" + hex.EncodeToString(b)
}

// ValidID reports whether id has the shape of a workflow id.
func ValidID(id string) bool {
	if !strings.HasPrefix(id, "wr_") || len(id) != 35 {
		return false
	}
	_, err := hex.DecodeString(id[3:])
	return err == nil
}

// streamPrefix starts the stream id of every workflow.
const streamPrefix = "workflow-"

// Stream is the stream id of workflow id.
func Stream(id string) string { return streamPrefix + id }

// IDOf is the workflow id of a workflow stream id; ok is false for a
// stream of anything else.
func IDOf(stream string) (id string, ok bool) { return strings.CutPrefix(stream, streamPrefix) }

// Connection is a context server a plan names.
type Connection struct {
	Name      string `json:"name"`
	ServerURL string `json:"server_url"`
}

// ExternalContent is the content of a resource a plan read from a
// context server (a file its context names), scanned for prompt injection
// at plan time (flagged lines stripped): the run's prompts frame it as
// data from Server/URI, not instructions.
type ExternalContent struct {
	Server    string `json:"server"`
	URI       string `json:"uri"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty"`
	Stripped  bool   `json:"stripped,omitempty"`
}
