package guardrail

import (
	"encoding/json"

	"svc/eventstore/event"
)

// Event types of policy streams (guardrail-policy-<id>), policy name
// reservation streams (guardrail-policyname-<org>-<hash>) and decision
// streams (guardrail-checks-<batch id>: the decisions of one transaction).
const (
	EventPolicyCreated      = "GuardRailPolicyCreated"
	EventPolicyDeleted      = "GuardRailPolicyDeleted"
	EventPolicyNameReserved = "GuardRailPolicyNameReserved"
	EventPolicyNameReleased = "GuardRailPolicyNameReleased"
	EventCheckDecided       = "GuardRailCheckDecided"
)

// PolicyEventTypes are the types that change an organization's set of
// active policies: what a check's policies depend on.
var PolicyEventTypes = []string{EventPolicyCreated, EventPolicyDeleted}

// PolicyCreated is the data of GuardRailPolicyCreated: a policy as it was
// accepted (validated, and its tests passed).
type PolicyCreated struct {
	PolicyID    string     `json:"policy_id"`
	OrgID       string     `json:"org_id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Rules       []Rule     `json:"rules"`
	ActionTypes []string   `json:"action_types"`
	Priority    int        `json:"priority"`
	Effect      string     `json:"effect"`
	Tests       []TestCase `json:"tests"`
	// CreatedBy is the key that created it.
	CreatedBy string `json:"created_by,omitempty"`
}

// PolicyDeleted is the data of GuardRailPolicyDeleted: the policy no
// longer applies to checks (its stream and the decisions it made stay).
type PolicyDeleted struct {
	PolicyID string `json:"policy_id"`
	OrgID    string `json:"org_id"`
	// DeletedBy is the key that deleted it.
	DeletedBy string `json:"deleted_by,omitempty"`
}

// PolicyNameReleased is the data of GuardRailPolicyNameReleased: the
// deleted policy no longer holds the name.
type PolicyNameReleased struct {
	PolicyID string `json:"policy_id"`
	OrgID    string `json:"org_id"`
}

// PolicyNameReserved is the data of GuardRailPolicyNameReserved: the
// policy holds the name in its organization.
type PolicyNameReserved struct {
	PolicyID string `json:"policy_id"`
	OrgID    string `json:"org_id"`
}

// CheckDecided is the data of GuardRailCheckDecided: one decision, its
// audit record. PolicyID is "" when no policy triggered.
type CheckDecided struct {
	AuditID string `json:"audit_id"`
	OrgID   string `json:"org_id"`
	AgentID string `json:"agent_id"`
	KeyID   string `json:"key_id,omitempty"`
	// RequestID is the check's request: its events share their metadata
	// with the other checks of their transaction.
	RequestID      string          `json:"request_id,omitempty"`
	ActionType     string          `json:"action_type"`
	ProposedAction json.RawMessage `json:"proposed_action"`
	Decision       string          `json:"decision"`
	Reason         string          `json:"reason"`
	PolicyID       string          `json:"policy_id,omitempty"`
	PolicyName     string          `json:"policy_name,omitempty"`
	// Evaluated counts the policies that applied to the action's type.
	Evaluated int `json:"policies_evaluated"`
}

// EventType implements event.Data.
func (PolicyCreated) EventType() string { return EventPolicyCreated }

// EventType implements event.Data.
func (PolicyDeleted) EventType() string { return EventPolicyDeleted }

// EventType implements event.Data.
func (PolicyNameReserved) EventType() string { return EventPolicyNameReserved }

// EventType implements event.Data.
func (PolicyNameReleased) EventType() string { return EventPolicyNameReleased }

// EventType implements event.Data.
func (CheckDecided) EventType() string { return EventCheckDecided }

// RegisterEvents registers the guardrail event types.
func RegisterEvents(r *event.Registry) {
	event.Register[PolicyCreated](r)
	event.Register[PolicyDeleted](r)
	event.Register[PolicyNameReserved](r)
	event.Register[PolicyNameReleased](r)
	event.Register[CheckDecided](r)
}

var registry = event.NewRegistry(RegisterEvents)
