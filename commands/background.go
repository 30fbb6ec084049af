package commands

import (
	"context"
	"sync"
)

// Background tracks work a handler starts once its command has committed
// (the verification mail of a signup), so that the process can wait for
// it at shutdown.
type Background struct{ wg sync.WaitGroup }

// Go runs f in its own goroutine, tracked until it returns.
func (b *Background) Go(f func()) { b.wg.Go(f) }

// Wait blocks until the work started with Go has finished, or ctx ends
// (its error is then returned).
func (b *Background) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
