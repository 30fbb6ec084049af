// Package guardrail is GuardRail's domain (spec C): policies of
// deterministic rules over the fields of a proposed agent action, the
// reservation of a policy's name in its organization, and the decision of
// a check (Evaluate), recorded as an event with its audit id.
package guardrail

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"svc/domain/uniquename"
	"svc/eventstore/event"
)

// Bounds of a policy.
const (
	MaxName        = 100
	MaxDescription = 1000
	MaxActionTypes = 50
	MaxActionType  = 100
	MaxTests       = 50
)

// Effects of a triggered policy: deny (the default) or allow.
const (
	EffectDeny  = "deny"
	EffectAllow = "allow"
)

// Domain errors.
var (
	// ErrInvalid refuses a policy or a check: an *InvalidError names the
	// field.
	ErrInvalid = errors.New("invalid guardrail input")
	// ErrNameTaken refuses a policy whose name another policy of the
	// organization holds.
	ErrNameTaken = errors.New("a policy of the organization has this name")
	// ErrPolicyNotFound is a policy id that names no policy of the
	// organization.
	ErrPolicyNotFound = errors.New("no policy of the organization has this id")
)

// InvalidError is ErrInvalid naming the field (a path such as
// rules[1].rules[0].operator) and saying what is wrong.
type InvalidError struct {
	Field   string
	Message string
	// Missing is set when the field is absent.
	Missing bool
}

func (e *InvalidError) Error() string { return e.Field + ": " + e.Message }

// Unwrap makes an InvalidError match ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// invalid is a refusal of field; the message names it.
func invalid(field, message string) *InvalidError {
	if !strings.Contains(message, field) {
		message = field + ": " + message
	}
	return &InvalidError{Field: field, Message: message}
}

func missing(field string) *InvalidError {
	return &InvalidError{Field: field, Message: "Field " + field + " is required.", Missing: true}
}

// PolicyStream is the stream id of policy id.
func PolicyStream(id string) string { return "guardrail-policy-" + id }

// NameKey is the reservation key of name in organization orgID: the
// organization and a hash of the normalized name.
func NameKey(orgID, name string) string { return uniquename.Key(orgID, name) }

// NameStream is the reservation stream of key (NameKey).
func NameStream(key string) string { return "guardrail-policyname-" + key }

// CheckStream is the stream of a batch of decisions: the checks of one
// organization decided in one transaction (each with its own audit id).
func CheckStream(batchID string) string { return "guardrail-checks-" + batchID }

// NormalizeName is the form of a name that must be unique in an
// organization: trimmed, inner white space one space, lowercased.
func NormalizeName(name string) string { return uniquename.Normalize(name) }

// Input is a policy as a caller sends it; Rules and Tests are raw JSON,
// checked here so that a refusal names the rule or test by its path.
type Input struct {
	Name        string
	Description string
	Rules       json.RawMessage
	ActionTypes []string
	Priority    int
	Effect      string
	Tests       json.RawMessage
}

// NewPolicy checks in and runs its tests: the policy's creation event
// (with id, orgID and the creating key) and the policy compiled.
func NewPolicy(id, orgID, keyID string, in Input) (PolicyCreated, *Policy, error) {
	spec, err := check(in, true)
	if err != nil {
		return PolicyCreated{}, nil, err
	}
	spec.PolicyID, spec.OrgID, spec.CreatedBy = id, orgID, keyID
	p, err := Compile(spec)
	if err != nil {
		return PolicyCreated{}, nil, err
	}
	if err := p.runTests(); err != nil {
		return PolicyCreated{}, nil, err
	}
	return spec, p, nil
}

// Draft checks a draft policy (a dry run's): as NewPolicy, but a missing
// name is "draft" and its tests are not run.
func Draft(in Input) (*Policy, error) {
	if strings.TrimSpace(in.Name) == "" {
		in.Name = "draft"
	}
	spec, err := check(in, false)
	if err != nil {
		return nil, err
	}
	return Compile(spec)
}

func check(in Input, withTests bool) (PolicyCreated, error) {
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		return PolicyCreated{}, missing("name")
	case utf8.RuneCountInString(name) > MaxName:
		return PolicyCreated{}, invalid("name", fmt.Sprintf("Field name is longer than %d characters.", MaxName))
	case utf8.RuneCountInString(in.Description) > MaxDescription:
		return PolicyCreated{}, invalid("description", fmt.Sprintf("Field description is longer than %d characters.", MaxDescription))
	}
	rules, _, err := ParseRules(in.Rules)
	if err != nil {
		return PolicyCreated{}, err
	}
	types, err := actionTypes(in.ActionTypes)
	if err != nil {
		return PolicyCreated{}, err
	}
	effect := in.Effect
	switch effect {
	case "":
		effect = EffectDeny
	case EffectDeny, EffectAllow:
	default:
		return PolicyCreated{}, invalid("effect", "Field effect must be deny or allow.")
	}
	tests := []TestCase{}
	if withTests {
		if tests, err = parseTests(in.Tests); err != nil {
			return PolicyCreated{}, err
		}
	}
	return PolicyCreated{Name: name, Description: in.Description, Rules: rules, ActionTypes: types,
		Priority: in.Priority, Effect: effect, Tests: tests}, nil
}

