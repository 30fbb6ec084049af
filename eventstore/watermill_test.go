package eventstore_test

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/eventstore"
	"svc/eventstore/event"
)

// errorLogger keeps the errors watermill logs, to show them when a test fails.
type errorLogger struct {
	mu     *sync.Mutex
	errs   *[]string
	fields watermill.LogFields
}

func newErrorLogger() errorLogger {
	return errorLogger{mu: &sync.Mutex{}, errs: new([]string)}
}

func (l errorLogger) Error(msg string, err error, fields watermill.LogFields) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*l.errs = append(*l.errs, fmt.Sprintf("%s: %v %v %v", msg, err, l.fields, fields))
}
func (l errorLogger) Info(string, watermill.LogFields)  {}
func (l errorLogger) Debug(string, watermill.LogFields) {}
func (l errorLogger) Trace(string, watermill.LogFields) {}
func (l errorLogger) With(fields watermill.LogFields) watermill.LoggerAdapter {
	l.fields = l.fields.Add(fields)
	return l
}
func (l errorLogger) errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), *l.errs...)
}

// wmConsumer reads and acknowledges a watermill subscription from the test goroutine.
type wmConsumer struct {
	t    *testing.T
	msgs <-chan *message.Message
	log  errorLogger
}

func (c wmConsumer) receive(n int) []*message.Message {
	c.t.Helper()
	var out []*message.Message
	for len(out) < n {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("subscription closed after %d of %d messages", len(out), n)
			}
			out = append(out, m)
			m.Ack()
		case <-time.After(15 * time.Second):
			c.t.Fatalf("received %d of %d messages; watermill errors: %v", len(out), n, c.log.errors())
		}
	}
	return out
}

func (c wmConsumer) expectNothing(d time.Duration, why string) {
	c.t.Helper()
	select {
	case m := <-c.msgs:
		m.Ack()
		c.t.Fatalf("%s: received %s (%s %s)", why, m.UUID, m.Metadata.Get("stream_id"), m.Metadata.Get("type"))
	case <-time.After(d):
	}
}

