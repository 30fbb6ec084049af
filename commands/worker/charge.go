package worker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"svc/commands"
	"svc/domain/credit"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Group charges. Every step's result is appended with its charge in one
// transaction, and the charge takes the org's lock (commands.LockOrg):
// the steps of one org's runs queue on it, one transaction at a time. The
// charger lets the runs of an org that finish a step while another's
// charge transaction is under way share the next one: each run's events
// are appended to its own stream at its own expected version, with its own
// metadata, and the ledger decides all their charges at once
// (ledger.ChargeAll, which draws each on its run's reservation) in one
// append, under one lock and one commit. A run alone, or the first of a
// burst, writes at once: grouping adds no wait, it only shares the next
// transaction among the runs that queued behind the one in flight.
//
// Grouping never changes an outcome: a run whose stream moved (another
// worker) is taken out of the group and told errLost, and the others are
// written again without it; a group whose charges the ledger refuses
// (credit.ErrInsufficient) is written again one run at a time, so only the
// run the balance does not cover halts.

// maxGroup bounds the runs written by one transaction.
const maxGroup = 64

// groupTimeout bounds a group's transaction: it runs under no run's
// context (a run whose lease ends mid-write must not fail the others).
const groupTimeout = 30 * time.Second

// charger groups the step charges of each org's runs.
type charger struct {
	repos *commands.Repositories
	mu    sync.Mutex
	orgs  map[string]*orgQueue
}

// orgQueue holds the runs of one org waiting for a transaction; busy is
// set while one of them writes a group.
type orgQueue struct {
	waiting []*pending
	busy    bool
}

// pending is one run's step results waiting to be written and charged,
// or its terminal event waiting to be written and settled (settle).
type pending struct {
	ctx     context.Context
	r       *run
	results []event.Data
	charges []credit.Charged
	settle  *credit.Settlement // the run ends: its settlement (commands.EndRun)
	// done receives the outcome, or lead: this run writes the next group.
	done chan outcome
}

type outcome struct {
	err  error
	lead bool
}

func newCharger(repos *commands.Repositories) *charger {
	return &charger{repos: repos, orgs: map[string]*orgQueue{}}
}

// write appends results to r's workflow and charges them, in a
// transaction it may share with other runs of the org. It returns once
// they are committed and r's workflow has folded them (or not: the error).
func (c *charger) write(ctx context.Context, r *run, results []event.Data, charges []credit.Charged) error {
	return c.queue(&pending{ctx: ctx, r: r, results: results, charges: charges, done: make(chan outcome, 1)})
}

// end appends data, which ends r's run, and settles the run on the org's
// ledger and frees its slot (what commands.EndRun does), in a transaction
// it may share with other runs of the org, which then waits for the WAL
// flush (decision 44).
func (c *charger) end(ctx context.Context, r *run, data []event.Data, s credit.Settlement) error {
	s.WorkflowID = r.wf.ID()
	return c.queue(&pending{ctx: ctx, r: r, results: data, settle: &s, done: make(chan outcome, 1)})
}

// queue writes p with the next group of its org and returns its outcome.
func (c *charger) queue(p *pending) error {
	r := p.r
	org := r.wf.OrgID()
	c.mu.Lock()
	q := c.orgs[org]
	if q == nil {
		q = &orgQueue{}
		c.orgs[org] = q
	}
	q.waiting = append(q.waiting, p)
	lead := !q.busy
	q.busy = true
	c.mu.Unlock()
	if lead {
		c.lead(org, q)
	}
	for {
		o := <-p.done
		if !o.lead {
			return o.err
		}
		c.lead(org, q)
	}
}

