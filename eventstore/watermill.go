package eventstore

import (
	stdsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"svc/eventstore/event"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Topic is the watermill topic whose messages are the events of the store:
// subscribe to it with a subscriber from NewSubscriber.
const Topic = "events"

// offsetsTable keeps the acknowledged position of each consumer group.
const offsetsTable = `"watermill_offsets_events"`

// ErrPublishNotSupported is returned by SchemaAdapter.InsertQuery: events are
// appended only through Store.Append, Store.AppendTx and Store.Transact.
var ErrPublishNotSupported = errors.New("eventstore: events cannot be published through watermill; use Store.Append")

// SchemaAdapter makes the events table a watermill-sql topic (Topic). It
// implements watermill-sql's SchemaAdapter for subscribing only: each
// committed event becomes a message, delivered in global order
// (transaction_id, position) and only below the oldest transaction still
// running, so an event whose transaction commits late is never skipped.
//
// A message's UUID is the event id, its payload the event data, and its
// metadata holds the keys type, stream_id, version, position,
// transaction_id, recorded_at (RFC 3339, UTC), org_id, actor, request_id,
// correlation_id and causation_id (empty when the event has none).
//
// Use it with wsql.DefaultPostgreSQLOffsetsAdapter, which keeps a consumer
// group's offset as (last_processed_transaction_id, offset_acked), where the
// offset is the event's position.
type SchemaAdapter struct {
	// BatchSize is how many events one query reads; 0 means 100.
	BatchSize int
}

var _ wsql.SchemaAdapter = SchemaAdapter{}

func (a SchemaAdapter) batchSize() int {
	if a.BatchSize <= 0 {
		return 100
	}
	return a.BatchSize
}

// InsertQuery always fails: events are appended only through the Store, which
// checks stream versions.
func (a SchemaAdapter) InsertQuery(wsql.InsertQueryParams) (wsql.Query, error) {
	return wsql.Query{}, ErrPublishNotSupported
}

// SelectQuery returns the next batch of events after the consumer group's
// offset, like DefaultPostgreSQLSchema's query but over the events table.
func (a SchemaAdapter) SelectQuery(params wsql.SelectQueryParams) (wsql.Query, error) {
	if params.Topic != Topic {
		return wsql.Query{}, fmt.Errorf("eventstore: unknown topic %q, want %q", params.Topic, Topic)
	}
	next, err := params.OffsetsAdapter.NextOffsetQuery(wsql.NextOffsetQueryParams{
		Topic:         params.Topic,
		ConsumerGroup: params.ConsumerGroup,
	})
	if err != nil {
		return wsql.Query{}, err
	}
	// The subquery keeps the planner from walking the whole primary key
	// (see DefaultPostgreSQLSchema.SelectQuery).
	// transaction_id is returned as text to scan it portably; the rows are
	// sorted by the xid8 column itself.
	q := `
	SELECT messages.position, messages.transaction_id::text AS transaction_text,
		messages.event_id::text AS event_text, messages.stream_id, messages.version,
		messages.type, messages.data, messages.metadata,
		messages.org_id::text AS org_text, messages.recorded_at
	FROM (
		WITH last_processed AS (
			` + next.Query + `
		)
		SELECT position, transaction_id, event_id, stream_id, version, type,
			data, metadata, org_id, recorded_at
		FROM events
		WHERE
		(
			(
				transaction_id = (SELECT last_processed_transaction_id FROM last_processed)
				AND
				position > (SELECT offset_acked FROM last_processed)
			)
			OR
			(transaction_id > (SELECT last_processed_transaction_id FROM last_processed))
		)
		AND
			transaction_id < pg_snapshot_xmin(pg_current_snapshot())
	) AS messages
	ORDER BY messages.transaction_id ASC, messages.position ASC
	LIMIT ` + strconv.Itoa(a.batchSize())
	return wsql.Query{Query: q, Args: next.Args}, nil
}

// UnmarshalMessage turns a row of SelectQuery into a message; the row's
// offset is the event's position and ExtraData["transaction_id"] its
// transaction id, which the offsets adapter acknowledges.
func (a SchemaAdapter) UnmarshalMessage(params wsql.UnmarshalMessageParams) (wsql.Row, error) {
	var (
		position   int64
		txText     string
		eventID    string
		streamID   string
		version    int64
		typ        string
		data       []byte
		meta       []byte
		orgID      *string
		recordedAt time.Time
	)
	if err := params.Row.Scan(&position, &txText, &eventID, &streamID, &version, &typ, &data, &meta, &orgID, &recordedAt); err != nil {
		return wsql.Row{}, fmt.Errorf("eventstore: scan event row: %w", err)
	}
	tx, err := strconv.ParseUint(txText, 10, 64)
	if err != nil {
		return wsql.Row{}, fmt.Errorf("eventstore: transaction id %q: %w", txText, err)
	}
	var m event.Metadata
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &m); err != nil {
			return wsql.Row{}, fmt.Errorf("eventstore: metadata of %s: %w", eventID, err)
		}
	}
	org := m.OrgID
	if orgID != nil {
		org = *orgID
	}

	msg := message.NewMessage(eventID, data)
	msg.Metadata.Set("type", typ)
	msg.Metadata.Set("stream_id", streamID)
	msg.Metadata.Set("version", strconv.FormatInt(version, 10))
	msg.Metadata.Set("position", strconv.FormatInt(position, 10))
	msg.Metadata.Set("transaction_id", strconv.FormatUint(tx, 10))
	msg.Metadata.Set("recorded_at", recordedAt.UTC().Format(time.RFC3339Nano))
	msg.Metadata.Set("org_id", org)
	msg.Metadata.Set("actor", m.Actor)
	msg.Metadata.Set("request_id", m.RequestID)
	msg.Metadata.Set("correlation_id", m.CorrelationID)
	msg.Metadata.Set("causation_id", m.CausationID)

	return wsql.Row{
		Offset:    position,
		UUID:      []byte(eventID),
		Payload:   data,
		Metadata:  meta,
		Msg:       msg,
		ExtraData: map[string]any{"transaction_id": wsql.XID8(tx)},
	}, nil
}

