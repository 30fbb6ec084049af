package httpapi

import (
	"encoding/json"
	"time"
)

// GuardRail's request documents and response types (suite_guardrail.go).

// Request documents (the handlers decode raw JSON, so that a refused rule
// or test is named by its path).

// guardrailCheckDoc is the body of POST /api/guardrail/check.
type guardrailCheckDoc struct {
	AgentID        string               `json:"agent_id"`
	ProposedAction guardrailProposedDoc `json:"proposed_action"`
}

// guardrailProposedDoc is a proposed action: type is required, any other
// member is allowed (and may be named by a rule's field).
type guardrailProposedDoc struct {
	Type         string   `json:"type"`
	CostEstimate *float64 `json:"cost_estimate"`
	Description  *string  `json:"description"`
}

// guardrailPolicyDoc is the body of POST /api/guardrail/policies.
type guardrailPolicyDoc struct {
	Name        string              `json:"name"`
	Description *string             `json:"description"`
	Rules       []guardrailRuleDoc  `json:"rules"`
	ActionTypes []string            `json:"action_types"`
	Priority    *int                `json:"priority"`
	Effect      *string             `json:"effect"`
	Tests       []guardrailTestView `json:"tests"`
}

// guardrailRuleDoc is a rule as sent; nested rules have the same shape.
type guardrailRuleDoc struct {
	Operator string  `json:"operator"`
	Field    *string `json:"field"`
	Value    any     `json:"value"`
	Rules    []any   `json:"rules"`
}

// guardrailDryRunDoc is the body of POST /api/guardrail/policies/dry-run.
type guardrailDryRunDoc struct {
	Policy guardrailPolicyDoc `json:"policy"`
	Days   *int               `json:"days"`
}

// Responses.

type guardrailOverride struct {
	Available bool   `json:"available"`
	Requires  string `json:"requires"`
}

type guardrailDecisionResponse struct {
	suiteMeta
	Decision   string            `json:"decision"`
	Reason     string            `json:"reason"`
	PolicyID   *string           `json:"policy_id"`
	PolicyName *string           `json:"policy_name"`
	Override   guardrailOverride `json:"override"`
	AuditID    *string           `json:"audit_id"`
}

type guardrailRule struct {
	Operator string          `json:"operator"`
	Field    string          `json:"field,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	Rules    []guardrailRule `json:"rules,omitempty"`
}

type guardrailTestView struct {
	Name           string          `json:"name"`
	ProposedAction json.RawMessage `json:"proposed_action"`
	Expect         string          `json:"expect"`
}

type guardrailPolicyView struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Rules       []guardrailRule     `json:"rules"`
	ActionTypes []string            `json:"action_types"`
	Priority    int                 `json:"priority"`
	Effect      string              `json:"effect"`
	Tests       []guardrailTestView `json:"tests"`
	Active      bool                `json:"active"`
	CreatedAt   time.Time           `json:"created_at"`
}

type guardrailPolicyResponse struct {
	suiteMeta
	Policy guardrailPolicyView `json:"policy"`
}

type guardrailPoliciesResponse struct {
	suiteMeta
	Policies []guardrailPolicyView `json:"policies"`
	Total    int                   `json:"total"`
}

type guardrailDryRunExample struct {
	AuditID          string          `json:"audit_id"`
	AgentID          string          `json:"agent_id"`
	ProposedAction   json.RawMessage `json:"proposed_action"`
	RecordedDecision string          `json:"recorded_decision"`
	DraftDecision    string          `json:"draft_decision"`
	Reason           string          `json:"reason"`
	DecidedAt        time.Time       `json:"decided_at"`
}

type guardrailDryRunReport struct {
	suiteMeta
	Days           int                      `json:"days"`
	Since          time.Time                `json:"since"`
	RecordedChecks int                      `json:"recorded_checks"`
	Evaluated      int                      `json:"evaluated"`
	Applicable     int                      `json:"applicable"`
	WouldTrigger   int                      `json:"would_trigger"`
	WouldDeny      int                      `json:"would_deny"`
	NewlyDenied    int                      `json:"newly_denied"`
	Examples       []guardrailDryRunExample `json:"examples"`
}

type guardrailDecisionView struct {
	AuditID        string          `json:"audit_id"`
	AgentID        string          `json:"agent_id"`
	ActionType     string          `json:"action_type"`
	ProposedAction json.RawMessage `json:"proposed_action"`
	Decision       string          `json:"decision"`
	Reason         string          `json:"reason"`
	PolicyID       *string         `json:"policy_id"`
	PolicyName     *string         `json:"policy_name"`
	DecidedAt      time.Time       `json:"decided_at"`
}

type guardrailDecisionsResponse struct {
	suiteMeta
	Decisions []guardrailDecisionView `json:"decisions"`
	Total     int                     `json:"total"`
}
