package eventstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/eventstore"
	"svc/eventstore/event"
)

// EventStore is what the conformance suite needs from an event store
// implementation.
type EventStore interface {
	Append(ctx context.Context, stream string, expected int64, events ...event.New) (event.Position, error)
	AppendTx(ctx context.Context, tx pgx.Tx, stream string, expected int64, events ...event.New) (event.Position, error)
	Transact(ctx context.Context, fn func(tx pgx.Tx) error) error
	Load(ctx context.Context, stream string) ([]event.Event, error)
	ReadAll(ctx context.Context, db eventstore.DB, after event.Position, limit int, f eventstore.Filter) ([]event.Event, error)
	Subscribe() (<-chan struct{}, func())
}

var _ EventStore = (*eventstore.Store)(nil)

// Harness runs the conformance suite against one implementation.
type Harness struct {
	// Open returns the implementation over an empty log, and the DB that
	// ReadAll reads through.
	Open func(t *testing.T) (EventStore, eventstore.DB)
	// Settle waits until every committed event is visible to ReadAll.
	Settle func(t *testing.T)
}

func TestPostgresStoreConformance(t *testing.T) {
	runConformance(t, Harness{
		Open: func(t *testing.T) (EventStore, eventstore.DB) {
			return newStore(t), testDB.Pool
		},
		Settle: settle,
	})
}

const (
	org1 = "0b6f7e1c-2f59-4a44-9a55-2f0d3c1d9a01"
	org2 = "7f3a9d62-0c1e-4b8e-8f1d-5a2b6c7d8e02"
)

