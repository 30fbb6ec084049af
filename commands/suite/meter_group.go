package suite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"svc/commands"
	"svc/domain/credit"
	domain "svc/domain/suite"
	"svc/eventstore"
	"svc/eventstore/event"
)

// Grouped operations. Run is one transaction per operation, and every
// charge takes the organization's lock: the operations of one busy
// organization queue on it, one commit at a time. RunGrouped lets the
// operations of an organization that arrive while one of its transactions
// is under way share the next one, as the worker groups step charges
// (commands/worker/charge.go): the ledger decides all their charges in one
// append (in arrival order, each answered the balance after its own
// charge), and their events are appended to one new stream (the
// operation's stream kind, a fresh id), under one lock and one commit: a
// group costs the same round trips as one operation. An operation alone writes at once: grouping
// adds no wait, it only shares the next transaction among those queued
// behind the one in flight.
//
// Grouping never changes an outcome: a group that fails (the balance does
// not cover every charge) is written again one operation at a time, so
// each gets the answer Run would give. The events of a group share their
// metadata (the organization; an operation alone keeps its own): what
// tells them apart (a request id, the key) belongs in their data.

// maxGroup bounds the operations of one transaction.
const maxGroup = 64

// groupTimeout bounds a group's transaction, which runs under no
// operation's cancellation (one caller leaving must not fail the others).
const groupTimeout = 30 * time.Second

// groups are the meters' queues of grouped operations, by meter.
var groups sync.Map // *Meter -> *meterGroups

type meterGroups struct {
	mu   sync.Mutex
	orgs map[string]*groupQueue
}

type groupQueue struct {
	waiting []*groupedOp
	busy    bool
}

type groupedOp struct {
	ctx    context.Context
	c      Caller
	op     domain.Op
	stream func(id string) string
	// prepare decides the operation's events; ready closes once it has
	// (data, or the error that takes the operation out of its group)
	prepare func() ([]event.Data, error)
	ready   chan struct{}
	data    []event.Data
	err     error
	done    chan groupOutcome
}

type groupOutcome struct {
	receipt Receipt
	err     error
	lead    bool
}

// RunGrouped is Run for operations an organization makes many of at once
// (GuardRail's checks): prepare decides the operation's events, which are
// appended to a new stream of kind stream, and op's price is charged, in
// one transaction it may share with the organization's other operations
// of op (whose events join the same stream). The operation takes its
// place in the queue before prepare runs, so what prepare reads overlaps
// the wait for the transaction in flight; prepare must read what it
// decides from only after it is called. An error of prepare is returned
// as it is, and nothing is charged. Once RunGrouped returns, the caller's
// receipt (event.ReceiptFrom) holds the transaction's appends, as Run's
// would. The charge is refused with ErrInsufficientCredits.
func (m *Meter) RunGrouped(ctx context.Context, c Caller, op domain.Op, stream func(id string) string, prepare func() ([]event.Data, error)) (Receipt, error) {
	v, _ := groups.LoadOrStore(m, &meterGroups{orgs: map[string]*groupQueue{}})
	g := v.(*meterGroups)
	p := &groupedOp{ctx: ctx, c: c, op: op, stream: stream, prepare: prepare, ready: make(chan struct{}),
		done: make(chan groupOutcome, 1)}
	qk := c.OrgID + " " + op.String()
	g.mu.Lock()
	q := g.orgs[qk]
	if q == nil {
		q = &groupQueue{}
		g.orgs[qk] = q
	}
	q.waiting = append(q.waiting, p)
	lead := !q.busy
	q.busy = true
	g.mu.Unlock()
	p.data, p.err = p.prepare()
	close(p.ready)
	if lead {
		m.lead(g, qk, q)
	}
	for {
		o := <-p.done
		if !o.lead {
			return o.receipt, o.err
		}
		m.lead(g, qk, q)
	}
}

