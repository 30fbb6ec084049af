package projections

import (
	"context"
	"sync"
	"time"
)

// Waves shares a read among the callers that ask for the same key while
// one is under way, without ever answering a caller from a read that
// began before it asked: a caller that arrives while a read runs joins the
// next one, which starts when the running one ends. Under load a key is
// read once per wave of callers instead of once per caller, and every
// answer still reflects whatever committed before its caller asked (what
// read-your-writes needs).
type Waves[K comparable, V any] struct {
	// Bound bounds each read, which runs under no caller's cancellation
	// (default 5 s).
	Bound time.Duration

	mu      sync.Mutex
	flights map[K]*waveFlights[V]
}

type waveFlights[V any] struct{ running, next *waveRead[V] }

type waveRead[V any] struct {
	done chan struct{}
	val  V
	err  error
}

// Do returns read's answer for key from a read that began after Do was
// called, shared with the other callers of that wave.
func (w *Waves[K, V]) Do(ctx context.Context, key K, read func(ctx context.Context) (V, error)) (V, error) {
	w.mu.Lock()
	if w.flights == nil {
		w.flights = map[K]*waveFlights[V]{}
	}
	st := w.flights[key]
	if st == nil {
		st = &waveFlights[V]{}
		w.flights[key] = st
	}
	if st.running == nil { // nothing under way: read now
		r := &waveRead[V]{done: make(chan struct{})}
		st.running = r
		w.mu.Unlock()
		w.run(ctx, key, st, r, read)
		return r.val, r.err
	}
	if r := st.next; r != nil { // the next read is already awaited: share it
		w.mu.Unlock()
		return wait(ctx, r)
	}
	r := &waveRead[V]{done: make(chan struct{})}
	st.next = r
	prev := st.running
	w.mu.Unlock()
	<-prev.done
	w.mu.Lock()
	st.running, st.next = r, nil
	w.mu.Unlock()
	w.run(ctx, key, st, r, read)
	return r.val, r.err
}

func wait[V any](ctx context.Context, r *waveRead[V]) (V, error) {
	select {
	case <-r.done:
		return r.val, r.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// run runs r for the callers sharing it.
func (w *Waves[K, V]) run(ctx context.Context, key K, st *waveFlights[V], r *waveRead[V], read func(ctx context.Context) (V, error)) {
	bound := w.Bound
	if bound <= 0 {
		bound = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	r.val, r.err = read(ctx)
	close(r.done)
	w.mu.Lock()
	defer w.mu.Unlock()
	if st.running == r {
		st.running = nil
		if st.next == nil && w.flights[key] == st {
			delete(w.flights, key)
		}
	}
}
