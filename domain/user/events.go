package user

import "svc/eventstore/event"

// Event types of a user stream, and of an email's claim stream.
const (
	EventRegistered    = "UserRegistered"
	EventEmailVerified = "UserEmailVerified"
	EventSignedIn      = "UserSignedIn"
	EventSignedOut     = "UserSignedOut"
	// EventEmailClaimed is the only event of an email's claim stream;
	// appending it to a new stream makes an email belong to one user.
	EventEmailClaimed = "UserEmailClaimed"
)

// Registered is the data of UserRegistered. The password is not here: its
// hash is kept outside the log (table user_credentials).
type Registered struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	Name   string `json:"name"`
	// OrgID and WorkspaceID are the organization and default workspace
	// the signup created, which the user owns.
	OrgID       string `json:"org_id"`
	WorkspaceID string `json:"workspace_id"`
	ClientIP    string `json:"client_ip,omitempty"`
}

// EmailVerified is the data of UserEmailVerified.
type EmailVerified struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
}

// SignedIn is the data of UserSignedIn: a session started.
type SignedIn struct {
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	// Method is how: "signup", "password" or "link" (a mailed code).
	Method   string `json:"method"`
	ClientIP string `json:"client_ip,omitempty"`
}

// SignedOut is the data of UserSignedOut: a session ended.
type SignedOut struct {
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	// Reason is "logout" or "refresh_reuse" (a rotated refresh token came
	// back: it leaked, so the session is revoked).
	Reason string `json:"reason"`
}

// EmailClaimed is the data of UserEmailClaimed.
type EmailClaimed struct {
	UserID string `json:"user_id"`
}

// EventType implements event.Data.
func (Registered) EventType() string { return EventRegistered }

// EventType implements event.Data.
func (EmailVerified) EventType() string { return EventEmailVerified }

// EventType implements event.Data.
func (SignedIn) EventType() string { return EventSignedIn }

// EventType implements event.Data.
func (SignedOut) EventType() string { return EventSignedOut }

// EventType implements event.Data.
func (EmailClaimed) EventType() string { return EventEmailClaimed }

// RegisterEvents registers the events of user and email claim streams.
func RegisterEvents(r *event.Registry) {
	event.Register[Registered](r)
	event.Register[EmailVerified](r)
	event.Register[SignedIn](r)
	event.Register[SignedOut](r)
	event.Register[EmailClaimed](r)
}

var registry = event.NewRegistry(RegisterEvents)