func subscribe(t *testing.T, ctx context.Context, group string) (*wsql.Subscriber, wmConsumer) {
	t.Helper()
	log := newErrorLogger()
	sub, err := eventstore.NewSubscriber(testDB.Pool, group, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	msgs, err := sub.Subscribe(ctx, eventstore.Topic)
	if err != nil {
		t.Fatal(err)
	}
	return sub, wmConsumer{t: t, msgs: msgs, log: log}
}

// assertMessage checks that m carries event e.
func assertMessage(t *testing.T, m *message.Message, e event.Event) {
	t.Helper()
	if m.UUID != e.ID.String() {
		t.Fatalf("message %s, want event %s (%s v%d %s)", m.UUID, e.ID, e.StreamID, e.Version, e.Type)
	}
	if string(m.Payload) != string(e.Data) {
		t.Errorf("message %s payload %s, want %s", m.UUID, m.Payload, e.Data)
	}
	want := map[string]string{
		"type":           e.Type,
		"stream_id":      e.StreamID,
		"version":        strconv.FormatInt(e.Version, 10),
		"position":       strconv.FormatInt(e.Position.Global, 10),
		"transaction_id": strconv.FormatUint(e.Position.TransactionID, 10),
		"org_id":         e.Metadata.OrgID,
		"actor":          e.Metadata.Actor,
		"request_id":     e.Metadata.RequestID,
		"correlation_id": e.Metadata.CorrelationID,
		"causation_id":   e.Metadata.CausationID,
	}
	for k, v := range want {
		if got := m.Metadata.Get(k); got != v {
			t.Errorf("message %s metadata %s = %q, want %q", m.UUID, k, got, v)
		}
	}
	at, err := time.Parse(time.RFC3339Nano, m.Metadata.Get("recorded_at"))
	if err != nil || !at.Equal(e.RecordedAt) {
		t.Errorf("message %s recorded_at %q (%v), want %v", m.UUID, m.Metadata.Get("recorded_at"), err, e.RecordedAt)
	}
}

// TestWatermillSubscriberDeliversCommittedEvents subscribes to the events
// table through watermill-sql: a consumer group gets every committed event
// once, in global order, with its metadata; never a rolled back one; an event
// of a still open transaction only after it commits (and a later commit not
// before it); and no redelivery after a restart.
func TestWatermillSubscriberDeliversCommittedEvents(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t, 90*time.Second)
	group := "test-" + uuid.NewString()
	full := event.Metadata{OrgID: org1, Actor: "user:7", RequestID: "req-w", CorrelationID: "corr-w", CausationID: "cause-w"}

	// Events from before the group subscribed are delivered too.
	if _, err := s.Append(ctx, "w-1", event.NewStream, event.New{Data: data{"Opened", map[string]any{"name": "first", "n": 1}}, Metadata: full}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "w-2", event.NewStream, ev("Opened", nil)); err != nil {
		t.Fatal(err)
	}

	sub, c := subscribe(t, ctx, group)

	boom := errors.New("boom")
	err := s.Transact(ctx, func(tx pgx.Tx) error {
		if _, err := s.AppendTx(ctx, tx, "w-rb", event.NewStream, ev("RolledBack", nil), ev("RolledBack", nil)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := s.Append(event.WithMetadata(ctx, event.Metadata{OrgID: org2, RequestID: "req-2"}), "w-1", 0,
		ev("Renamed", map[string]string{"name": "second"}), ev("Closed", nil)); err != nil {
		t.Fatal(err)
	}

	got := c.receive(4)
	settle(t)
	log, err := s.ReadAll(ctx, testDB.Pool, event.Position{}, 100, eventstore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 4 {
		t.Fatalf("log has %d events, want 4", len(log))
	}
	for i := range got {
		assertMessage(t, got[i], log[i])
	}
	if got[0].Metadata.Get("org_id") != org1 || got[2].Metadata.Get("org_id") != org2 || got[1].Metadata.Get("org_id") != "" {
		t.Errorf("org ids %q %q %q", got[0].Metadata.Get("org_id"), got[1].Metadata.Get("org_id"), got[2].Metadata.Get("org_id"))
	}
	c.expectNothing(500*time.Millisecond, "after the committed events")

	// An open transaction holds back its own event and every later commit.
	// It takes its transaction id before "After" commits but appends after
	// it: "Late" has the larger sequence position yet comes first.
	tx, err := testDB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck
	if _, err := tx.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "w-after", event.NewStream, ev("After", nil)); err != nil {
		t.Fatal(err)
	}
	c.expectNothing(500*time.Millisecond, "while an older transaction is open")
	if _, err := s.AppendTx(ctx, tx, "w-late", event.NewStream, ev("Late", nil)); err != nil {
		t.Fatal(err)
	}
	c.expectNothing(500*time.Millisecond, "while an older transaction is open")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got = c.receive(2)
	if got[0].Metadata.Get("type") != "Late" || got[1].Metadata.Get("type") != "After" {
		t.Fatalf("after commit received %s, %s; want Late, After", got[0].Metadata.Get("type"), got[1].Metadata.Get("type"))
	}
	settle(t)
	log, err = s.ReadAll(ctx, testDB.Pool, event.Position{}, 100, eventstore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 6 {
		t.Fatalf("log has %d events, want 6", len(log))
	}
	assertMessage(t, got[0], log[4])
	assertMessage(t, got[1], log[5])
	if log[4].Position.Global <= log[5].Position.Global {
		t.Errorf("Late at %+v, After at %+v: the scenario needs Late later in sequence", log[4].Position, log[5].Position)
	}
	c.expectNothing(300*time.Millisecond, "after the late commit")

	// A restarted subscriber of the group resumes after what was acked.
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "w-3", event.NewStream, ev("Again", nil)); err != nil {
		t.Fatal(err)
	}
	_, c2 := subscribe(t, ctx, group)
	got = c2.receive(1)
	if got[0].Metadata.Get("type") != "Again" {
		t.Fatalf("restarted subscriber received %s (%s), want Again", got[0].Metadata.Get("type"), got[0].Metadata.Get("stream_id"))
	}
	c2.expectNothing(300*time.Millisecond, "after resuming")

	// Another group starts from the beginning and gets the same sequence.
	settle(t)
	log, err = s.ReadAll(ctx, testDB.Pool, event.Position{}, 100, eventstore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	_, c3 := subscribe(t, ctx, "other-"+uuid.NewString())
	got = c3.receive(len(log))
	for i := range got {
		assertMessage(t, got[i], log[i])
	}
	c3.expectNothing(300*time.Millisecond, "second group after the log")

	for _, l := range []wmConsumer{c, c2, c3} {
		if errs := l.log.errors(); len(errs) > 0 {
			t.Errorf("watermill logged errors: %v", errs)
		}
	}
}

// TestWatermillNackRedelivers checks that a nacked event is delivered again
// and the group does not move past it.
func TestWatermillNackRedelivers(t *testing.T) {
	s := newStore(t)
	ctx := testCtx(t, 30*time.Second)
	if _, err := s.Append(ctx, "n", event.NewStream, ev("First", nil), ev("Second", nil)); err != nil {
		t.Fatal(err)
	}
	_, c := subscribe(t, ctx, "nack-"+uuid.NewString())
	select {
	case m := <-c.msgs:
		if m.Metadata.Get("type") != "First" {
			t.Fatalf("first message %s", m.Metadata.Get("type"))
		}
		m.Nack()
	case <-time.After(15 * time.Second):
		t.Fatalf("no message; watermill errors: %v", c.log.errors())
	}
	got := c.receive(2)
	if got[0].Metadata.Get("type") != "First" || got[1].Metadata.Get("type") != "Second" {
		t.Fatalf("after nack received %s, %s", got[0].Metadata.Get("type"), got[1].Metadata.Get("type"))
	}
	c.expectNothing(300*time.Millisecond, "after both acked")
}

func TestSchemaAdapterContract(t *testing.T) {
	var a wsql.SchemaAdapter = eventstore.SchemaAdapter{}
	if _, err := a.InsertQuery(wsql.InsertQueryParams{Topic: eventstore.Topic, Msgs: message.Messages{message.NewMessage(watermill.NewUUID(), []byte("{}"))}}); err == nil {
		t.Error("InsertQuery succeeded; events must be appended through the store")
	}
	if q, err := a.SchemaInitializingQueries(wsql.SchemaInitializingQueriesParams{Topic: eventstore.Topic}); err != nil || len(q) != 0 {
		t.Errorf("SchemaInitializingQueries = %v, %v; want none", q, err)
	}
	if l := a.SubscribeIsolationLevel(); l != stdsql.LevelRepeatableRead {
		t.Errorf("SubscribeIsolationLevel = %v", l)
	}
	offsets := wsql.DefaultPostgreSQLOffsetsAdapter{}
	if _, err := a.SelectQuery(wsql.SelectQueryParams{Topic: "orders", ConsumerGroup: "g", OffsetsAdapter: offsets}); err == nil {
		t.Error("SelectQuery for another topic succeeded")
	}
	q, err := a.SelectQuery(wsql.SelectQueryParams{Topic: eventstore.Topic, ConsumerGroup: "g", OffsetsAdapter: offsets})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Args) != 1 || q.Args[0] != "g" {
		t.Errorf("SelectQuery args %v, want the consumer group", q.Args)
	}

	// Publishing to the topic through watermill fails and stores nothing.
	s := newStore(t)
	pub, err := wsql.NewPublisher(wsql.BeginnerFromPgx(testDB.Pool), wsql.PublisherConfig{SchemaAdapter: eventstore.SchemaAdapter{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.Publish(eventstore.Topic, message.NewMessage(watermill.NewUUID(), []byte(`{"x":1}`))); err == nil {
		t.Error("Publish to the events topic succeeded")
	}
	settle(t)
	if all, err := s.ReadAll(context.Background(), testDB.Pool, event.Position{}, 10, eventstore.Filter{}); err != nil || len(all) != 0 {
		t.Errorf("after Publish the log has %d events, %v", len(all), err)
	}
}
