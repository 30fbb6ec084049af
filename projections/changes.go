package projections

import (
	"slices"

	"svc/domain/workflow"
)

// WorkflowChanged returns a channel signalled (coalesced) after each commit
// that appends to workflow id's stream, in this process and, while the
// store's Push runs, in every other; and a function that stops the signals.
// An event stream (SSE) waits on it instead of polling.
func (q *Queries) WorkflowChanged(id string) (<-chan struct{}, func()) {
	return q.store.SubscribeStream(workflow.Stream(id))
}

// PrincipalsChanged returns a channel signalled after the keys or the
// organizations read model changed, in any process while the store's Push
// runs: a cache of principals (PrincipalByHash) drops its entries then,
// so a revoked key or a new tier counts at once on every instance.
func (q *Queries) PrincipalsChanged() (<-chan struct{}, func()) {
	return q.store.SubscribeTypes(Moved(Keys{}.Name()), Moved(Organizations{}.Name()))
}

// OnPrincipalsWritten registers f, run by WaitFor before it returns when a
// command's events fed the keys or the organizations read model: a cache
// of principals in this process drops its entries before the command
// answers, so the caller's very next request sees the revoked key or the
// new tier (PrincipalsChanged reaches the other processes a moment later).
// Register before serving.
func (q *Queries) OnPrincipalsWritten(f func()) { q.principalHooks = append(q.principalHooks, f) }

// principalsWritten runs the hooks when names include a principal read
// model.
func (q *Queries) principalsWritten(names []string) {
	if slices.Contains(names, Keys{}.Name()) || slices.Contains(names, Organizations{}.Name()) {
		for _, f := range q.principalHooks {
			f()
		}
	}
}
