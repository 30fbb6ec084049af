package guardrail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Decisions of a check.
const (
	Allow = "allow"
	Deny  = "deny"
)

// MaxAgentID is the longest agent id, in characters.
const MaxAgentID = 200

// Action is a proposed action: a JSON object with a type.
type Action struct {
	doc map[string]any
	typ string
	raw json.RawMessage
}

// ParseAction reads a proposed action at field (proposed_action, or a
// test's): a JSON object whose type is a non-empty string; any other
// member is allowed.
func ParseAction(raw json.RawMessage, field string) (Action, error) {
	if isNull(raw) {
		return Action{}, missing(field)
	}
	var doc map[string]any
	if bytes.TrimSpace(raw)[0] != '{' || json.Unmarshal(raw, &doc) != nil {
		return Action{}, invalid(field, "Field "+field+" must be an object with a type.")
	}
	t, present := doc["type"]
	if !present || t == nil {
		return Action{}, missing(field + ".type")
	}
	typ, ok := t.(string)
	if !ok || strings.TrimSpace(typ) == "" {
		return Action{}, invalid(field+".type", "Field "+field+".type must be a non-empty string.")
	}
	return Action{doc: doc, typ: typ, raw: json.RawMessage(compact(raw))}, nil
}

// Type is the action's type.
func (a Action) Type() string { return a.typ }

// Raw is the action as JSON (compacted).
func (a Action) Raw() json.RawMessage { return a.raw }

// CheckAgent checks a check's agent id: required, at most MaxAgentID
// characters.
func CheckAgent(agentID string) error {
	switch {
	case strings.TrimSpace(agentID) == "":
		return missing("agent_id")
	case utf8.RuneCountInString(agentID) > MaxAgentID:
		return invalid("agent_id", fmt.Sprintf("Field agent_id is longer than %d characters.", MaxAgentID))
	}
	return nil
}

// Decision is what a check decides.
type Decision struct {
	Decision string
	Reason   string
	// Policy is the policy that decided, nil when none triggered.
	Policy *Policy
	// Evaluated counts the policies that applied to the action's type.
	Evaluated int
}

// Evaluate decides action against policies (in Order): the first
// applicable policy that triggers decides (deny, or allow for an allow
// policy), and the reason names it and the rules that matched; when none
// triggers the action is allowed. It reads nothing else: the same
// policies and action always give the same decision.
func Evaluate(policies []*Policy, action Action) Decision {
	d := Decision{Decision: Allow, Reason: "No policy matched; allowed by default."}
	for _, p := range policies {
		if !p.Applies(action.typ) {
			continue
		}
		d.Evaluated++
		if d.Policy != nil {
			continue
		}
		ok, why := p.Triggers(action)
		if !ok {
			continue
		}
		d.Policy = p
		d.Decision = p.Spec.Effect
		d.Reason = fmt.Sprintf("Policy %s: rule %s matched", p.Spec.Name, why)
		if p.Spec.Effect == EffectAllow {
			d.Reason += " (an allow policy)"
		}
	}
	if d.Policy == nil && d.Evaluated == 0 {
		d.Reason = "No policy applies to actions of type " + action.typ + "; allowed by default."
	}
	return d
}

// Decided is the decision's audit event.
func (d Decision) Decided(auditID, orgID, agentID, keyID string, action Action) CheckDecided {
	e := CheckDecided{AuditID: auditID, OrgID: orgID, AgentID: agentID, KeyID: keyID, ActionType: action.typ,
		ProposedAction: action.raw, Decision: d.Decision, Reason: d.Reason, Evaluated: d.Evaluated}
	if d.Policy != nil {
		e.PolicyID, e.PolicyName = d.Policy.Spec.PolicyID, d.Policy.Spec.Name
	}
	return e
}

// TestCase is a test stored with a policy: the decision the policy alone
// must give a proposed action.
type TestCase struct {
	Name           string          `json:"name"`
	ProposedAction json.RawMessage `json:"proposed_action"`
	Expect         string          `json:"expect"`
}

type testInput struct {
	Name           *string         `json:"name"`
	ProposedAction json.RawMessage `json:"proposed_action"`
	Expect         *string         `json:"expect"`
}

func parseTests(raw json.RawMessage) ([]TestCase, error) {
	out := []TestCase{}
	if isNull(raw) {
		return out, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, invalid("tests", "Field tests must be an array of {name, proposed_action, expect}.")
	}
	if len(items) > MaxTests {
		return nil, invalid("tests", fmt.Sprintf("A policy holds at most %d tests.", MaxTests))
	}
	for i, item := range items {
		at := fmt.Sprintf("tests[%d]", i)
		var in testInput
		if bytes.TrimSpace(item)[0] != '{' || json.Unmarshal(item, &in) != nil {
			return nil, invalid(at, "Each test must be an object {name, proposed_action, expect}.")
		}
		if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
			return nil, missing(at + ".name")
		}
		action, err := ParseAction(in.ProposedAction, at+".proposed_action")
		if err != nil {
			return nil, err
		}
		if in.Expect == nil {
			return nil, missing(at + ".expect")
		}
		if *in.Expect != Allow && *in.Expect != Deny {
			return nil, invalid(at+".expect", "Field "+at+".expect must be allow or deny.")
		}
		out = append(out, TestCase{Name: strings.TrimSpace(*in.Name), ProposedAction: action.raw, Expect: *in.Expect})
	}
	return out, nil
}

// runTests runs the policy's tests against the policy alone: the first
// whose decision differs refuses the policy, naming the test.
func (p *Policy) runTests() error {
	for i, tc := range p.Spec.Tests {
		action, err := ParseAction(tc.ProposedAction, fmt.Sprintf("tests[%d].proposed_action", i))
		if err != nil {
			return err
		}
		got := Evaluate([]*Policy{p}, action)
		if got.Decision != tc.Expect {
			return invalid(fmt.Sprintf("tests[%d]", i), fmt.Sprintf("Test %q expected %s, the policy decided %s (%s).",
				tc.Name, tc.Expect, got.Decision, got.Reason))
		}
	}
	return nil
}
