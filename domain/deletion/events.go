package deletion

import (
	"time"

	"svc/eventstore/event"
)

// Event types of an organization's deletion stream (Stream), and of the
// record an erasure leaves (ErasureStream).
const (
	EventRequested = "DeletionRequested"
	EventConfirmed = "DeletionConfirmed"
	EventStepDone  = "DeletionStepDone"
	EventFailed    = "DeletionFailed"
	// EventErased is the only event of an erasure's record: it names no
	// organization, user, key or text of the erased organization.
	EventErased = "OrganizationErased"
)

// Requested is the data of DeletionRequested. The confirmation token is
// not here in clear: TokenHash checks it, TokenSealed (sealed with the
// service's secret key) lets a repeated request answer the same token.
type Requested struct {
	RequestID   string    `json:"request_id"`
	OrgID       string    `json:"org_id"`
	RequestedBy string    `json:"requested_by"` // the actor: key:<id> or user:<id>
	TokenHash   string    `json:"token_hash"`
	TokenSealed string    `json:"token_sealed"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// Confirmed is the data of DeletionConfirmed: from it on the
// organization's keys and sessions fail, and its erasure runs.
type Confirmed struct {
	RequestID   string `json:"request_id"`
	OrgID       string `json:"org_id"`
	ConfirmedBy string `json:"confirmed_by"`
}

// StepDone is the data of DeletionStepDone: a step of the erasure
// finished, and how many rows (events, read-model rows, credentials) it
// deleted or rewrote.
type StepDone struct {
	RequestID string `json:"request_id"`
	OrgID     string `json:"org_id"`
	Step      string `json:"step"`
	Count     int64  `json:"count"`
}

// Failed is the data of DeletionFailed: an attempt of the erasure stopped
// at Step; it is tried again at RetryAt. Error is the service's own
// message (a database error's text), never the organization's data.
type Failed struct {
	RequestID string    `json:"request_id"`
	OrgID     string    `json:"org_id"`
	Step      string    `json:"step"`
	Error     string    `json:"error"`
	Attempt   int       `json:"attempt"`
	RetryAt   time.Time `json:"retry_at"`
}

// LogEntry is one line of a request's deletion log.
type LogEntry struct {
	Step  string    `json:"step"`
	Count int64     `json:"count"`
	At    time.Time `json:"at"`
}

// Erased is the data of OrganizationErased, appended once every row of
// the organization is gone (the stream of its deletion requests
// included): the anonymized deletion request. OrgHash is the SHA-256 of
// the organization's id (OrgHash), so an operator who is asked whether an
// organization was erased can tell without the log keeping its id.
type Erased struct {
	RequestID     string     `json:"request_id"`
	OrgHash       string     `json:"org_hash"`
	RequestedAt   time.Time  `json:"requested_at"`
	SoftDeletedAt time.Time  `json:"soft_deleted_at"`
	HardDeletedAt time.Time  `json:"hard_deleted_at"`
	Log           []LogEntry `json:"deletion_log"`
	Attempts      int        `json:"attempts"`
}

// EventType implements event.Data.
func (Requested) EventType() string { return EventRequested }

// EventType implements event.Data.
func (Confirmed) EventType() string { return EventConfirmed }

// EventType implements event.Data.
func (StepDone) EventType() string { return EventStepDone }

// EventType implements event.Data.
func (Failed) EventType() string { return EventFailed }

// EventType implements event.Data.
func (Erased) EventType() string { return EventErased }

// RegisterEvents registers the events of deletion and erasure streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Requested](r)
	event.Register[Confirmed](r)
	event.Register[StepDone](r)
	event.Register[Failed](r)
	event.Register[Erased](r)
}

var registry = event.NewRegistry(RegisterEvents)