// lead writes the next group of q, then hands the lead to the first
// operation that queued meanwhile (or leaves q idle).
func (m *Meter) lead(g *meterGroups, qk string, q *groupQueue) {
	g.mu.Lock()
	n := min(len(q.waiting), maxGroup)
	group := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	g.mu.Unlock()

	// the operations prepared: those that failed leave the group
	prepared := group[:0:0]
	for _, p := range group {
		<-p.ready
		if p.err != nil {
			p.done <- groupOutcome{err: p.err}
			continue
		}
		prepared = append(prepared, p)
	}
	if len(prepared) > 0 {
		m.writeGroup(prepared)
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	if len(q.waiting) == 0 {
		q.busy = false
		delete(g.orgs, qk)
		return
	}
	q.waiting[0].done <- groupOutcome{lead: true}
}

// writeGroup writes group and tells each operation its outcome: a group
// that failed is written again one operation at a time.
func (m *Meter) writeGroup(group []*groupedOp) {
	receipts, err := m.transactGroup(group)
	if err != nil && len(group) > 1 {
		for _, p := range group {
			rs, err := m.transactGroup([]*groupedOp{p})
			p.done <- groupOutcome{receipt: first(rs), err: err}
		}
		return
	}
	for i, p := range group {
		var rc Receipt
		if err == nil {
			rc = receipts[i]
		}
		p.done <- groupOutcome{receipt: rc, err: err}
	}
}

func first(rs []Receipt) Receipt {
	if len(rs) == 0 {
		return Receipt{}
	}
	return rs[0]
}

// transactGroup charges every operation of group to the organization's
// ledger (under its lock, in one append) and appends their events to one
// new stream, in one transaction; each operation's receipt records the
// transaction's appends.
func (m *Meter) transactGroup(group []*groupedOp) ([]Receipt, error) {
	lead := group[0]
	org := lead.c.OrgID
	ctx, cancel := context.WithTimeout(context.WithoutCancel(lead.ctx), groupTimeout)
	defer cancel()
	// the appends are one for the group: an operation's own metadata when
	// it is alone, else only the organization's
	if len(group) > 1 {
		ctx = event.WithMetadata(ctx, event.Metadata{OrgID: org})
	}
	ctx, written := event.WithReceipt(ctx)
	receipts := make([]Receipt, len(group))
	callers := make([]string, len(group))
	for i, p := range group {
		callers[i] = event.MetadataFrom(p.ctx).Actor
	}
	var (
		total int64
		data  []event.Data
	)
	for _, p := range group {
		total += p.op.Credits
		data = append(data, p.data...)
	}
	_, err := m.repos.Store.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: org}}, func(tx *eventstore.Tx) error {
		tx.Fence(callers...)
		if total > 0 {
			ledger, err := commands.LoadLedger(tx, m.repos, org)
			if err != nil {
				return err
			}
			now := time.Now()
			charges := make([]credit.Charged, 0, len(group))
			for _, p := range group {
				if p.op.Credits > 0 {
					charges = append(charges, credit.Charged{OrgID: org, Amount: p.op.Credits, Reason: p.op.String(),
						KeyID: p.c.KeyID, AgentID: p.c.AgentID, WorkspaceID: p.c.WorkspaceID, Month: credit.MonthOf(now)})
				}
			}
			decided, err := ledger.ChargeAll(charges)
			if err != nil {
				return err
			}
			balance := ledger.Balance()
			for i, p := range group {
				balance -= p.op.Credits
				receipts[i] = Receipt{CreditsUsed: p.op.Credits, CreditsRemaining: balance}
			}
			if _, err := m.repos.Ledgers.Save(tx, org, ledger, decided...); err != nil {
				return err
			}
		}
		if len(data) == 0 {
			return nil
		}
		_, err := tx.Append(lead.stream(uuid.NewString()), event.NewStream, data...)
		return err
	})
	if errors.Is(err, credit.ErrInsufficient) {
		return nil, fmt.Errorf("%s: %w", lead.op, ErrInsufficientCredits)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", lead.op, err)
	}
	if last := written.Last(); !last.IsZero() {
		for i, p := range group {
			rc := event.ReceiptFrom(p.ctx)
			rc.Record(last, written.Types()...)
			if written.FencedFor(callers[i]) {
				rc.Fenced(callers[i])
			}
		}
	}
	if total == 0 {
		for i, p := range group {
			rc, err := m.Balance(p.ctx, p.c)
			if err != nil {
				return nil, err
			}
			receipts[i] = rc
		}
	}
	return receipts, nil
}
