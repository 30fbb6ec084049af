// Package workflow is the workflow aggregate. A workflow starts as a plan
// (WorkflowPlanned); execute queues it (WorkflowQueued), a worker runs its
// steps one event each, an independent review scores the deliverable, and a
// terminal event (completed, completed_partial, failed, halted) ends it.
package workflow

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
)

// EventPlanned starts a workflow stream.
const EventPlanned = "WorkflowPlanned"

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

// Stream is the stream id of workflow id.
func Stream(id string) string { return "workflow-" + id }

// Planned is the data of WorkflowPlanned: everything execution needs later.
type Planned struct {
	WorkflowID        string          `json:"workflow_id"`
	OrgID             string          `json:"org_id"`
	WorkspaceID       string          `json:"workspace_id"`
	KeyID             string          `json:"key_id,omitempty"`
	TaskType          string          `json:"task_type"`
	ValueClass        string          `json:"value_class"`
	Description       string          `json:"description"`
	Title             string          `json:"title"`
	RigorLevel        string          `json:"rigor_level"`
	TotalSteps        int             `json:"total_steps"`
	Credits           int             `json:"credits"`
	Execution         string          `json:"execution"` // "direct" or "standard"
	ApprovalGates     []int           `json:"approval_gates,omitempty"`
	Plan              json.RawMessage `json:"plan"`        // the Plan resource as answered
	Preferences       json.RawMessage `json:"preferences"` // as given
	AdditionalContext string          `json:"additional_context,omitempty"`
	// ContextPersisted is false for plans made before plans kept their
	// context (spec A's legacy_plan_context_unavailable).
	ContextPersisted bool   `json:"context_persisted"`
	IntentGroup      string `json:"intent_group,omitempty"` // shared by the workflows of one multi-intent plan
	// Steps is the sequence as execution needs it (kind, model tier).
	Steps []PlannedStep `json:"steps,omitempty"`
	// ContextLess is true when the plan flagged steps that need material
	// nobody supplied (no connection, no additional context).
	ContextLess bool `json:"context_less,omitempty"`
	// Connections are the context servers the plan was given.
	Connections []Connection `json:"connections,omitempty"`
}

// Connection is a context server a plan names.
type Connection struct {
	Name      string `json:"name"`
	ServerURL string `json:"server_url"`
}
