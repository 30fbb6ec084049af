// Package workflow is the workflow aggregate. A workflow starts as a plan
// (WorkflowPlanned); execution, steps and review come with the execution
// work.
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
	StatusPlanned = "planned"
)

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
	IntentGroup       string          `json:"intent_group,omitempty"` // shared by the workflows of one multi-intent plan
}
