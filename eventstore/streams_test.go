package eventstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"svc/eventstore"
	"svc/eventstore/event"
)

// TestReadRanges: several streams' version ranges in one statement, each
// stream's events in version order, the streams in the ranges' order.
func TestReadRanges(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, stream := range []string{"a", "b"} {
		for v := range 4 {
			if _, err := s.Append(ctx, stream, int64(v)-1, ev("E", map[string]int{"v": v})); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := eventstore.ReadRanges(ctx, testDB.Pool, []eventstore.StreamRange{{Stream: "b", From: 2, To: 3}, {Stream: "a", From: 0, To: 1},
		{Stream: "missing", From: 0, To: 9}})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range got {
		seen = append(seen, fmt.Sprintf("%s%d", e.StreamID, e.Version))
	}
	if want := []string{"b2", "b3", "a0", "a1"}; !slices.Equal(seen, want) {
		t.Fatalf("read %v, want %v", seen, want)
	}
	if none, err := eventstore.ReadRanges(ctx, testDB.Pool, nil); err != nil || len(none) != 0 {
		t.Fatalf("no ranges: %v %v", none, err)
	}
}

// TestAppendNew: new streams started in one statement inside a
// transaction, with the transaction's metadata; one that exists fails the
// whole transaction with a conflict on it, and nothing is appended.
func TestAppendNew(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	org := uuid.NewString()
	wake, stop := s.SubscribeTypes("Started")
	defer stop()
	_, err := s.Run(ctx, eventstore.TxOptions{Metadata: event.Metadata{OrgID: org, Actor: "system"}}, func(tx *eventstore.Tx) error {
		return tx.AppendNew(eventstore.StreamStart{Stream: "n1", Events: []event.New{ev("Started", nil), ev("Then", nil)}},
			eventstore.StreamStart{Stream: "n2", Events: []event.New{ev("Started", nil)}})
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	default:
		t.Error("subscribers not told of the appends")
	}
	for stream, n := range map[string]int{"n1": 2, "n2": 1} {
		events, err := s.Load(ctx, stream)
		if err != nil || len(events) != n || events[0].Metadata.OrgID != org || events[0].Metadata.Actor != "system" {
			t.Fatalf("%s: %+v %v", stream, events, err)
		}
	}
	_, err = s.Run(ctx, eventstore.TxOptions{Attempts: 1}, func(tx *eventstore.Tx) error {
		return tx.AppendNew(eventstore.StreamStart{Stream: "n3", Events: []event.New{ev("Started", nil)}},
			eventstore.StreamStart{Stream: "n1", Events: []event.New{ev("Started", nil)}})
	})
	var conflict *event.ConflictError
	if !errors.As(err, &conflict) || conflict.Stream != "n1" || !errors.Is(err, event.ErrConcurrency) {
		t.Fatalf("a stream that exists: %v", err)
	}
	if events, _ := s.Load(ctx, "n3"); len(events) != 0 {
		t.Fatalf("n3 appended in a failed transaction: %+v", events)
	}
}