func actionTypes(in []string) ([]string, error) {
	if len(in) > MaxActionTypes {
		return nil, invalid("action_types", fmt.Sprintf("Field action_types lists at most %d types.", MaxActionTypes))
	}
	out := make([]string, 0, len(in))
	for i, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || utf8.RuneCountInString(t) > MaxActionType {
			return nil, invalid(fmt.Sprintf("action_types[%d]", i), fmt.Sprintf("Each action type is 1 to %d characters.", MaxActionType))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Policy is a compiled policy: what a check evaluates.
type Policy struct {
	Spec  PolicyCreated
	rules []*node
}

// Compile compiles a policy as its creation event holds it.
func Compile(spec PolicyCreated) (*Policy, error) {
	nodes, err := compile(spec.Rules)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", spec.PolicyID, err)
	}
	return &Policy{Spec: spec, rules: nodes}, nil
}

// Applies reports whether the policy applies to actions of type typ: its
// action types are empty or name typ.
func (p *Policy) Applies(typ string) bool {
	return len(p.Spec.ActionTypes) == 0 || slices.Contains(p.Spec.ActionTypes, typ)
}

// Triggers reports whether every top-level rule matches action (implicit
// and), and describes what matched.
func (p *Policy) Triggers(action Action) (bool, string) {
	parts := make([]string, 0, len(p.rules))
	for _, r := range p.rules {
		ok, why := r.match(action.doc)
		if !ok {
			return false, ""
		}
		parts = append(parts, why)
	}
	return true, strings.Join(parts, " and ")
}

// Order sorts policies as checks evaluate them: higher priority first,
// then by normalized name, then by id.
func Order(ps []*Policy) {
	slices.SortStableFunc(ps, func(a, b *Policy) int {
		if a.Spec.Priority != b.Spec.Priority {
			if a.Spec.Priority > b.Spec.Priority {
				return -1
			}
			return 1
		}
		if c := strings.Compare(NormalizeName(a.Spec.Name), NormalizeName(b.Spec.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Spec.PolicyID, b.Spec.PolicyID)
	})
}

// Name is a name's reservation in an organization: the policy holding it.
type Name struct {
	holder  string
	version int64
}

// NewName is a reservation with no events: the name is free.
func NewName() *Name { return &Name{version: event.NewStream} }

// Apply folds one event.
func (n *Name) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("guardrail policy name: %w", err)
	}
	switch d := d.(type) {
	case PolicyNameReserved:
		n.holder = d.PolicyID
	case PolicyNameReleased:
		if n.holder == d.PolicyID {
			n.holder = ""
		}
	}
	n.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (n *Name) Version() int64 { return n.version }

// Holder is the policy holding the name, "" when it is free.
func (n *Name) Holder() string { return n.holder }

// Reserve decides policyID's taking the name: ErrNameTaken when another
// policy holds it.
func (n *Name) Reserve(policyID, orgID string) ([]event.Data, error) {
	switch n.holder {
	case "":
		return []event.Data{PolicyNameReserved{PolicyID: policyID, OrgID: orgID}}, nil
	case policyID:
		return nil, nil
	}
	return nil, ErrNameTaken
}

// Release decides policyID's giving the name up (nothing when it does
// not hold it).
func (n *Name) Release(policyID, orgID string) []event.Data {
	if n.holder != policyID || policyID == "" {
		return nil
	}
	return []event.Data{PolicyNameReleased{PolicyID: policyID, OrgID: orgID}}
}

// Stored is a policy's stream folded: whether it was created, and deleted.
type Stored struct {
	spec    PolicyCreated
	created time.Time
	deleted bool
	version int64
}

// NewStored is a policy stream with no events.
func NewStored() *Stored { return &Stored{version: event.NewStream} }

// Apply folds one event.
func (s *Stored) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("guardrail policy: %w", err)
	}
	switch d := d.(type) {
	case PolicyCreated:
		s.spec, s.created = d, e.RecordedAt
	case PolicyDeleted:
		s.deleted = true
	}
	s.version = e.Version
	return nil
}

// Spec is the policy as it was created (zero before creation).
func (s *Stored) Spec() PolicyCreated { return s.spec }

// CreatedAt is when the policy was created.
func (s *Stored) CreatedAt() time.Time { return s.created }

// Delete decides the deletion of the policy by keyID of orgID:
// ErrPolicyNotFound for a policy that does not exist or is another
// organization's; nothing for one already deleted (a retry).
func (s *Stored) Delete(orgID, keyID string) ([]event.Data, error) {
	if s.version == event.NewStream || s.spec.OrgID != orgID {
		return nil, ErrPolicyNotFound
	}
	if s.deleted {
		return nil, nil
	}
	return []event.Data{PolicyDeleted{PolicyID: s.spec.PolicyID, OrgID: orgID, DeletedBy: keyID}}, nil
}

// Version is the version of the last event folded.
func (s *Stored) Version() int64 { return s.version }

// OrgID is the owning organization ("" before creation).
func (s *Stored) OrgID() string { return s.spec.OrgID }

// Create decides the creation of the policy spec on a new stream.
func (s *Stored) Create(spec PolicyCreated) (PolicyCreated, error) {
	if s.version != event.NewStream {
		return PolicyCreated{}, fmt.Errorf("guardrail: policy %s exists", spec.PolicyID)
	}
	return spec, nil
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}