// runConformance is the behaviour every event store implementation must have.
func runConformance(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("AppendNewStreamVersionsFromZero", func(t *testing.T) {
		s, _ := h.Open(t)
		p1, err := s.Append(ctx, "order-1", event.NewStream, ev("Placed", map[string]int{"n": 1}), ev("Paid", map[string]int{"n": 2}))
		if err != nil {
			t.Fatalf("append new stream: %v", err)
		}
		if p1.IsZero() {
			t.Fatal("append returned the zero position")
		}
		p2, err := s.Append(ctx, "order-1", 1, ev("Shipped", nil))
		if err != nil {
			t.Fatalf("append at version 1: %v", err)
		}
		if !p1.Less(p2) {
			t.Fatalf("second append position %+v not after first %+v", p2, p1)
		}
		got, err := s.Load(ctx, "order-1")
		if err != nil {
			t.Fatal(err)
		}
		wantTypes := []string{"Placed", "Paid", "Shipped"}
		if len(got) != len(wantTypes) {
			t.Fatalf("loaded %d events, want %d", len(got), len(wantTypes))
		}
		for i, e := range got {
			if e.Version != int64(i) || e.Type != wantTypes[i] || e.StreamID != "order-1" {
				t.Errorf("event %d: version %d type %q stream %q; want version %d type %q", i, e.Version, e.Type, e.StreamID, i, wantTypes[i])
			}
		}
		if got[1].Position != p1 {
			t.Errorf("first append returned %+v, its last event is at %+v", p1, got[1].Position)
		}
		if got[2].Position != p2 {
			t.Errorf("second append returned %+v, its event is at %+v", p2, got[2].Position)
		}
		if string(got[2].Data) != "{}" {
			t.Errorf("nil data stored as %s, want {}", got[2].Data)
		}
	})

	t.Run("WrongExpectedVersionConflicts", func(t *testing.T) {
		s, _ := h.Open(t)
		if _, err := s.Append(ctx, "acct", event.NewStream, ev("A", nil), ev("B", nil)); err != nil {
			t.Fatal(err)
		}
		for _, expected := range []int64{0, 2, 7} {
			_, err := s.Append(ctx, "acct", expected, ev("C", nil))
			if !errors.Is(err, event.ErrConcurrency) {
				t.Fatalf("expected %d: err %v, want ErrConcurrency", expected, err)
			}
			var ce *event.ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("expected %d: err %T is not a *ConflictError", expected, err)
			}
			if ce.Stream != "acct" || ce.Expected != expected || ce.Actual != 1 {
				t.Errorf("conflict %+v, want stream acct expected %d actual 1", *ce, expected)
			}
		}
		_, err := s.Append(ctx, "missing", 0, ev("A", nil))
		var ce *event.ConflictError
		if !errors.As(err, &ce) || ce.Actual != -1 {
			t.Errorf("append at version 0 to a missing stream: %v, want a conflict with actual -1", err)
		}
		got, err := s.Load(ctx, "acct")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Errorf("conflicting appends changed the stream: %d events, want 2", len(got))
		}
		if got, _ := s.Load(ctx, "missing"); len(got) != 0 {
			t.Errorf("conflicting append created the missing stream: %d events", len(got))
		}
	})

	t.Run("NewStreamOnExistingStreamConflicts", func(t *testing.T) {
		s, _ := h.Open(t)
		if _, err := s.Append(ctx, "user-1", event.NewStream, ev("Registered", nil)); err != nil {
			t.Fatal(err)
		}
		_, err := s.Append(ctx, "user-1", event.NewStream, ev("Registered", nil))
		if !errors.Is(err, event.ErrConcurrency) {
			t.Fatalf("second NewStream append: %v, want ErrConcurrency", err)
		}
		var ce *event.ConflictError
		if !errors.As(err, &ce) || ce.Expected != event.NewStream || ce.Actual != 0 {
			t.Fatalf("conflict %v, want expected -1 actual 0", err)
		}
		if got, _ := s.Load(ctx, "user-1"); len(got) != 1 {
			t.Errorf("stream has %d events, want 1", len(got))
		}
	})

	t.Run("AnyVersion", func(t *testing.T) {
		s, _ := h.Open(t)
		for i := 0; i < 3; i++ {
			if _, err := s.Append(ctx, "log", event.AnyVersion, ev("Line", map[string]int{"i": i}), ev("Line", map[string]int{"i": i})); err != nil {
				t.Fatalf("AnyVersion append %d: %v", i, err)
			}
		}
		got, err := s.Load(ctx, "log")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 6 {
			t.Fatalf("loaded %d events, want 6", len(got))
		}
		for i, e := range got {
			if e.Version != int64(i) {
				t.Errorf("event %d has version %d", i, e.Version)
			}
		}
	})

	t.Run("LoadReturnsEverything", func(t *testing.T) {
		s, _ := h.Open(t)
		type placed struct {
			Item  string  `json:"item"`
			Price float64 `json:"price"`
			Tags  []string
		}
		meta := event.Metadata{OrgID: org1, Actor: "user:42", RequestID: "req-1", CorrelationID: "corr-1", CausationID: "cause-1"}
		before := time.Now()
		_, err := s.Append(ctx, "cart-9", event.NewStream,
			event.New{Data: data{"ItemAdded", placed{Item: "pen", Price: 1.5, Tags: []string{"a"}}}, Metadata: meta},
			event.New{Data: data{"Raw", json.RawMessage(`{"b":[1,2,{"c":null}],"a":"x"}`)}, Metadata: meta},
			event.New{Data: data{"Bytes", []byte(`[true,"é"]`)}, Metadata: meta},
		)
		if err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		if _, err := s.Append(ctx, "other", event.NewStream, ev("Noise", nil)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "cart-9")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("loaded %d events, want 3", len(got))
		}
		wantData := []string{`{"item":"pen","price":1.5,"Tags":["a"]}`, `{"b":[1,2,{"c":null}],"a":"x"}`, `[true,"é"]`}
		ids := map[uuid.UUID]bool{}
		for i, e := range got {
			if e.StreamID != "cart-9" || e.Version != int64(i) {
				t.Errorf("event %d: stream %q version %d", i, e.StreamID, e.Version)
			}
			if e.Type != []string{"ItemAdded", "Raw", "Bytes"}[i] {
				t.Errorf("event %d: type %q", i, e.Type)
			}
			if !jsonEqual(t, e.Data, []byte(wantData[i])) {
				t.Errorf("event %d: data %s, want %s", i, e.Data, wantData[i])
			}
			if e.Metadata != meta {
				t.Errorf("event %d: metadata %+v, want %+v", i, e.Metadata, meta)
			}
			if e.ID == uuid.Nil || ids[e.ID] {
				t.Errorf("event %d: id %v nil or repeated", i, e.ID)
			}
			ids[e.ID] = true
			if e.Position.IsZero() || e.Position.TransactionID == 0 || e.Position.Global <= 0 {
				t.Errorf("event %d: position %+v", i, e.Position)
			}
			if i > 0 {
				if !got[i-1].Position.Less(e.Position) {
					t.Errorf("event %d: position %+v not after %+v", i, e.Position, got[i-1].Position)
				}
				if e.Position.TransactionID != got[0].Position.TransactionID {
					t.Errorf("events of one append in different transactions: %d vs %d", e.Position.TransactionID, got[0].Position.TransactionID)
				}
			}
			if e.RecordedAt.Before(before.Add(-5*time.Second)) || e.RecordedAt.After(after.Add(5*time.Second)) {
				t.Errorf("event %d: recorded at %v, outside [%v, %v]", i, e.RecordedAt, before, after)
			}
		}
		var p placed
		if err := got[0].Decode(&p); err != nil || p.Item != "pen" || p.Price != 1.5 || len(p.Tags) != 1 {
			t.Errorf("Decode: %+v, %v", p, err)
		}
		if err := got[2].Decode(&p); err == nil {
			t.Error("Decode of an array into a struct succeeded")
		}
		if none, err := s.Load(ctx, "no-such-stream"); err != nil || len(none) != 0 {
			t.Errorf("Load of a missing stream: %d events, %v", len(none), err)
		}
	})

	t.Run("MetadataFromContextFillsEmptyFields", func(t *testing.T) {
		s, _ := h.Open(t)
		full := event.Metadata{OrgID: org1, Actor: "user:ctx", RequestID: "req-ctx", CorrelationID: "corr-ctx", CausationID: "cause-ctx"}
		cctx := event.WithMetadata(ctx, full)
		if got := event.MetadataFrom(cctx); got != full {
			t.Fatalf("MetadataFrom = %+v", got)
		}
		own := event.Metadata{OrgID: org2, Actor: "key:own", RequestID: "req-own", CorrelationID: "corr-own", CausationID: "cause-own"}
		_, err := s.Append(cctx, "m", event.NewStream,
			event.New{Data: data{"Partial", nil}, Metadata: event.Metadata{Actor: "key:own"}},
			event.New{Data: data{"Own", nil}, Metadata: own},
			event.New{Data: data{"Empty", nil}},
		)
		if err != nil {
			t.Fatal(err)
		}
		// Without correlation id anywhere, the request id stands in for it.
		_, err = s.Append(event.WithMetadata(ctx, event.Metadata{RequestID: "req-2"}), "m", 2, event.New{Data: data{"Correlated", nil}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, "m", 3, event.New{Data: data{"Bare", nil}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		want := []event.Metadata{
			{OrgID: org1, Actor: "key:own", RequestID: "req-ctx", CorrelationID: "corr-ctx", CausationID: "cause-ctx"},
			own,
			full,
			{RequestID: "req-2", CorrelationID: "req-2"},
			{},
		}
		if len(got) != len(want) {
			t.Fatalf("loaded %d events, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].Metadata != want[i] {
				t.Errorf("event %d (%s): metadata %+v, want %+v", i, got[i].Type, got[i].Metadata, want[i])
			}
		}
	})

	t.Run("ReadAllOrderPagingAndFilters", func(t *testing.T) {
		s, db := h.Open(t)
		m1 := event.Metadata{OrgID: org1}
		m2 := event.Metadata{OrgID: org2}
		appends := []struct {
			stream   string
			expected int64
			events   []event.New
		}{
			{"acct-1", event.NewStream, []event.New{{Data: data{"Opened", nil}, Metadata: m1}}},
			{"acct-2", event.NewStream, []event.New{{Data: data{"Opened", nil}, Metadata: m2}}},
			{"acct-1", 0, []event.New{{Data: data{"Deposited", map[string]int{"amount": 5}}, Metadata: m1}}},
			{"acct-3", event.NewStream, []event.New{{Data: data{"Opened", nil}}}},
			{"acct-2", 0, []event.New{{Data: data{"Deposited", nil}, Metadata: m2}, {Data: data{"Withdrawn", nil}, Metadata: m2}}},
		}
		var want []string
		for _, a := range appends {
			if _, err := s.Append(ctx, a.stream, a.expected, a.events...); err != nil {
				t.Fatal(err)
			}
			for _, e := range a.events {
				want = append(want, a.stream+"/"+e.Type())
			}
		}
		names := func(events []event.Event) []string {
			out := make([]string, 0, len(events))
			for _, e := range events {
				out = append(out, e.StreamID+"/"+e.Type)
			}
			return out
		}
		h.Settle(t)
		all, err := s.ReadAll(ctx, db, event.Position{}, 0, eventstore.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(names(all), want) {
			t.Fatalf("ReadAll = %v, want %v", names(all), want)
		}
		assertStrictOrder(t, all)
		if !jsonEqual(t, all[2].Data, []byte(`{"amount":5}`)) || all[2].Metadata.OrgID != org1 {
			t.Errorf("ReadAll event 2: data %s metadata %+v", all[2].Data, all[2].Metadata)
		}
		for _, size := range []int{1, 2, 4, 6, 7} {
			var paged []event.Event
			var after event.Position
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatalf("page size %d: paging does not end", size)
				}
				page, err := s.ReadAll(ctx, db, after, size, eventstore.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				if len(page) > size {
					t.Fatalf("page size %d: got %d events", size, len(page))
				}
				if len(page) == 0 {
					break
				}
				paged = append(paged, page...)
				after = page[len(page)-1].Position
			}
			if !reflect.DeepEqual(names(paged), want) {
				t.Errorf("page size %d: %v, want %v", size, names(paged), want)
			}
		}
		rest, err := s.ReadAll(ctx, db, all[2].Position, 10, eventstore.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(names(rest), want[3:]) {
			t.Errorf("after event 2: %v, want %v", names(rest), want[3:])
		}
		if none, err := s.ReadAll(ctx, db, all[len(all)-1].Position, 10, eventstore.Filter{}); err != nil || len(none) != 0 {
			t.Errorf("after the last event: %d events, %v", len(none), err)
		}
		filters := []struct {
			name string
			f    eventstore.Filter
			want []string
		}{
			{"org1", eventstore.Filter{OrgID: org1}, []string{"acct-1/Opened", "acct-1/Deposited"}},
			{"org2", eventstore.Filter{OrgID: org2}, []string{"acct-2/Opened", "acct-2/Deposited", "acct-2/Withdrawn"}},
			{"unknown org", eventstore.Filter{OrgID: uuid.NewString()}, nil},
			{"types", eventstore.Filter{Types: []string{"Deposited", "Withdrawn"}}, []string{"acct-1/Deposited", "acct-2/Deposited", "acct-2/Withdrawn"}},
			{"one type", eventstore.Filter{Types: []string{"Opened"}}, []string{"acct-1/Opened", "acct-2/Opened", "acct-3/Opened"}},
			{"until", eventstore.Filter{Until: all[2].Position}, want[:3]},
			{"until last", eventstore.Filter{Until: all[len(all)-1].Position}, want},
			{"org and type", eventstore.Filter{OrgID: org2, Types: []string{"Deposited"}}, []string{"acct-2/Deposited"}},
			{"org and until", eventstore.Filter{OrgID: org2, Until: all[4].Position}, []string{"acct-2/Opened", "acct-2/Deposited"}},
		}
		for _, c := range filters {
			got, err := s.ReadAll(ctx, db, event.Position{}, 100, c.f)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !reflect.DeepEqual(names(got), c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("filter %s: %v, want %v", c.name, names(got), c.want)
			}
			assertStrictOrder(t, got)
		}
		// Filters page too.
		page, err := s.ReadAll(ctx, db, all[0].Position, 1, eventstore.Filter{OrgID: org1})
		if err != nil || len(page) != 1 || page[0].Type != "Deposited" {
			t.Errorf("org1 page after event 0: %v, %v", names(page), err)
		}
	})

	t.Run("InvalidInputRejected", func(t *testing.T) {
		s, db := h.Open(t)
		cases := []struct {
			name     string
			ctx      context.Context
			stream   string
			expected int64
			events   []event.New
		}{
			{"empty stream", ctx, "", event.NewStream, []event.New{ev("A", nil)}},
			{"no events", ctx, "s", event.NewStream, nil},
			{"expected -3", ctx, "s", -3, []event.New{ev("A", nil)}},
			{"expected -100", ctx, "s", -100, []event.New{ev("A", nil)}},
			{"empty type", ctx, "s", event.NewStream, []event.New{ev("", nil)}},
			{"invalid raw JSON", ctx, "s", event.NewStream, []event.New{ev("A", json.RawMessage(`{"a":`))}},
			{"invalid JSON bytes", ctx, "s", event.NewStream, []event.New{ev("A", []byte("not json"))}},
			{"unmarshalable data", ctx, "s", event.NewStream, []event.New{ev("A", map[string]any{"f": func() {}})}},
			{"one bad event of two", ctx, "s", event.NewStream, []event.New{ev("A", nil), ev("B", json.RawMessage(`nope`))}},
			{"org id not a UUID", ctx, "s", event.NewStream, []event.New{{Data: data{"A", nil}, Metadata: event.Metadata{OrgID: "acme"}}}},
			{"org id from context not a UUID", event.WithMetadata(ctx, event.Metadata{OrgID: "42"}), "s", event.NewStream, []event.New{ev("A", nil)}},
		}
		for _, c := range cases {
			_, err := s.Append(c.ctx, c.stream, c.expected, c.events...)
			if err == nil {
				t.Errorf("%s: Append succeeded", c.name)
				continue
			}
			if errors.Is(err, event.ErrConcurrency) {
				t.Errorf("%s: %v is a concurrency error", c.name, err)
			}
			err = s.Transact(ctx, func(tx pgx.Tx) error {
				_, err := s.AppendTx(c.ctx, tx, c.stream, c.expected, c.events...)
				return err
			})
			if err == nil {
				t.Errorf("%s: AppendTx succeeded", c.name)
			}
		}
		h.Settle(t)
		all, err := s.ReadAll(ctx, db, event.Position{}, 100, eventstore.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 0 {
			t.Errorf("rejected appends stored %d events", len(all))
		}
		// The store still works afterwards.
		if _, err := s.Append(ctx, "s", event.NewStream, ev("A", json.RawMessage(`{"ok":true}`))); err != nil {
			t.Errorf("valid append after rejected ones: %v", err)
		}
	})

	t.Run("TransactIsAtomic", func(t *testing.T) {
		s, db := h.Open(t)
		if _, err := s.Append(ctx, "existing", event.NewStream, ev("Created", nil)); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		err := s.Transact(ctx, func(tx pgx.Tx) error {
			for i := 0; i < 3; i++ {
				if _, err := s.AppendTx(ctx, tx, fmt.Sprintf("t-%d", i), event.NewStream, ev("Made", nil), ev("Done", nil)); err != nil {
					return err
				}
			}
			if _, err := s.AppendTx(ctx, tx, "existing", 0, ev("Touched", nil)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Transact = %v, want boom", err)
		}
		err = s.Transact(ctx, func(tx pgx.Tx) error {
			if _, err := s.AppendTx(ctx, tx, "t-0", event.NewStream, ev("Made", nil)); err != nil {
				return err
			}
			_, err := s.AppendTx(ctx, tx, "existing", event.NewStream, ev("Again", nil))
			return err
		})
		if !errors.Is(err, event.ErrConcurrency) {
			t.Fatalf("Transact with a conflicting append = %v, want ErrConcurrency", err)
		}
		for _, stream := range []string{"t-0", "t-1", "t-2"} {
			if got, err := s.Load(ctx, stream); err != nil || len(got) != 0 {
				t.Errorf("rolled back stream %s: %d events, %v", stream, len(got), err)
			}
		}
		if got, _ := s.Load(ctx, "existing"); len(got) != 1 {
			t.Errorf("existing stream has %d events after rollbacks, want 1", len(got))
		}

		var last event.Position
		err = s.Transact(ctx, func(tx pgx.Tx) error {
			for i := 0; i < 3; i++ {
				p, err := s.AppendTx(ctx, tx, fmt.Sprintf("t-%d", i), event.NewStream, ev("Made", nil), ev("Done", nil))
				if err != nil {
					return err
				}
				last = p
			}
			_, err := s.AppendTx(ctx, tx, "existing", 0, ev("Touched", nil))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		h.Settle(t)
		all, err := s.ReadAll(ctx, db, event.Position{}, 100, eventstore.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 8 {
			t.Fatalf("ReadAll after commit: %d events, want 8", len(all))
		}
		assertStrictOrder(t, all)
		tx := all[1].Position.TransactionID
		for i, e := range all[1:] {
			if e.Position.TransactionID != tx {
				t.Errorf("event %d of the transaction in transaction %d, want %d", i, e.Position.TransactionID, tx)
			}
		}
		if all[6].Position != last {
			t.Errorf("AppendTx returned %+v, the event is at %+v", last, all[6].Position)
		}
		if all[7].StreamID != "existing" || all[7].Version != 1 {
			t.Errorf("last event %s v%d, want existing v1", all[7].StreamID, all[7].Version)
		}
	})

	t.Run("SubscribeSignalsCommitsOnly", func(t *testing.T) {
		s, _ := h.Open(t)
		ch, stop := s.Subscribe()
		defer stop()
		expectSignal := func(what string) {
			t.Helper()
			select {
			case <-ch:
			case <-time.After(2 * time.Second):
				t.Fatalf("no signal after %s", what)
			}
		}
		expectNone := func(what string) {
			t.Helper()
			select {
			case <-ch:
				t.Fatalf("signal after %s", what)
			case <-time.After(100 * time.Millisecond):
			}
		}
		expectNone("subscribing")
		if _, err := s.Append(ctx, "sub", event.NewStream, ev("A", nil)); err != nil {
			t.Fatal(err)
		}
		expectSignal("Append")
		if _, err := s.Append(ctx, "sub", event.NewStream, ev("A", nil)); err == nil {
			t.Fatal("conflicting append succeeded")
		}
		expectNone("a failed Append")

		boom := errors.New("boom")
		err := s.Transact(ctx, func(tx pgx.Tx) error {
			if _, err := s.AppendTx(ctx, tx, "sub", 0, ev("B", nil)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		expectNone("a rolled back Transact")

		err = s.Transact(ctx, func(tx pgx.Tx) error {
			if _, err := s.AppendTx(ctx, tx, "sub", 0, ev("B", nil)); err != nil {
				return err
			}
			select {
			case <-ch:
				return errors.New("signal before commit")
			case <-time.After(50 * time.Millisecond):
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		expectSignal("a committed Transact")

		// Two subscribers both hear; a stopped one does not.
		ch2, stop2 := s.Subscribe()
		if _, err := s.Append(ctx, "sub", 1, ev("C", nil)); err != nil {
			t.Fatal(err)
		}
		expectSignal("Append with two subscribers")
		select {
		case <-ch2:
		case <-time.After(2 * time.Second):
			t.Fatal("second subscriber got no signal")
		}
		stop2()
		if _, err := s.Append(ctx, "sub", 2, ev("D", nil)); err != nil {
			t.Fatal(err)
		}
		expectSignal("Append after the other subscriber stopped")
		select {
		case <-ch2:
			t.Fatal("stopped subscriber got a signal")
		case <-time.After(100 * time.Millisecond):
		}
	})
}