// lead writes the next group of q, then hands the lead to the first run
// that queued meanwhile (or leaves q idle).
func (c *charger) lead(org string, q *orgQueue) {
	c.mu.Lock()
	n := min(len(q.waiting), maxGroup)
	group := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	c.mu.Unlock()

	// one order of the workflows' appends in every group: two groups
	// (of two processes) never wait on each other's
	slices.SortFunc(group, func(a, b *pending) int { return strings.Compare(a.r.wf.ID(), b.r.wf.ID()) })
	c.writeGroup(group)

	c.mu.Lock()
	defer c.mu.Unlock()
	if len(q.waiting) == 0 {
		q.busy = false
		delete(c.orgs, org)
		return
	}
	q.waiting[0].done <- outcome{lead: true}
}

// lostRun is the error of a group transaction in which run p's stream
// moved: it is not a version conflict (the store would run the group
// again as it is) but names the run to take out.
type lostRun struct{ p *pending }

func (e *lostRun) Error() string { return "workflow " + e.p.r.wf.ID() + " moved by another worker" }

// writeGroup writes group and tells each run its outcome.
func (c *charger) writeGroup(group []*pending) {
	for len(group) > 0 {
		err := c.transact(group)
		var lost *lostRun
		switch {
		case errors.As(err, &lost):
			lost.p.done <- outcome{err: errLost}
			group = without(group, lost.p)
			continue
		case errors.Is(err, credit.ErrInsufficient) && len(group) > 1:
			// the balance does not cover them all: one at a time, so
			// each run's own charge decides whether it halts
			for _, p := range group {
				p.done <- outcome{err: c.transact([]*pending{p})}
			}
			return
		}
		for _, p := range group {
			p.done <- outcome{err: err}
		}
		return
	}
}

func without(group []*pending, p *pending) []*pending {
	out := make([]*pending, 0, len(group)-1)
	for _, g := range group {
		if g != p {
			out = append(out, g)
		}
	}
	return out
}

// transact appends each run's results to its workflow (in group order,
// the workflows first: commands' append order), then the charges and the
// settlements of them all to the org's ledger under the org's lock, then
// the slots of the runs that ended, in one transaction; it waits for the
// WAL flush only when it ends a run (decision 44).
func (c *charger) transact(group []*pending) error {
	first := group[0]
	ctx, cancel := context.WithTimeout(context.WithoutCancel(first.ctx), groupTimeout)
	defer cancel()
	org := first.r.wf.OrgID()
	// the ledger's append is one for the group: a run's own metadata when
	// it is alone (as an ungrouped charge), else what the runs share (the
	// org, the actor), since it correlates with more than one run
	meta := event.MetadataFrom(first.ctx)
	if len(group) > 1 {
		meta = event.Metadata{OrgID: meta.OrgID, Actor: meta.Actor}
	}
	ctx = event.WithMetadata(ctx, meta)
	var (
		settlements []credit.Settlement
		ended       []string
	)
	for _, p := range group {
		if p.settle != nil {
			settlements = append(settlements, *p.settle)
			ended = append(ended, p.r.wf.ID())
		}
	}
	// a group that ends a run commits as EndRun's transaction does
	_, err := c.repos.Store.Run(ctx, eventstore.TxOptions{Async: len(ended) == 0}, func(tx *eventstore.Tx) error {
		var charges []credit.Charged
		for _, p := range group {
			_, err := c.repos.Workflows.SaveWith(tx, p.r.wf.ID(), p.r.wf, event.MetadataFrom(p.ctx), p.results...)
			if c.repos.Workflows.Conflict(err, p.r.wf.ID()) {
				return &lostRun{p: p}
			}
			if err != nil {
				return err
			}
			charges = append(charges, p.charges...)
		}
		if len(charges) == 0 && len(settlements) == 0 {
			return nil
		}
		ledger, err := commands.LoadLedger(tx, c.repos, org)
		if err != nil {
			return err
		}
		decided, _, err := ledger.Decide(charges, settlements)
		if err != nil {
			return err
		}
		if len(decided) > 0 {
			if _, err := c.repos.Ledgers.SaveWith(tx, org, ledger, meta, decided...); err != nil {
				return err
			}
		}
		if len(ended) == 0 {
			return nil
		}
		return commands.ReleaseSlots(tx, c.repos, org, ended)
	})
	return err
}
