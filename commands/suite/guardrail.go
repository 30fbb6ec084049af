package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/guardrail"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/projections"
)

// GuardRail is the GuardRail product's operations (spec C): checks of
// proposed actions against the organization's policies, and the policies.
type GuardRail struct {
	s        *Suite
	policies *eventstore.Repository[*guardrail.Stored]
	names    *eventstore.Repository[*guardrail.Name]
	cache    *PolicyCache

	check        commands.Handler[GuardRailCheck, GuardRailDecision]
	createPolicy commands.Handler[GuardRailCreatePolicy, GuardRailPolicyCreated]
	deletePolicy commands.Handler[GuardRailDeletePolicy, GuardRailPolicyDeleted]
}

func newGuardRail(s *Suite) *GuardRail {
	store := s.repos.Store
	g := &GuardRail{s: s, cache: NewPolicyCache(),
		policies: eventstore.NewRepository(store, eventstore.Kind[*guardrail.Stored]{
			Stream: guardrail.PolicyStream, New: func(string) *guardrail.Stored { return guardrail.NewStored() },
			Owner: (*guardrail.Stored).OrgID}),
		names: eventstore.NewRepository(store, eventstore.Kind[*guardrail.Name]{
			Stream: guardrail.NameStream, New: func(string) *guardrail.Name { return guardrail.NewName() }}),
	}
	g.check = handle(s, g.doCheck)
	g.createPolicy = handle(s, g.doCreatePolicy)
	g.deletePolicy = handle(s, g.doDeletePolicy)
	return g
}

// Cache is the cache of organizations' policies the checks read (and fail
// open from).
func (g *GuardRail) Cache() *PolicyCache { return g.cache }

// UseCache makes g read and fill c: instances of the suite in one process
// (tests) may share one.
func (g *GuardRail) UseCache(c *PolicyCache) { g.cache = c }

// GuardRailCreatePolicy creates a policy of the caller's organization.
type GuardRailCreatePolicy struct {
	Caller Caller
	Policy guardrail.Input
}

// GuardRailPolicyCreated is the outcome of GuardRailCreatePolicy.
type GuardRailPolicyCreated struct {
	Policy  GuardRailPolicy
	Receipt Receipt
}

// GuardRailPolicy is a policy as the API shows it.
type GuardRailPolicy struct {
	guardrail.PolicyCreated
	CreatedAt time.Time
}

// CreatePolicy checks the policy, runs its tests, and appends its creation
// with its name's reservation in one transaction (free): of two creations
// racing for one name, on any instance, the second finds it taken
// (guardrail.ErrNameTaken).
func (g *GuardRail) CreatePolicy(ctx context.Context, cmd GuardRailCreatePolicy) (GuardRailPolicyCreated, error) {
	return g.createPolicy.Handle(ctx, cmd)
}

func (g *GuardRail) doCreatePolicy(ctx context.Context, cmd GuardRailCreatePolicy) (GuardRailPolicyCreated, error) {
	c := cmd.Caller
	id := uuid.NewString()
	spec, _, err := guardrail.NewPolicy(id, c.OrgID, c.KeyID, cmd.Policy)
	if err != nil {
		return GuardRailPolicyCreated{}, err
	}
	if err := g.s.Meter.Afford(ctx, c, domain.GuardRailCreatePolicy); err != nil {
		return GuardRailPolicyCreated{}, err
	}
	rc, err := g.s.Meter.Run(ctx, c, domain.GuardRailCreatePolicy, func(tx *eventstore.Tx) error {
		key := guardrail.NameKey(c.OrgID, spec.Name)
		n, err := g.names.Load(tx, key)
		if err != nil {
			return err
		}
		reserved, err := n.Reserve(id, c.OrgID)
		if err != nil {
			return err
		}
		if _, err := g.names.Save(tx, key, n, reserved...); err != nil {
			return err
		}
		st := guardrail.NewStored()
		created, err := st.Create(spec)
		if err != nil {
			return err
		}
		_, err = g.policies.Save(tx, id, st, created)
		return err
	})
	if err != nil {
		return GuardRailPolicyCreated{}, fmt.Errorf("create policy: %w", err)
	}
	return GuardRailPolicyCreated{Policy: GuardRailPolicy{PolicyCreated: spec, CreatedAt: time.Now().UTC()}, Receipt: rc}, nil
}

// ListPolicies lists the caller's organization's active policies, higher
// priority first, then by name (free).
func (g *GuardRail) ListPolicies(ctx context.Context, c Caller) ([]GuardRailPolicy, Receipt, error) {
	rows, err := g.s.ports.Queries.GuardRailPolicies(ctx, c.OrgID)
	if err != nil {
		return nil, Receipt{}, err
	}
	out := make([]GuardRailPolicy, len(rows))
	for i, r := range rows {
		out[i] = GuardRailPolicy{PolicyCreated: r.Spec, CreatedAt: r.CreatedAt.UTC()}
	}
	rc, err := g.s.Meter.Balance(ctx, c)
	return out, rc, err
}

