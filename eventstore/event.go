// Package eventstore is the append-only PostgreSQL event store every state
// change of the service goes through.
//
// Streams are appended to with an expected version (NewStream for a new
// stream), loaded in version order, and read all together in gap-free global
// order: by (transaction_id, position), below the oldest transaction still
// running, so a transaction that commits late is never skipped by a reader.
package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
)

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

// NewEvent is an event to append.
type NewEvent struct {
	Type     string
	Data     any // marshalled to JSON; json.RawMessage is kept as is
	Metadata Metadata
}

// Event is a stored event.
type Event struct {
	ID         uuid.UUID
	StreamID   string
	Version    int64
	Type       string
	Data       json.RawMessage
	Metadata   Metadata
	Position   Position
	RecordedAt time.Time
}

// Decode unmarshals the event's data into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decode %s event %s: %w", e.Type, e.ID, err)
	}
	return nil
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

func (p Position) txText() string { return strconv.FormatUint(p.TransactionID, 10) }

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

func (m Metadata) withDefaults(d Metadata) Metadata {
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
