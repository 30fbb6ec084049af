package event

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Receipt records what the appends made under one context wrote: the
// position of the last event and the set of event types. A command's
// caller reads it to wait until every read model those types feed has
// caught up (read-your-writes), without the command naming them.
type Receipt struct {
	mu     sync.Mutex
	last   Position
	types  map[string]bool
	writes int
	fenced map[string]int // caller -> how many of the writes fenced it
}

type receiptKey struct{}

// WithReceipt returns a context whose committed appends are recorded on
// the returned receipt.
func WithReceipt(ctx context.Context) (context.Context, *Receipt) {
	r := &Receipt{types: map[string]bool{}}
	return context.WithValue(ctx, receiptKey{}, r), r
}

// ReceiptFrom returns the receipt ctx carries, nil when it carries none.
func ReceiptFrom(ctx context.Context) *Receipt {
	r, _ := ctx.Value(receiptKey{}).(*Receipt)
	return r
}

// Record notes committed events of types ending at pos; a nil receipt
// records nothing. Stores call it after each commit.
func (r *Receipt) Record(pos Position, types ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	if r.last.Less(pos) {
		r.last = pos
	}
	for _, t := range types {
		r.types[t] = true
	}
}

// Last is the position of the last event recorded (zero for none).
func (r *Receipt) Last() Position {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Types lists the event types recorded, sorted.
func (r *Receipt) Types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.types))
}

// Fenced notes that the write just recorded left read fences for callers
// (eventstore.Tx.Fence); a nil receipt notes nothing.
func (r *Receipt) Fenced(callers ...string) {
	if r == nil || len(callers) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fenced == nil {
		r.fenced = map[string]int{}
	}
	for _, c := range callers {
		r.fenced[c]++
	}
}

// FencedFor reports whether every write recorded left caller's read
// fences (false when none was recorded).
func (r *Receipt) FencedFor(caller string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes > 0 && r.fenced[caller] == r.writes
}