// GuardRailDryRun evaluates a draft policy against the caller's
// organization's recorded checks of the last Days days.
type GuardRailDryRun struct {
	Caller Caller
	Policy guardrail.Input
	Days   int
}

// Dry-run bounds.
const (
	DryRunDefaultDays = 7
	DryRunMaxDays     = 30
	// DryRunMaxChecks bounds the recorded checks a dry run replays (the
	// newest first).
	DryRunMaxChecks = 10000
	dryRunExamples  = 10
)

// GuardRailDryRunResult is what the draft would have decided.
type GuardRailDryRunResult struct {
	// Recorded counts the checks recorded in the window; Evaluated those
	// replayed (at most DryRunMaxChecks, the newest).
	Recorded, Evaluated int
	// Applicable counts the checks whose type the draft applies to;
	// Triggered those it triggers on; WouldDeny those it alone would deny;
	// NewlyDenied those it would deny that were allowed.
	Applicable, Triggered, WouldDeny, NewlyDenied int
	Examples                                      []GuardRailDryRunExample
	Since                                         time.Time
	Receipt                                       Receipt
}

// GuardRailDryRunExample is a recorded check the draft triggers on.
type GuardRailDryRunExample struct {
	AuditID          string
	AgentID          string
	ProposedAction   json.RawMessage
	RecordedDecision string
	DraftDecision    string
	Reason           string
	DecidedAt        time.Time
}

// DryRun replays the organization's recorded checks of the window through
// the draft alone (free; nothing is written).
func (g *GuardRail) DryRun(ctx context.Context, cmd GuardRailDryRun) (GuardRailDryRunResult, error) {
	draft, err := guardrail.Draft(cmd.Policy)
	if err != nil {
		return GuardRailDryRunResult{}, err
	}
	days := cmd.Days
	if days == 0 {
		days = DryRunDefaultDays
	}
	since := time.Now().UTC().Add(-time.Duration(days) * 24 * time.Hour)
	rows, total, err := g.s.ports.Queries.GuardRailDecisions(ctx, cmd.Caller.OrgID,
		projections.GuardRailDecisionFilter{Since: since, Limit: DryRunMaxChecks})
	if err != nil {
		return GuardRailDryRunResult{}, err
	}
	out := GuardRailDryRunResult{Recorded: total, Evaluated: len(rows), Since: since, Examples: []GuardRailDryRunExample{}}
	one := []*guardrail.Policy{draft}
	for _, r := range rows {
		action, err := guardrail.ParseAction(r.ProposedAction, "proposed_action")
		if err != nil {
			continue
		}
		d := guardrail.Evaluate(one, action)
		if d.Evaluated > 0 {
			out.Applicable++
		}
		if d.Policy == nil {
			continue
		}
		out.Triggered++
		if d.Decision == guardrail.Deny {
			out.WouldDeny++
			if r.Decision == guardrail.Allow {
				out.NewlyDenied++
			}
		}
		if len(out.Examples) < dryRunExamples {
			out.Examples = append(out.Examples, GuardRailDryRunExample{AuditID: r.AuditID, AgentID: r.AgentID,
				ProposedAction: r.ProposedAction, RecordedDecision: r.Decision, DraftDecision: d.Decision,
				Reason: d.Reason, DecidedAt: r.DecidedAt.UTC()})
		}
	}
	out.Receipt, err = g.s.Meter.Balance(ctx, cmd.Caller)
	return out, err
}

// GuardRailDecisionQuery selects recorded decisions of the caller's
// organization.
type GuardRailDecisionQuery struct {
	Caller   Caller
	Limit    int
	Decision string // "": any
	AgentID  string // "": any
}

// GuardRailDecisions are recorded decisions, newest first, and how many
// match in all.
type GuardRailDecisions struct {
	Decisions []projections.GuardRailDecisionRow
	Total     int
	Receipt   Receipt
}

// ListDecisions lists recorded decisions (the audit log; free).
func (g *GuardRail) ListDecisions(ctx context.Context, q GuardRailDecisionQuery) (GuardRailDecisions, error) {
	rows, total, err := g.s.ports.Queries.GuardRailDecisions(ctx, q.Caller.OrgID,
		projections.GuardRailDecisionFilter{Decision: q.Decision, AgentID: q.AgentID, Limit: q.Limit})
	if err != nil {
		return GuardRailDecisions{}, err
	}
	rc, err := g.s.Meter.Balance(ctx, q.Caller)
	return GuardRailDecisions{Decisions: rows, Total: total, Receipt: rc}, err
}
