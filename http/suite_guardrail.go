package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"svc/commands/suite"
	"svc/domain/apikey"
	"svc/domain/guardrail"
)

// guardrailOps are the guardrail operations of the suite (spec C).
func (s *Server) guardrailOps() []suiteOp {
	return []suiteOp{
		{action: "guardrail.check", method: http.MethodPost, path: "/api/guardrail/check", status: http.StatusOK,
			run: s.guardrailCheck, reads: guardrail.PolicyEventTypes, // the policies read model
			doc: apiOp{tag: tagGuardRail, summary: "Check a proposed action against the organization's policies",
				note: "1 credit. Deterministic, no LLM: the highest-priority policy whose rules all match decides (deny, or allow for an allow policy); none matching allows. " +
					"Each decision is recorded as an event (audit_id). When the database is unavailable the check fails open: evaluated against the cached policies (allowed when none), not charged, not recorded, audit_id null and fallback_behavior saying so.",
				body: guardrailCheckDoc{}, required: []string{"agent_id", "proposed_action"},
				replies: []reply{ok(http.StatusOK, "The decision.", guardrailDecisionResponse{})},
				errs:    []codes{errs(http.StatusPaymentRequired, "insufficient_credits")}}},
		{action: "guardrail.create_policy", method: http.MethodPost, path: "/api/guardrail/policies", status: http.StatusCreated,
			floor: apikey.Admin, run: s.guardrailCreatePolicy,
			doc: apiOp{tag: tagGuardRail, summary: "Create a policy",
				note: "Free. Rules use eq, starts_with, contains, gt, lt over dot paths of the proposed action (target.url, tags.0) and and, or, not over nested rules; all top-level rules must match. " +
					"A refused rule is 400 naming its path (rules[1].rules[0].operator). The policy's tests run first: a failing one refuses it. Names are unique per organization, whatever their case (409).",
				body: guardrailPolicyDoc{}, required: []string{"name", "rules"},
				replies: []reply{ok(http.StatusCreated, "The policy, active from the next check on.", guardrailPolicyResponse{})},
				errs:    []codes{errs(http.StatusConflict, "policy_name_conflict")}}},
		{action: "guardrail.list_policies", method: http.MethodGet, path: "/api/guardrail/policies", status: http.StatusOK,
			run: s.guardrailListPolicies,
			doc: apiOp{tag: tagGuardRail, summary: "List the active policies",
				note:    "Free. Ordered as checks evaluate them: higher priority first, then by name.",
				replies: []reply{ok(http.StatusOK, "The active policies.", guardrailPoliciesResponse{})}}},
		{action: "guardrail.delete_policy", method: http.MethodDelete, path: "/api/guardrail/policies/{policy_id}", status: http.StatusOK,
			floor: apikey.Admin, run: s.guardrailDeletePolicy,
			doc: apiOp{tag: tagGuardRail, summary: "Delete a policy",
				note: "Free; beyond spec C. From the next check on, on every instance, the policy no longer applies, and its name may be given to a new policy; " +
					"the decisions it made stay in the audit log. Deleting it again answers the same (a retry); an unknown id, or another organization's policy, is 404.",
				pathParams: map[string]jsonSchema{"policy_id": {"type": "string", "format": "uuid", "description": "The policy's id."}},
				replies:    []reply{ok(http.StatusOK, "The policy as it was, active false.", guardrailPolicyResponse{})},
				errs:       []codes{errs(http.StatusNotFound, "not_found")}}},
		{action: "guardrail.dry_run", method: http.MethodPost, path: "/api/guardrail/policies/dry-run", status: http.StatusOK,
			floor: apikey.Admin, run: s.guardrailDryRun,
			doc: apiOp{tag: tagGuardRail, summary: "Dry-run a draft policy against recorded checks",
				note: "Free; nothing is written. Replays the organization's checks of the last days (1-30, default 7; the newest 10,000) through the draft policy alone: " +
					"how many it applies to, triggers on and would deny, how many of those were allowed, and up to 10 examples.",
				body: guardrailDryRunDoc{}, required: []string{"policy"},
				replies: []reply{ok(http.StatusOK, "What the draft would have decided.", guardrailDryRunReport{})}}},
		{action: "guardrail.list_decisions", method: http.MethodGet, path: "/api/guardrail/decisions", status: http.StatusOK,
			run: s.guardrailListDecisions,
			doc: apiOp{tag: tagGuardRail, summary: "List recorded decisions (the audit log)",
				note: "Free. Newest first; each is the event a check recorded (audit_id).",
				params: []param{
					query("limit", "How many to return (1-100, default 20).", jsonSchema{"type": "integer", "minimum": 1, "maximum": 100}),
					query("decision", "Only allow or deny decisions.", jsonSchema{"type": "string", "enum": []any{"allow", "deny"}}),
					query("agent_id", "Only this agent's decisions.", jsonSchema{"type": "string"}),
				},
				replies: []reply{ok(http.StatusOK, "The decisions.", guardrailDecisionsResponse{})}}},
	}
}

