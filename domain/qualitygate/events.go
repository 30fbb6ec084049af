// Package qualitygate is QualityGate (spec C): deterministic validation of
// an agent's output against directives, a JSON Schema or code syntax, the
// optional LLM checks' verdicts merged in, and the record of each
// validation (a Validation aggregate, one stream per validation).
//
// The checks are pure: Check runs the pattern checks of a Request; the
// LLM checks are the caller's to run (through the LLM port) and are folded
// into a Result with AddJudgement. Nothing here does I/O.
package qualitygate

import (
	"time"

	"svc/eventstore/event"
)

// EventValidated is the event type of a recorded validation.
const EventValidated = "QualityGateValidated"

// DirectiveOutcome is one directive of a validation, as the record keeps
// it: its label (Directive.Label), type and whether the output obeyed it.
type DirectiveOutcome struct {
	Label  string `json:"label"`
	Type   string `json:"type"`
	Passed bool   `json:"passed"`
}

// CheckOutcome is one check type of a validation and whether the output
// passed it (no error issue of that type).
type CheckOutcome struct {
	CheckType string `json:"check_type"`
	Passed    bool   `json:"passed"`
}

// Validated is the data of QualityGateValidated. The output itself is not
// kept: its SHA-256 and length (characters) are, with the issues found.
type Validated struct {
	ValidationID string             `json:"validation_id"`
	OrgID        string             `json:"org_id"`
	KeyID        string             `json:"key_id,omitempty"`
	AgentID      string             `json:"agent_id,omitempty"`
	OutputSHA256 string             `json:"output_sha256"`
	OutputLength int                `json:"output_length"`
	Language     string             `json:"language,omitempty"`
	HasSchema    bool               `json:"has_schema,omitempty"`
	CheckTypes   []string           `json:"check_types"`
	Checks       []CheckOutcome     `json:"checks"`
	Directives   []DirectiveOutcome `json:"directives"`
	Issues       []Issue            `json:"issues"`
	Score        float64            `json:"score"`
	// CheckedVerdict is the checks' verdict; Verdict is the answer's
	// (pass when overridden).
	CheckedVerdict string `json:"checked_verdict"`
	Verdict        string `json:"verdict"`
	Override       bool   `json:"override,omitempty"`
	OverrideReason string `json:"override_reason,omitempty"`
	// LLM: an LLM check was asked for; LLMSkipped: the LLM port failed
	// and the LLM checks were skipped (charged the pattern price).
	LLM        bool      `json:"llm,omitempty"`
	LLMSkipped bool      `json:"llm_skipped,omitempty"`
	Credits    int64     `json:"credits"`
	At         time.Time `json:"at"`
}

// EventType implements event.Data.
func (Validated) EventType() string { return EventValidated }

// RegisterEvents registers the qualitygate event types.
func RegisterEvents(r *event.Registry) {
	event.Register[Validated](r)
}

var registry = event.NewRegistry(RegisterEvents)
