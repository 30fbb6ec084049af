package workspace

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"svc/domain/org"
	"svc/eventstore/event"
)

// EventLLMPolicySet is the workspace's llm policy set, changed or removed.
const EventLLMPolicySet = "WorkspaceLLMPolicySet"

// MaxAllowedModels bounds an llm policy's allowed_models.
const MaxAllowedModels = 50

// LLMPolicySet is the data of WorkspaceLLMPolicySet: the models plans and
// runs of the workspace may use (nil: the policy was removed, any model).
type LLMPolicySet struct {
	WorkspaceID   string   `json:"workspace_id"`
	OrgID         string   `json:"org_id"`
	AllowedModels []string `json:"allowed_models"`
}

// EventType implements event.Data.
func (LLMPolicySet) EventType() string { return EventLLMPolicySet }

// LLM policy errors.
var (
	// ErrPolicyTier is a policy set below the Team tier; it matches
	// ErrTierRequired.
	ErrPolicyTier = fmt.Errorf("llm policies need the team or enterprise tier: %w", ErrTierRequired)
	// ErrNoModels is an empty allowed_models (null removes the policy).
	ErrNoModels = errors.New("allowed_models must name at least one model")
	// ErrTooManyModels is an allowed_models of more than MaxAllowedModels
	// distinct names.
	ErrTooManyModels = fmt.Errorf("allowed_models names more than %d models", MaxAllowedModels)
)

// UnknownModelsError names the models of an allowed_models list the
// service cannot route to, and those it can.
type UnknownModelsError struct {
	Unknown []string
	Known   []string
}

func (e *UnknownModelsError) Error() string {
	return fmt.Sprintf("unknown models %s (known: %s)", strings.Join(e.Unknown, ", "), strings.Join(e.Known, ", "))
}

// PoliciesAllowed reports whether tier has llm policies: Team and
// Enterprise. A policy set on such a tier is neither enforced nor shown
// after a downgrade, and applies again after an upgrade.
func PoliciesAllowed(t org.Tier) bool { return t == org.Team || t == org.Enterprise }

// LLMPolicy is the workspace's allowed models, nil without a policy
// (whether the tier enforces it is PoliciesAllowed's).
func (w *Workspace) LLMPolicy() []string { return slices.Clone(w.llmPolicy) }

// SetLLMPolicy decides the workspace's llm policy on an organization of
// tier: allowed nil removes it; otherwise each name must be one of known
// (compared without regard to case or surrounding space, stored as known
// spells it), duplicates are dropped (first place kept) and at most
// MaxAllowedModels may remain. Setting what is set already, or removing
// no policy, decides nothing.
func (w *Workspace) SetLLMPolicy(tier org.Tier, allowed, known []string) ([]event.Data, error) {
	if !PoliciesAllowed(tier) {
		return nil, ErrPolicyTier
	}
	if w.archived {
		return nil, ErrArchived
	}
	var models []string
	if allowed != nil {
		var err error
		if models, err = ValidAllowedModels(allowed, known); err != nil {
			return nil, err
		}
	}
	if (models == nil) == (w.llmPolicy == nil) && slices.Equal(models, w.llmPolicy) {
		return nil, nil
	}
	return []event.Data{LLMPolicySet{WorkspaceID: w.id, OrgID: w.orgID, AllowedModels: models}}, nil
}

// ValidAllowedModels checks a non-nil allowed_models list against the known
// models and returns it in their spelling, deduplicated (SetLLMPolicy).
func ValidAllowedModels(allowed, known []string) ([]string, error) {
	if len(allowed) == 0 {
		return nil, ErrNoModels
	}
	var out, unknown []string
	seen := map[string]bool{}
	for _, a := range allowed {
		key := strings.ToLower(strings.TrimSpace(a))
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(seen) > MaxAllowedModels {
			return nil, ErrTooManyModels
		}
		i := slices.IndexFunc(known, func(k string) bool { return strings.EqualFold(k, strings.TrimSpace(a)) })
		if key == "" || i < 0 {
			unknown = append(unknown, a)
			continue
		}
		out = append(out, known[i])
	}
	if len(unknown) > 0 {
		return nil, &UnknownModelsError{Unknown: unknown, Known: slices.Clone(known)}
	}
	return out, nil
}