// guardrailError maps GuardRail's refusals to the suite's envelope.
func guardrailError(err error) error {
	var ie *guardrail.InvalidError
	switch {
	case errors.As(err, &ie) && ie.Missing:
		return suiteMissing(ie.Field)
	case errors.As(err, &ie):
		return suiteInvalid(ie.Field, ie.Message)
	case errors.Is(err, guardrail.ErrPolicyNotFound):
		return &suiteError{Status: http.StatusNotFound, Code: "not_found",
			Message: "No policy of this organization has this id.",
			Fix:     "List the policies with GET /api/guardrail/policies."}
	case errors.Is(err, guardrail.ErrNameTaken):
		return &suiteError{Status: http.StatusConflict, Code: "policy_name_conflict",
			Message: "A policy of this organization already has this name (names are compared without regard to case).",
			Fix:     "Choose another name, or list the policies with GET /api/guardrail/policies."}
	}
	return err
}

// guardrailCheckParams are a check's parameters as decoded.
type guardrailCheckParams struct {
	AgentID        *string         `json:"agent_id"`
	ProposedAction json.RawMessage `json:"proposed_action"`
}

func (s *Server) guardrailCheck(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p guardrailCheckParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.AgentID == nil {
		return nil, suite.Receipt{}, suiteMissing("agent_id")
	}
	d, err := s.suite.GuardRail.Check(ctx, suite.GuardRailCheck{Caller: c.caller, AgentID: *p.AgentID, ProposedAction: p.ProposedAction})
	if err != nil {
		return nil, suite.Receipt{}, guardrailError(err)
	}
	out := &guardrailDecisionResponse{Decision: d.Decision, Reason: d.Reason, PolicyID: nullIfEmpty(d.PolicyID),
		PolicyName: nullIfEmpty(d.PolicyName), AuditID: nullIfEmpty(d.AuditID),
		Override: guardrailOverride{Available: d.OverrideAvailable, Requires: d.OverrideRequires}}
	out.FallbackBehavior = d.Fallback
	return out, d.Receipt, nil
}

// nullIfEmpty is s, nil when empty.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// guardrailPolicyParams are a policy's parameters as decoded.
type guardrailPolicyParams struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Rules       json.RawMessage `json:"rules"`
	ActionTypes []string        `json:"action_types"`
	Priority    *int            `json:"priority"`
	Effect      *string         `json:"effect"`
	Tests       json.RawMessage `json:"tests"`
}

func (p guardrailPolicyParams) input() guardrail.Input {
	in := guardrail.Input{Rules: p.Rules, ActionTypes: p.ActionTypes, Tests: p.Tests}
	if p.Name != nil {
		in.Name = *p.Name
	}
	if p.Description != nil {
		in.Description = *p.Description
	}
	if p.Priority != nil {
		in.Priority = *p.Priority
	}
	if p.Effect != nil {
		in.Effect = *p.Effect
	}
	return in
}

func (s *Server) guardrailCreatePolicy(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p guardrailPolicyParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	res, err := s.suite.GuardRail.CreatePolicy(ctx, suite.GuardRailCreatePolicy{Caller: c.caller, Policy: p.input()})
	if err != nil {
		return nil, suite.Receipt{}, guardrailError(err)
	}
	return &guardrailPolicyResponse{Policy: policyView(res.Policy)}, res.Receipt, nil
}

func (s *Server) guardrailDeletePolicy(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p struct {
		PolicyID *string `json:"policy_id"`
	}
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.PolicyID == nil || *p.PolicyID == "" {
		return nil, suite.Receipt{}, suiteMissing("policy_id")
	}
	if uuid.Validate(*p.PolicyID) != nil {
		return nil, suite.Receipt{}, guardrailError(guardrail.ErrPolicyNotFound)
	}
	res, err := s.suite.GuardRail.DeletePolicy(ctx, suite.GuardRailDeletePolicy{Caller: c.caller, PolicyID: *p.PolicyID})
	if err != nil {
		return nil, suite.Receipt{}, guardrailError(err)
	}
	v := policyView(suite.GuardRailPolicy{PolicyCreated: res.Policy, CreatedAt: res.CreatedAt})
	v.Active = false
	return &guardrailPolicyResponse{Policy: v}, res.Receipt, nil
}

func (s *Server) guardrailListPolicies(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	ps, rc, err := s.suite.GuardRail.ListPolicies(ctx, c.caller)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	out := &guardrailPoliciesResponse{Policies: make([]guardrailPolicyView, len(ps)), Total: len(ps)}
	for i, p := range ps {
		out.Policies[i] = policyView(p)
	}
	return out, rc, nil
}

