// Package deletion is the deletion of an organization's data (spec B,
// Data deletion): its deletion requests, one stream per organization
// (Stream), which decide the rate limit, the single pending request, the
// confirmation and the erasure's progress; and the anonymized record an
// erasure leaves in the log once the organization is gone (Erased, on
// ErasureStream).
package deletion

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"svc/eventstore/event"
)

// Domain errors.
var (
	// ErrAlreadyPending: another request of the organization is pending
	// (or being carried out); it is not the caller's repeat.
	ErrAlreadyPending = errors.New("a deletion request is already pending")
	// ErrRateLimited: DailyLimit requests were made this UTC day.
	ErrRateLimited = errors.New("too many deletion requests today")
	// ErrInvalidRequest: no such request, a wrong token, or a request that
	// expired or was confirmed already. Which one is not told.
	ErrInvalidRequest = errors.New("invalid deletion request")
)

// Limits of spec B and the service's own.
const (
	// DailyLimit is how many requests an organization may make per UTC day.
	DailyLimit = 5
	// DefaultTTL is how long a request may be confirmed.
	DefaultTTL = time.Hour
	// ReplayWindow is how long a request repeated by its requester answers
	// the pending request (the "short window" of spec B).
	ReplayWindow = 10 * time.Minute
	// MaxRetryPause bounds the pause before an erasure that failed is
	// tried again.
	MaxRetryPause = 30 * time.Second
)

// Statuses of a request (the Deletion request resource's status).
const (
	StatusPending   = "pending"
	StatusExpired   = "expired"
	StatusErasing   = "erasing"
	StatusCompleted = "completed"
)

// Steps of an erasure, as its deletion log names them.
const (
	StepConfirmed   = "access_revoked"
	StepScanned     = "scanned"
	StepUsersKept   = "users_kept"
	StepCredentials = "credentials_deleted"
	StepEvents      = "events_deleted"
	StepReadModels  = "read_model_rows_deleted"
	StepJobs        = "jobs_released"
)

// Stream is the stream of organization orgID's deletion requests. It is
// the organization's, so the erasure deletes it last.
func Stream(orgID string) string { return "deletions-" + orgID }

// ErasureStream is the stream of the record of erasure request id: what
// stays in the log of an erased organization.
func ErasureStream(requestID string) string { return "erasure-" + requestID }

// HashToken is how a confirmation token is stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// OrgHash is what the erasure record keeps of the organization's id.
func OrgHash(orgID string) string {
	sum := sha256.Sum256([]byte("org:" + orgID))
	return hex.EncodeToString(sum[:])
}

// View is a request as the organization sees it at a time.
type View struct {
	ID          string
	Status      string
	RequestedBy string
	RequestedAt time.Time
	ExpiresAt   time.Time
	// TokenSealed is the sealed confirmation token (a repeat answers it).
	TokenSealed   string
	SoftDeletedAt *time.Time
	Log           []LogEntry
	Failures      int
	LastError     string
}

// request is one request as the stream folded it.
type request struct {
	id, by, tokenHash, sealed string
	requestedAt, expiresAt    time.Time
	confirmedAt               *time.Time
	log                       []LogEntry
	failures                  int
	lastError                 string
}

func (r *request) status(now time.Time) string {
	switch {
	case r.confirmedAt != nil:
		return StatusErasing
	case !now.Before(r.expiresAt):
		return StatusExpired
	}
	return StatusPending
}

func (r *request) view(now time.Time) View {
	return View{ID: r.id, Status: r.status(now), RequestedBy: r.by, RequestedAt: r.requestedAt, ExpiresAt: r.expiresAt,
		TokenSealed: r.sealed, SoftDeletedAt: r.confirmedAt, Log: append([]LogEntry(nil), r.log...),
		Failures: r.failures, LastError: r.lastError}
}

// Requests is the aggregate: an organization's deletion requests.
type Requests struct {
	orgID    string
	requests []*request
	version  int64
}

// New is an organization's deletion stream with no events yet.
func New() *Requests { return &Requests{version: event.NewStream} }

// Apply folds one event.
func (a *Requests) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("deletion: %w", err)
	}
	switch d := d.(type) {
	case Requested:
		a.orgID = d.OrgID
		a.requests = append(a.requests, &request{id: d.RequestID, by: d.RequestedBy, tokenHash: d.TokenHash, sealed: d.TokenSealed,
			requestedAt: e.RecordedAt.UTC(), expiresAt: d.ExpiresAt.UTC()})
	case Confirmed:
		if r := a.find(d.RequestID); r != nil {
			at := e.RecordedAt.UTC()
			r.confirmedAt = &at
			r.log = append(r.log, LogEntry{Step: StepConfirmed, Count: 0, At: at})
		}
	case StepDone:
		if r := a.find(d.RequestID); r != nil {
			r.log = append(r.log, LogEntry{Step: d.Step, Count: d.Count, At: e.RecordedAt.UTC()})
		}
	case Failed:
		if r := a.find(d.RequestID); r != nil {
			r.failures, r.lastError = d.Attempt, d.Error
		}
	}
	a.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (a *Requests) Version() int64 { return a.version }

// OrgID is the organization whose requests these are.
func (a *Requests) OrgID() string { return a.orgID }

func (a *Requests) find(id string) *request {
	for _, r := range a.requests {
		if r.id == id {
			return r
		}
	}
	return nil
}

