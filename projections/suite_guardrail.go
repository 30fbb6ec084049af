package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/guardrail"
	"svc/eventstore/event"
)

// guardrailProjections are the guardrail product's read models (spec C).
func guardrailProjections() []Projection {
	return []Projection{GuardRailPolicies{}, GuardRailDecisions{}}
}

// GuardRailPolicies is the read model of GuardRail's active policies, and
// per organization the revision of its policies (how many policy events
// it has had: a count, not a position, since the projection applies
// events in commit order, which their positions need not follow): a cache
// of an organization's policies is current while the revision it was
// read at is.
type GuardRailPolicies struct{}

// Name implements Projection.
func (GuardRailPolicies) Name() string { return "guardrail_policies" }

var (
	guardrailPoliciesTable = Table{
		Name: "guardrail_policies",
		DDL: `policy_id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			name text NOT NULL,
			priority integer NOT NULL,
			spec jsonb NOT NULL,
			created_at timestamptz NOT NULL`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, priority DESC, lower(name), policy_id)`},
	}
	guardrailRevisionsTable = Table{
		Name: "guardrail_policy_revisions",
		DDL: `org_id uuid PRIMARY KEY,
			revision bigint NOT NULL`,
	}
)

// Tables implements Projection.
func (GuardRailPolicies) Tables() []Table {
	return []Table{guardrailPoliciesTable, guardrailRevisionsTable}
}

// EventTypes implements Projection.
func (GuardRailPolicies) EventTypes() []string { return guardrail.PolicyEventTypes }

// SchemaVersion implements Versioned: 2 counts the revision and applies
// deletions.
func (GuardRailPolicies) SchemaVersion() int { return 2 }

// Apply implements Projection.
func (GuardRailPolicies) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	policies, revisions := t.Of(guardrailPoliciesTable.Name), t.Of(guardrailRevisionsTable.Name)
	b := &pgx.Batch{}
	for _, e := range events {
		var orgID string
		switch d := e.Payload.(type) {
		case guardrail.PolicyCreated:
			spec, err := json.Marshal(d)
			if err != nil {
				return fmt.Errorf("guardrail policy %s: %w", d.PolicyID, err)
			}
			b.Queue(`INSERT INTO `+policies+` (policy_id, org_id, name, priority, spec, created_at)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (policy_id) DO NOTHING`,
				d.PolicyID, d.OrgID, d.Name, d.Priority, spec, e.RecordedAt)
			orgID = d.OrgID
		case guardrail.PolicyDeleted:
			b.Queue(`DELETE FROM `+policies+` WHERE policy_id = $1`, d.PolicyID)
			orgID = d.OrgID
		default:
			continue
		}
		b.Queue(`INSERT INTO `+revisions+` AS r (org_id, revision) VALUES ($1, 1)
			ON CONFLICT (org_id) DO UPDATE SET revision = r.revision + 1`, orgID)
	}
	return sendBatch(ctx, tx, b)
}

// GuardRailPolicyRow is a policy as the read model holds it.
type GuardRailPolicyRow struct {
	Spec      guardrail.PolicyCreated
	CreatedAt time.Time
}

// GuardRailPolicyRevision is orgID's policy revision: 0 before its first
// policy.
func (q *Queries) GuardRailPolicyRevision(ctx context.Context, orgID string) (int64, error) {
	var rev int64
	err := q.store.Pool().QueryRow(ctx, `SELECT COALESCE((SELECT revision FROM guardrail_policy_revisions WHERE org_id = $1), 0)`, orgID).Scan(&rev)
	if err != nil {
		return 0, fmt.Errorf("guardrail policy revision: %w", err)
	}
	return rev, nil
}

// GuardRailPolicies lists orgID's active policies, higher priority first,
// then by name.
func (q *Queries) GuardRailPolicies(ctx context.Context, orgID string) ([]GuardRailPolicyRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT spec, created_at FROM guardrail_policies
		WHERE org_id = $1 ORDER BY priority DESC, lower(name), policy_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("guardrail policies: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (GuardRailPolicyRow, error) {
		var (
			row  GuardRailPolicyRow
			spec []byte
		)
		if err := r.Scan(&spec, &row.CreatedAt); err != nil {
			return row, err
		}
		return row, json.Unmarshal(spec, &row.Spec)
	})
	if err != nil {
		return nil, fmt.Errorf("guardrail policies: %w", err)
	}
	return out, nil
}

// GuardRailDecisions is the read model of GuardRail's decisions: the
// audit log of checks, and what a dry run replays.
type GuardRailDecisions struct{}

// Name implements Projection.
func (GuardRailDecisions) Name() string { return "guardrail_decisions" }

var guardrailDecisionsTable = Table{
	Name: "guardrail_decisions",
	DDL: `audit_id uuid PRIMARY KEY,
		org_id uuid NOT NULL,
		agent_id text NOT NULL,
		action_type text NOT NULL,
		proposed_action jsonb NOT NULL,
		decision text NOT NULL,
		reason text NOT NULL,
		policy_id uuid,
		policy_name text NOT NULL,
		decided_at timestamptz NOT NULL`,
	Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, decided_at DESC, audit_id)`},
}