type guardrailDryRunParams struct {
	Policy *guardrailPolicyParams `json:"policy"`
	Days   *int                   `json:"days"`
}

func (s *Server) guardrailDryRun(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p guardrailDryRunParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.Policy == nil {
		return nil, suite.Receipt{}, suiteMissing("policy")
	}
	days := suite.DryRunDefaultDays
	if p.Days != nil {
		days = *p.Days
	}
	if days < 1 || days > suite.DryRunMaxDays {
		return nil, suite.Receipt{}, suiteInvalid("days", "Field days must be from 1 to 30.")
	}
	res, err := s.suite.GuardRail.DryRun(ctx, suite.GuardRailDryRun{Caller: c.caller, Policy: p.Policy.input(), Days: days})
	if err != nil {
		var ie *guardrail.InvalidError
		if errors.As(err, &ie) {
			ie.Field = "policy." + ie.Field
			ie.Message = "In policy: " + ie.Message
		}
		return nil, suite.Receipt{}, guardrailError(err)
	}
	out := &guardrailDryRunReport{Days: days, Since: res.Since, RecordedChecks: res.Recorded, Evaluated: res.Evaluated,
		Applicable: res.Applicable, WouldTrigger: res.Triggered, WouldDeny: res.WouldDeny, NewlyDenied: res.NewlyDenied,
		Examples: make([]guardrailDryRunExample, len(res.Examples))}
	for i, e := range res.Examples {
		out.Examples[i] = guardrailDryRunExample{AuditID: e.AuditID, AgentID: e.AgentID, ProposedAction: e.ProposedAction,
			RecordedDecision: e.RecordedDecision, DraftDecision: e.DraftDecision, Reason: e.Reason, DecidedAt: e.DecidedAt}
	}
	return out, res.Receipt, nil
}

type guardrailDecisionsParams struct {
	Limit    *float64 `json:"limit"`
	Decision *string  `json:"decision"`
	// AgentID is any: a query value that looks like a number or a
	// boolean is parsed as one (suiteParams), and agent ids may be "42"
	AgentID any `json:"agent_id"`
}

func (s *Server) guardrailListDecisions(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p guardrailDecisionsParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	q := suite.GuardRailDecisionQuery{Caller: c.caller, Limit: 20}
	if p.Limit != nil {
		if *p.Limit != float64(int(*p.Limit)) || *p.Limit < 1 || *p.Limit > 100 {
			return nil, suite.Receipt{}, suiteInvalid("limit", "Parameter limit must be an integer from 1 to 100.")
		}
		q.Limit = int(*p.Limit)
	}
	if p.Decision != nil {
		if *p.Decision != guardrail.Allow && *p.Decision != guardrail.Deny {
			return nil, suite.Receipt{}, suiteInvalid("decision", "Parameter decision must be allow or deny.")
		}
		q.Decision = *p.Decision
	}
	if p.AgentID != nil {
		q.AgentID = fmt.Sprint(p.AgentID)
	}
	res, err := s.suite.GuardRail.ListDecisions(ctx, q)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	out := &guardrailDecisionsResponse{Decisions: make([]guardrailDecisionView, len(res.Decisions)), Total: res.Total}
	for i, d := range res.Decisions {
		out.Decisions[i] = guardrailDecisionView{AuditID: d.AuditID, AgentID: d.AgentID, ActionType: d.ActionType,
			ProposedAction: d.ProposedAction, Decision: d.Decision, Reason: d.Reason, PolicyID: d.PolicyID,
			PolicyName: nullIfEmpty(d.PolicyName), DecidedAt: d.DecidedAt.UTC()}
	}
	return out, res.Receipt, nil
}

// policyView is p as the API shows it.
func policyView(p suite.GuardRailPolicy) guardrailPolicyView {
	v := guardrailPolicyView{ID: p.PolicyID, Name: p.Name, Description: p.Description, Rules: ruleViews(p.Rules),
		ActionTypes: p.ActionTypes, Priority: p.Priority, Effect: p.Effect, Tests: make([]guardrailTestView, len(p.Tests)),
		Active: true, CreatedAt: p.CreatedAt}
	if v.ActionTypes == nil {
		v.ActionTypes = []string{}
	}
	for i, t := range p.Tests {
		v.Tests[i] = guardrailTestView{Name: t.Name, ProposedAction: t.ProposedAction, Expect: t.Expect}
	}
	return v
}

func ruleViews(rs []guardrail.Rule) []guardrailRule {
	out := make([]guardrailRule, len(rs))
	for i, r := range rs {
		out[i] = guardrailRule{Operator: r.Operator, Field: r.Field, Value: r.Value}
		if len(r.Rules) > 0 {
			out[i].Rules = ruleViews(r.Rules)
		}
	}
	return out
}
