// Package event is the vocabulary of the event store, with no storage in
// it: an event to append (New) and a stored one (Event), their metadata,
// their place in the global order (Position), the concurrency error, and
// the Registry that turns a stored event back into its typed data.
//
// Every event's data is a Go type that names itself (Data): a domain
// package defines its event types, one file per aggregate (events.go), and
// registers them; the store, the projections and the dispatcher all read
// those types, never a copy. Package eventstore is the PostgreSQL store
// beside this package; package domain and its aggregates import only this.
package event

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Data is the data of an event. Its type names the event: EventType
// returns the name stored with it, so the name and the shape of an event
// cannot drift apart. Implementations are plain structs with JSON tags and
// a value receiver.
type Data interface {
	EventType() string
}

// Expected versions with a special meaning.
const (
	// NewStream expects the stream not to exist yet.
	NewStream int64 = -1
	// AnyVersion appends whatever the stream's version.
	AnyVersion int64 = -2
)

// ErrConcurrency means the stream's version was not the expected one: another
// writer appended first. Command handlers reload and retry.
var ErrConcurrency = errors.New("eventstore: stream version conflict")

// ConflictError reports an expected-version mismatch; it matches ErrConcurrency.
type ConflictError struct {
	Stream   string
	Expected int64
	Actual   int64 // -1 for a missing stream; -2 when unknown (lost a race)
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("eventstore: stream %q: expected version %d, found %d", e.Stream, e.Expected, e.Actual)
}

// Is makes errors.Is(err, ErrConcurrency) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConcurrency }

// Metadata travels with every event: who did it, for which org, and why.
type Metadata struct {
	OrgID         string `json:"org_id,omitempty"`
	Actor         string `json:"actor,omitempty"` // "key:<id>", "user:<id>", "operator", "system"
	RequestID     string `json:"request_id,omitempty"`
	CorrelationID string `json:"correlation_id,omitempty"`
	CausationID   string `json:"causation_id,omitempty"`
}

// Or fills the fields m leaves empty from d; the correlation id defaults
// to the request id.
func (m Metadata) Or(d Metadata) Metadata {
	if m.OrgID == "" {
		m.OrgID = d.OrgID
	}
	if m.Actor == "" {
		m.Actor = d.Actor
	}
	if m.RequestID == "" {
		m.RequestID = d.RequestID
	}
	if m.CorrelationID == "" {
		m.CorrelationID = d.CorrelationID
	}
	if m.CausationID == "" {
		m.CausationID = d.CausationID
	}
	if m.CorrelationID == "" {
		m.CorrelationID = m.RequestID
	}
	return m
}

// New is an event to append: its typed data, and metadata beyond what the
// append's context carries.
type New struct {
	Data     Data
	Metadata Metadata
}

// Type is the event's type name, from its data.
func (n New) Type() string {
	if n.Data == nil {
		return ""
	}
	return n.Data.EventType()
}

// Of wraps data as events to append, with no metadata of their own.
func Of(data ...Data) []New {
	out := make([]New, len(data))
	for i, d := range data {
		out[i] = New{Data: d}
	}
	return out
}

// Raw is event data given as JSON under a type name of the caller's: for
// tools and tests that write events no domain package defines. Commands
// use typed data.
type Raw struct {
	Type string
	JSON json.RawMessage // nil stands for {}
}

// EventType implements Data.
func (r Raw) EventType() string { return r.Type }

// MarshalJSON writes the JSON as it is.
func (r Raw) MarshalJSON() ([]byte, error) {
	if len(r.JSON) == 0 {
		return []byte("{}"), nil
	}
	if !json.Valid(r.JSON) {
		return nil, fmt.Errorf("event %s: invalid JSON data", r.Type)
	}
	return r.JSON, nil
}

// Event is a stored event.
type Event struct {
	ID       uuid.UUID
	StreamID string
	Version  int64
	Type     string
	// Data is the event's data as stored.
	Data       json.RawMessage
	Metadata   Metadata
	Position   Position
	RecordedAt time.Time
	// Payload is the decoded data: set by Registry.Decode, or by the
	// writer that just appended the event (no read back). Nil until then.
	Payload Data
}

// Decode unmarshals the event's data into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decode %s event %s: %w", e.Type, e.ID, err)
	}
	return nil
}

// Recorded is the stored form of data just appended at version of stream:
// what a writer folds into its aggregate without reading the event back.
func Recorded(stream string, version int64, at time.Time, d Data) Event {
	return Event{StreamID: stream, Version: version, Type: d.EventType(), RecordedAt: at, Payload: d}
}

// Position is an event's place in the global order: by transaction id, then
// by sequence position within it. The zero value is before every event.
type Position struct {
	TransactionID uint64 `json:"transaction_id"`
	Global        int64  `json:"position"`
}

// Less reports whether p comes before q in the global order.
func (p Position) Less(q Position) bool {
	if p.TransactionID != q.TransactionID {
		return p.TransactionID < q.TransactionID
	}
	return p.Global < q.Global
}

// Reached reports whether p is at or after q.
func (p Position) Reached(q Position) bool { return !p.Less(q) }

// IsZero reports whether p is before every event.
func (p Position) IsZero() bool { return p == Position{} }

// String is "transaction_id/position".
func (p Position) String() string { return fmt.Sprintf("%d/%d", p.TransactionID, p.Global) }

type metadataKey struct{}

// WithMetadata returns a context carrying m; appends made with that context
// that leave a field empty take it from m.
func WithMetadata(ctx context.Context, m Metadata) context.Context {
	return context.WithValue(ctx, metadataKey{}, m)
}

// MetadataFrom returns the metadata carried by ctx, if any.
func MetadataFrom(ctx context.Context) Metadata {
	m, _ := ctx.Value(metadataKey{}).(Metadata)
	return m
}

// Aggregate is state folded from the events of one stream: what a
// repository loads, and what decides the events appended next.
type Aggregate interface {
	// Apply folds one event of the aggregate's stream.
	Apply(Event) error
	// Version is the version of the last event folded (NewStream for none).
	Version() int64
}

// ConflictOn reports whether err is a version conflict on stream.
func ConflictOn(err error, stream string) bool {
	var c *ConflictError
	return errors.As(err, &c) && c.Stream == stream
}

// Fold folds events into a, in order, stopping at the first that fails.
func Fold(a Aggregate, events []Event) error {
	for _, e := range events {
		if err := a.Apply(e); err != nil {
			return err
		}
	}
	return nil
}