// Request is request id as it stands at now; false when there is none.
func (a *Requests) Request(id string, now time.Time) (View, bool) {
	r := a.find(id)
	if r == nil {
		return View{}, false
	}
	return r.view(now), true
}

// Erasing is the confirmed request being carried out, if any.
func (a *Requests) Erasing() (View, bool) {
	for _, r := range a.requests {
		if r.confirmedAt != nil {
			return r.view(time.Now()), true
		}
	}
	return View{}, false
}

// Ask is what a new request needs: its id and organization, who asks,
// the hash and the sealed copy of its token, and the time.
type Ask struct {
	ID, OrgID, By          string
	TokenHash, TokenSealed string
	Now                    time.Time
	// TTL is how long it may be confirmed (0: DefaultTTL).
	TTL time.Duration
}

// Refusal is why a request was refused, with what the answer tells: the
// pending request's id and expiry, or when the next request is allowed.
type Refusal struct {
	Err       error
	PendingID string
	Until     time.Time
}

// Error is the refusal's reason.
func (r *Refusal) Error() string { return r.Err.Error() }

// Unwrap makes errors.Is(err, ErrAlreadyPending) and the like work.
func (r *Refusal) Unwrap() error { return r.Err }

// Ask decides a new request: its DeletionRequested, or the pending request
// when its requester repeats it within ReplayWindow (and its TTL), with no
// event. Another request pending (or one being carried out) is
// ErrAlreadyPending; DailyLimit requests made this UTC day already is
// ErrRateLimited until the next UTC midnight. Both are *Refusal.
func (a *Requests) Ask(ask Ask) (repeat *View, data *Requested, err error) {
	now := ask.Now.UTC()
	ttl := ask.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	for _, r := range a.requests {
		switch r.status(now) {
		case StatusErasing:
			return nil, nil, &Refusal{Err: ErrAlreadyPending, PendingID: r.id, Until: r.expiresAt}
		case StatusPending:
			if r.by == ask.By && now.Sub(r.requestedAt) < min(ReplayWindow, ttl) {
				v := r.view(now)
				return &v, nil, nil
			}
			return nil, nil, &Refusal{Err: ErrAlreadyPending, PendingID: r.id, Until: r.expiresAt}
		}
	}
	day := now.Truncate(24 * time.Hour)
	today := 0
	for _, r := range a.requests {
		if !r.requestedAt.Before(day) {
			today++
		}
	}
	if today >= DailyLimit {
		return nil, nil, &Refusal{Err: ErrRateLimited, Until: day.Add(24 * time.Hour)}
	}
	expires := now.Add(ttl) // whole seconds, never before now+ttl
	if whole := expires.Truncate(time.Second); whole.Before(expires) {
		expires = whole.Add(time.Second)
	}
	return nil, &Requested{RequestID: ask.ID, OrgID: ask.OrgID, RequestedBy: ask.By, TokenHash: ask.TokenHash, TokenSealed: ask.TokenSealed,
		ExpiresAt: expires}, nil
}

// Confirm decides the confirmation of request id with token at now, by
// actor by: an unknown id, a wrong token, an expired request or one
// confirmed already is ErrInvalidRequest.
func (a *Requests) Confirm(id, token, by string, now time.Time) (Confirmed, error) {
	r := a.find(id)
	if r == nil || subtle.ConstantTimeCompare([]byte(HashToken(token)), []byte(r.tokenHash)) != 1 || r.status(now) != StatusPending {
		return Confirmed{}, ErrInvalidRequest
	}
	return Confirmed{RequestID: id, OrgID: a.orgID, ConfirmedBy: by}, nil
}

// Done decides the log line of a finished step of erasure id: nil when it
// deleted nothing and the log has the step already (a retry's repeat).
func (a *Requests) Done(id, step string, count int64) *StepDone {
	r := a.find(id)
	if r == nil {
		return nil
	}
	if count == 0 {
		for _, l := range r.log {
			if l.Step == step {
				return nil
			}
		}
	}
	return &StepDone{RequestID: id, OrgID: a.orgID, Step: step, Count: count}
}

// Fail decides the failure of an attempt of erasure id at step, with the
// error's text, and when it is tried again: 1 s after the first failure,
// doubling, at most MaxRetryPause.
func (a *Requests) Fail(id, step, msg string, now time.Time) Failed {
	attempt := 1
	if r := a.find(id); r != nil {
		attempt = r.failures + 1
	}
	pause := MaxRetryPause
	if attempt < 6 {
		pause = min(time.Duration(1<<(attempt-1))*time.Second, MaxRetryPause)
	}
	if len(msg) > 500 {
		msg = msg[:500]
	}
	return Failed{RequestID: id, OrgID: a.orgID, Step: step, Error: msg, Attempt: attempt, RetryAt: now.Add(pause).UTC()}
}

// Erase decides the record of erasure id, finished at hardDeleted: the
// request without anything of the organization but its id's hash. The
// request must have been confirmed.
func (a *Requests) Erase(id string, hardDeleted time.Time) (Erased, error) {
	r := a.find(id)
	if r == nil || r.confirmedAt == nil {
		return Erased{}, ErrInvalidRequest
	}
	log := append([]LogEntry{}, r.log...)
	return Erased{RequestID: id, OrgHash: OrgHash(a.orgID), RequestedAt: r.requestedAt, SoftDeletedAt: *r.confirmedAt,
		HardDeletedAt: hardDeleted.UTC(), Log: log, Attempts: r.failures + 1}, nil
}
