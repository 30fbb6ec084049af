package eventstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"svc/eventstore"
	"svc/eventstore/event"
)

// TestGroupedAppendsKeepEachOutcome: many concurrent Append calls, which the
// store writes in shared statements, each get the outcome they would have had
// alone: right expected versions succeed, wrong ones conflict, multi-event
// calls stay contiguous, and calls on one stream are never merged.
func TestGroupedAppendsKeepEachOutcome(t *testing.T) {
	store := eventstore.New(widePool(t, 40))
	testDB.Reset(t)
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		if _, err := store.Append(ctx, fmt.Sprintf("g-%d", i), event.NewStream, event.New{Data: data{"Seed", nil}}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 150)
	for i := 0; i < 150; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := fmt.Sprintf("g-%d", i%50)
			switch i / 50 {
			case 0: // right version, two events
				_, errs[i] = store.Append(ctx, stream, 0, event.New{Data: data{"A", nil}}, event.New{Data: data{"B", nil}})
			case 1: // wrong version (the stream has one event at least)
				_, errs[i] = store.Append(ctx, stream, 7, event.New{Data: data{"Wrong", nil}})
			case 2: // any version, two calls per stream of their own
				_, errs[i] = store.Append(ctx, fmt.Sprintf("h-%d", i%25), event.AnyVersion, event.New{Data: data{"Any", nil}})
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		switch i / 50 {
		case 0, 2:
			if err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		case 1:
			var ce *event.ConflictError
			if !errors.As(err, &ce) || ce.Expected != 7 {
				t.Errorf("call %d: %v, want a conflict", i, err)
			}
		}
	}
	for i := 0; i < 50; i++ {
		events, err := store.Load(ctx, fmt.Sprintf("g-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 3 {
			t.Fatalf("stream g-%d has %d events, want 3", i, len(events))
		}
		for v, e := range events {
			if e.Version != int64(v) || e.Type == "Wrong" {
				t.Fatalf("stream g-%d: %+v", i, events)
			}
		}
		// A and B of one call: consecutive, in one transaction
		if events[1].Type != "A" || events[2].Type != "B" || events[1].Position.TransactionID != events[2].Position.TransactionID {
			t.Fatalf("stream g-%d: %+v", i, events)
		}
	}
	for i := 0; i < 25; i++ {
		events, err := store.Load(ctx, fmt.Sprintf("h-%d", i))
		if err != nil || len(events) != 2 || events[0].Version != 0 || events[1].Version != 1 {
			t.Fatalf("stream h-%d: %+v %v", i, events, err)
		}
	}
}
