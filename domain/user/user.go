// Package user is the user aggregate (a person who signs in with an email
// and a password), its password hashing (argon2id) and its tokens.
package user

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"svc/domain/org"
	"svc/eventstore/event"
)

// Domain errors.
var (
	ErrNotFound           = errors.New("user not found")
	ErrEmailTaken         = errors.New("email already registered")
	ErrPasswordTooShort   = errors.New("password shorter than 8 characters")
	ErrPasswordTooLong    = errors.New("password longer than 1024 bytes")
	ErrInvalidCredentials = errors.New("invalid email or password")
	ErrAlreadyVerified    = errors.New("email already verified")
	ErrInvalidCode        = errors.New("invalid or used code")
	ErrNameTooLong        = errors.New("name longer than 200 characters")
)

// Password bounds: spec B's minimum of 8 characters; the maximum bounds
// the hashing work one request can ask for.
const (
	MinPassword = 8
	MaxPassword = 1024
)

// Stream is the stream id of user id.
func Stream(id string) string { return "user-" + id }

// EmailStream is the claim stream of an email address.
func EmailStream(email string) string {
	sum := sha256.Sum256([]byte(org.NormalizeEmail(email)))
	return "useremail-" + hex.EncodeToString(sum[:])
}

// ValidatePassword checks the length rules.
func ValidatePassword(pw string) error {
	switch {
	case utf8.RuneCountInString(pw) < MinPassword:
		return ErrPasswordTooShort
	case len(pw) > MaxPassword:
		return ErrPasswordTooLong
	}
	return nil
}

// User is the aggregate.
type User struct {
	id          string
	email       string
	name        string
	orgID       string
	workspaceID string
	verified    bool
	version     int64
}

// New is a user with no events yet.
func New() *User { return &User{version: event.NewStream} }

// Register decides a new user: a plain email address (normalized), a name
// (trimmed, at most 200 characters; the email's local part when empty) and
// the organization and default workspace signup made for them.
func Register(id, email, name, orgID, workspaceID, clientIP string) (Registered, error) {
	email = strings.TrimSpace(email)
	if err := org.ValidateEmail(email); err != nil {
		return Registered{}, err
	}
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > 200 {
		return Registered{}, ErrNameTooLong
	}
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	return Registered{UserID: id, Email: org.NormalizeEmail(email), Name: name, OrgID: orgID, WorkspaceID: workspaceID,
		ClientIP: clientIP}, nil
}

// Apply folds one event.
func (u *User) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("user: %w", err)
	}
	switch d := d.(type) {
	case Registered:
		u.id, u.email, u.name, u.orgID, u.workspaceID = d.UserID, d.Email, d.Name, d.OrgID, d.WorkspaceID
	case EmailVerified:
		u.verified = true
	}
	u.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (u *User) Version() int64 { return u.version }

// ID is the user's id.
func (u *User) ID() string { return u.id }

// Email is the user's normalized email.
func (u *User) Email() string { return u.email }

// Name is the user's display name.
func (u *User) Name() string { return u.name }

// OrgID is the organization the user's signup created.
func (u *User) OrgID() string { return u.orgID }

// WorkspaceID is the default workspace of OrgID.
func (u *User) WorkspaceID() string { return u.workspaceID }

// Verified reports whether the email was verified.
func (u *User) Verified() bool { return u.verified }

// VerifyEmail decides the verification of the user's email.
func (u *User) VerifyEmail() (EmailVerified, error) {
	if u.verified {
		return EmailVerified{}, ErrAlreadyVerified
	}
	return EmailVerified{UserID: u.id, Email: u.email}, nil
}

// SignIn decides the start of session sessionID.
func (u *User) SignIn(sessionID, method, clientIP string) SignedIn {
	return SignedIn{UserID: u.id, SessionID: sessionID, Method: method, ClientIP: clientIP}
}

// SignOut decides the end of session sessionID.
func (u *User) SignOut(sessionID, reason string) SignedOut {
	return SignedOut{UserID: u.id, SessionID: sessionID, Reason: reason}
}
