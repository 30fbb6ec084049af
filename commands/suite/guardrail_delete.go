package suite

import (
	"context"
	"fmt"
	"time"

	"svc/domain/guardrail"
	domain "svc/domain/suite"
	"svc/eventstore"
)

// GuardRailDeletePolicy deletes a policy of the caller's organization.
type GuardRailDeletePolicy struct {
	Caller   Caller
	PolicyID string
}

// GuardRailPolicyDeleted is the outcome of GuardRailDeletePolicy: the
// policy as it was.
type GuardRailPolicyDeleted struct {
	Policy    guardrail.PolicyCreated
	CreatedAt time.Time
	Receipt   Receipt
}

// DeletePolicy deletes a policy (free): from its next check on, on every
// instance, it no longer applies, and its name is free again; the
// decisions it made stay in the audit log. Deleting a deleted policy
// again answers as the first time (a retry); another organization's
// policy, or an unknown id, is guardrail.ErrPolicyNotFound.
func (g *GuardRail) DeletePolicy(ctx context.Context, cmd GuardRailDeletePolicy) (GuardRailPolicyDeleted, error) {
	return g.deletePolicy.Handle(ctx, cmd)
}

func (g *GuardRail) doDeletePolicy(ctx context.Context, cmd GuardRailDeletePolicy) (GuardRailPolicyDeleted, error) {
	c := cmd.Caller
	var (
		spec    guardrail.PolicyCreated
		created time.Time
	)
	rc, err := g.s.Meter.Run(ctx, c, domain.GuardRailDeletePolicy, func(tx *eventstore.Tx) error {
		st, err := g.policies.Load(tx, cmd.PolicyID)
		if err != nil {
			return err
		}
		deleted, err := st.Delete(c.OrgID, c.KeyID)
		spec, created = st.Spec(), st.CreatedAt()
		if err != nil || len(deleted) == 0 {
			return err
		}
		key := guardrail.NameKey(c.OrgID, spec.Name)
		n, err := g.names.Load(tx, key)
		if err != nil {
			return err
		}
		if released := n.Release(spec.PolicyID, c.OrgID); len(released) > 0 {
			if _, err := g.names.Save(tx, key, n, released...); err != nil {
				return err
			}
		}
		_, err = g.policies.Save(tx, cmd.PolicyID, st, deleted...)
		return err
	})
	if err != nil {
		return GuardRailPolicyDeleted{}, fmt.Errorf("delete policy: %w", err)
	}
	return GuardRailPolicyDeleted{Policy: spec, CreatedAt: created.UTC(), Receipt: rc}, nil
}
