package suite

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"svc/domain/guardrail"
	domain "svc/domain/suite"
	"svc/eventstore/event"
)

// GuardRailCheck asks whether an agent may take a proposed action.
type GuardRailCheck struct {
	Caller         Caller
	AgentID        string
	ProposedAction json.RawMessage
}

// GuardRailDecision is a check's decision.
type GuardRailDecision struct {
	Decision string
	Reason   string
	// PolicyID and PolicyName name the policy that decided ("" for none).
	PolicyID, PolicyName string
	// AuditID is the id of the decision's event ("" when it failed open:
	// nothing was recorded).
	AuditID string
	// OverrideAvailable and OverrideRequires: a denial can be overridden
	// with an admin's approval.
	OverrideAvailable bool
	OverrideRequires  string
	// Fallback says how the check failed open ("" when it did not).
	Fallback string
	Receipt  Receipt
}

// Override requirements.
const (
	overrideDeny  = "admin approval"
	overrideAllow = "none"
)

// Check decides a proposed action against the organization's policies (1
// credit): the decision is an event (its id the audit id) appended in the
// same transaction as the charge, which it may share with the
// organization's concurrent checks (Meter.RunGrouped). When the database
// is unavailable it fails open: evaluated against the cached policies
// (allowed when there are none), neither charged nor recorded, Fallback
// saying so.
func (g *GuardRail) Check(ctx context.Context, cmd GuardRailCheck) (GuardRailDecision, error) {
	return g.check.Handle(ctx, cmd)
}

func (g *GuardRail) doCheck(ctx context.Context, cmd GuardRailCheck) (GuardRailDecision, error) {
	if err := guardrail.CheckAgent(cmd.AgentID); err != nil {
		return GuardRailDecision{}, err
	}
	action, err := guardrail.ParseAction(cmd.ProposedAction, "proposed_action")
	if err != nil {
		return GuardRailDecision{}, err
	}
	c := cmd.Caller
	if c.AgentID == "" { // the charge names the checking agent (decision 213)
		c.AgentID = cmd.AgentID
	}
	var out GuardRailDecision
	rc, err := g.s.Meter.RunGrouped(ctx, c, domain.GuardRailCheck, guardrail.CheckStream, func() ([]event.Data, error) {
		policies, err := g.cache.current(ctx, g.s.ports.Queries, c.OrgID)
		if err != nil {
			return nil, err
		}
		d := guardrail.Evaluate(policies, action)
		out = decisionOf(d)
		out.AuditID = uuid.NewString()
		decided := d.Decided(out.AuditID, c.OrgID, cmd.AgentID, c.KeyID, action)
		decided.RequestID = event.MetadataFrom(ctx).RequestID
		return []event.Data{decided}, nil
	})
	// no Meter.Afford: the charge decides under the lock, and a check
	// refused there has done no work but the evaluation (decision 216)
	switch {
	case errors.Is(err, ErrInsufficientCredits):
		return GuardRailDecision{}, err
	case err != nil:
		return g.failOpen(ctx, c, action, err)
	}
	out.Receipt = rc
	g.cache.noteBalance(c.OrgID, rc.CreditsRemaining)
	return out, nil
}

func decisionOf(d guardrail.Decision) GuardRailDecision {
	out := GuardRailDecision{Decision: d.Decision, Reason: d.Reason, OverrideRequires: overrideAllow}
	if d.Policy != nil {
		out.PolicyID, out.PolicyName = d.Policy.Spec.PolicyID, d.Policy.Spec.Name
	}
	if d.Decision == guardrail.Deny {
		out.OverrideAvailable, out.OverrideRequires = true, overrideDeny
	}
	return out
}

// failOpen decides action without the database: against the cached
// policies of the organization, or allowed when there are none. A caller
// that left gets its own error, not a decision.
func (g *GuardRail) failOpen(ctx context.Context, c Caller, action guardrail.Action, cause error) (GuardRailDecision, error) {
	if ctx.Err() != nil {
		return GuardRailDecision{}, cause
	}
	g.s.log.WarnContext(ctx, "guardrail check failing open: database unavailable", "org_id", c.OrgID, "error", cause.Error())
	e := g.cache.cached(c.OrgID)
	if e == nil {
		out := decisionOf(guardrail.Evaluate(nil, action))
		out.Reason = "Allowed: the database is unavailable and no copy of the organization's policies is cached (fail open)."
		out.Fallback = "fail_open: database unavailable and no cached policies; allowed; not charged, not recorded"
		return out, nil
	}
	out := decisionOf(guardrail.Evaluate(e.policies, action))
	out.Fallback = "fail_open: database unavailable; evaluated against cached policies from " +
		e.at.Format(time.RFC3339) + "; not charged, not recorded"
	out.Receipt = Receipt{CreditsRemaining: e.balance}
	return out, nil
}
