package suite

import (
	"context"
	"fmt"
	"sync"
	"time"

	"svc/domain/guardrail"
	"svc/projections"
)

// policyReadBound bounds the reads of a check's policies: past it the
// database counts as unavailable and the check fails open.
const policyReadBound = 5 * time.Second

// maxCachedOrgs bounds the organizations a PolicyCache holds.
const maxCachedOrgs = 10000

// PolicyCache is a process's cache of organizations' active policies, a
// cache of the policies read model: a check reads the organization's
// policy revision (one indexed row) and uses its cached copy while the
// revision is the same, so a policy created on any instance counts from
// the next check on, everywhere. When the database is unavailable a check
// evaluates against the copy it has (failing open).
type PolicyCache struct {
	mu   sync.RWMutex
	orgs map[string]*cachedPolicies

	// revisions share the reads of an organization's policy revision
	// among the checks of a wave (never one that began before a check
	// arrived: a policy created before it is always seen)
	revisions projections.Waves[string, int64]
}

// cachedPolicies is one organization's policies at a revision.
type cachedPolicies struct {
	revision int64
	policies []*guardrail.Policy
	at       time.Time
	// balance is the balance after the organization's last check here:
	// what a check that fails open answers as credits_remaining.
	balance int64
}

// NewPolicyCache returns an empty cache.
func NewPolicyCache() *PolicyCache {
	return &PolicyCache{orgs: map[string]*cachedPolicies{}, revisions: projections.Waves[string, int64]{Bound: policyReadBound}}
}

// revision is orgID's policy revision, read after the call began.
func (c *PolicyCache) revision(ctx context.Context, q *projections.Queries, orgID string) (int64, error) {
	return c.revisions.Do(ctx, orgID, func(ctx context.Context) (int64, error) { return q.GuardRailPolicyRevision(ctx, orgID) })
}

func (c *PolicyCache) get(orgID string) *cachedPolicies {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.orgs[orgID]
}

func (c *PolicyCache) put(orgID string, e *cachedPolicies) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.orgs) >= maxCachedOrgs {
		for k := range c.orgs {
			delete(c.orgs, k)
			if len(c.orgs) < maxCachedOrgs {
				break
			}
		}
	}
	if old := c.orgs[orgID]; old != nil && e.balance == 0 {
		e.balance = old.balance
	}
	c.orgs[orgID] = e
}

// noteBalance records orgID's balance after a check.
func (c *PolicyCache) noteBalance(orgID string, balance int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.orgs[orgID]; e != nil {
		e.balance = balance
	}
}

// current is orgID's policies as the read model has them now (in Order):
// the cached copy while the revision is the same, else read again.
func (c *PolicyCache) current(ctx context.Context, q *projections.Queries, orgID string) ([]*guardrail.Policy, error) {
	rev, err := c.revision(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	if e := c.get(orgID); e != nil && e.revision == rev {
		return e.policies, nil
	}
	var policies []*guardrail.Policy
	if rev > 0 {
		ctx, cancel := context.WithTimeout(ctx, policyReadBound)
		defer cancel()
		rows, err := q.GuardRailPolicies(ctx, orgID)
		if err != nil {
			return nil, err
		}
		policies = make([]*guardrail.Policy, 0, len(rows))
		for _, r := range rows {
			p, err := guardrail.Compile(r.Spec)
			if err != nil {
				return nil, fmt.Errorf("guardrail policies of %s: %w", orgID, err)
			}
			policies = append(policies, p)
		}
		guardrail.Order(policies)
	}
	c.put(orgID, &cachedPolicies{revision: rev, policies: policies, at: time.Now().UTC()})
	return policies, nil
}

// cached is orgID's cached copy, nil when there is none.
func (c *PolicyCache) cached(orgID string) *cachedPolicies {
	e := c.get(orgID)
	if e == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	cp := *e
	return &cp
}

// Balance is orgID's balance after its last check here (0 when unknown):
// what a check that fails open answers as credits_remaining.
func (c *PolicyCache) Balance(orgID string) int64 {
	if e := c.cached(orgID); e != nil {
		return e.balance
	}
	return 0
}