// SchemaInitializingQueries returns nothing: the migrations own the events table.
func (a SchemaAdapter) SchemaInitializingQueries(wsql.SchemaInitializingQueriesParams) ([]wsql.Query, error) {
	return nil, nil
}

// SubscribeIsolationLevel is repeatable read, as for DefaultPostgreSQLSchema.
func (a SchemaAdapter) SubscribeIsolationLevel() stdsql.IsolationLevel {
	return stdsql.LevelRepeatableRead
}

// SubscriberOptions tune NewSubscriber.
type SubscriberOptions struct {
	// Wake, when set, replaces the idle poll: a subscriber that found no
	// message waits for a signal on Wake (Store.SubscribeTypes, which
	// hears every process while Push runs), or Poll, or Done.
	Wake <-chan struct{}
	// Poll is the idle poll: 100 ms without Wake; with Wake, the safety
	// net, default 30 s.
	Poll time.Duration
	// Done ends a wait for Wake (the subscriber is about to close).
	Done <-chan struct{}
}

// NewSubscriber returns a watermill subscriber of Topic for consumerGroup:
// when idle it polls the events table every 100 ms, or waits for
// opts.Wake; it keeps the group's offset in the watermill_offsets_events
// table (created by migration 0003). Each group receives every committed
// event once, in global order, provided it acknowledges each message.
func NewSubscriber(pool *pgxpool.Pool, consumerGroup string, logger watermill.LoggerAdapter, opts ...SubscriberOptions) (*wsql.Subscriber, error) {
	if logger == nil {
		logger = watermill.NopLogger{}
	}
	var o SubscriberOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	cfg := wsql.SubscriberConfig{
		ConsumerGroup:  consumerGroup,
		PollInterval:   100 * time.Millisecond,
		ResendInterval: 100 * time.Millisecond,
		SchemaAdapter:  SchemaAdapter{},
		OffsetsAdapter: wsql.DefaultPostgreSQLOffsetsAdapter{
			GenerateMessagesOffsetsTableName: func(string) string { return offsetsTable },
		},
		InitializeSchema: false,
	}
	if o.Poll > 0 {
		cfg.PollInterval = o.Poll
	}
	if o.Wake != nil {
		if o.Poll <= 0 {
			o.Poll = 30 * time.Second
		}
		cfg.BackoffManager = &wakeBackoff{errors: wsql.NewDefaultBackoffManager(time.Second, time.Second), opts: o}
	}
	return wsql.NewSubscriber(wsql.BeginnerFromPgx(pool), cfg, logger)
}

// wakeBackoff is the backoff of a subscriber woken by signals: with no
// message found, it waits in HandleError (which the subscriber calls
// between its queries) for a signal and then asks for no backoff. After a
// signal that found nothing it makes the quick looks (QuickLook).
type wakeBackoff struct {
	errors wsql.BackoffManager
	opts   SubscriberOptions
	hidden int
}

// HandleError implements wsql.BackoffManager.
func (b *wakeBackoff) HandleError(logger watermill.LoggerAdapter, noMsg bool, err error) time.Duration {
	if err != nil {
		return b.errors.HandleError(logger, noMsg, err)
	}
	if !noMsg {
		b.hidden = 0
		return 0
	}
	if b.hidden > 0 && b.hidden <= QuickLooks {
		pause := QuickLook(b.hidden)
		b.hidden++
		return pause
	}
	b.hidden = 0
	t := time.NewTimer(b.opts.Poll)
	defer t.Stop()
	select {
	case <-b.opts.Wake:
		b.hidden = 1
		return 0
	case <-t.C:
		return 0
	case <-b.opts.Done:
		return time.Second // the subscriber's closing wins the next select
	}
}