// Tables implements Projection.
func (GuardRailDecisions) Tables() []Table { return []Table{guardrailDecisionsTable} }

// EventTypes implements Projection.
func (GuardRailDecisions) EventTypes() []string { return []string{guardrail.EventCheckDecided} }

// Apply implements Projection: one statement for the batch (checks come
// in thousands a second).
func (GuardRailDecisions) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	var cols [10][]string
	var at []time.Time
	for _, e := range events {
		d, ok := e.Payload.(guardrail.CheckDecided)
		if !ok {
			continue
		}
		for i, v := range []string{d.AuditID, d.OrgID, d.AgentID, d.ActionType, string(d.ProposedAction), d.Decision, d.Reason, d.PolicyID, d.PolicyName} {
			cols[i] = append(cols[i], v)
		}
		at = append(at, e.RecordedAt)
	}
	if len(at) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO `+t.Of(guardrailDecisionsTable.Name)+` (audit_id, org_id, agent_id, action_type, proposed_action,
			decision, reason, policy_id, policy_name, decided_at)
		SELECT a::uuid, o::uuid, ag, ty, pa::jsonb, d, r, NULLIF(p, '')::uuid, pn, ts
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[])
			AS u(a, o, ag, ty, pa, d, r, p, pn, ts)
		ON CONFLICT (audit_id) DO NOTHING`,
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], at)
	if err != nil {
		return fmt.Errorf("guardrail decisions: %w", err)
	}
	return nil
}

// GuardRailDecisionRow is a recorded decision.
type GuardRailDecisionRow struct {
	AuditID        string
	AgentID        string
	ActionType     string
	ProposedAction json.RawMessage
	Decision       string
	Reason         string
	PolicyID       *string
	PolicyName     string
	DecidedAt      time.Time
}

// GuardRailDecisionFilter selects recorded decisions.
type GuardRailDecisionFilter struct {
	Since    time.Time // zero: any time
	Decision string    // "": any
	AgentID  string    // "": any
	Limit    int
}

// GuardRailDecisions lists orgID's recorded decisions matching f, newest
// first, and how many match in all.
func (q *Queries) GuardRailDecisions(ctx context.Context, orgID string, f GuardRailDecisionFilter) ([]GuardRailDecisionRow, int, error) {
	where := `org_id = $1 AND ($2::timestamptz IS NULL OR decided_at >= $2) AND ($3 = '' OR decision = $3) AND ($4 = '' OR agent_id = $4)`
	var since *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	var total int
	if err := q.store.Pool().QueryRow(ctx, `SELECT count(*) FROM guardrail_decisions WHERE `+where,
		orgID, since, f.Decision, f.AgentID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("guardrail decisions: %w", err)
	}
	rows, err := q.store.Pool().Query(ctx, `SELECT audit_id::text, agent_id, action_type, proposed_action, decision, reason,
		policy_id::text, policy_name, decided_at FROM guardrail_decisions WHERE `+where+`
		ORDER BY decided_at DESC, audit_id LIMIT $5`, orgID, since, f.Decision, f.AgentID, f.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("guardrail decisions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (GuardRailDecisionRow, error) {
		var (
			d   GuardRailDecisionRow
			raw []byte
		)
		err := r.Scan(&d.AuditID, &d.AgentID, &d.ActionType, &raw, &d.Decision, &d.Reason, &d.PolicyID, &d.PolicyName, &d.DecidedAt)
		d.ProposedAction = raw
		return d, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("guardrail decisions: %w", err)
	}
	return out, total, nil
}
