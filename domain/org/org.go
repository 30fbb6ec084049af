// Package org is the organization aggregate: identity, contact email, email
// verification and subscription tier.
package org

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"svc/eventstore/event"
	"unicode/utf8"
)

// Domain errors.
var (
	ErrNotFound        = errors.New("organization not found")
	ErrAlreadyVerified = errors.New("email already verified")
	ErrNoEmail         = errors.New("organization has no email to verify")
	ErrInvalidToken    = errors.New("invalid verification token")
	ErrInvalidTier     = errors.New("invalid tier")
	ErrInvalidEmail    = errors.New("invalid email address")
	ErrDuplicateEmail  = errors.New("email already registered")
	ErrNameTooLong     = errors.New("name longer than 200 characters")
)

// Tier is a subscription tier.
type Tier string

// Tiers, lowest first.
const (
	Free       Tier = "free"
	Pro        Tier = "pro"
	Team       Tier = "team"
	Enterprise Tier = "enterprise"
)

// ParseTier returns the tier named s.
func ParseTier(s string) (Tier, error) {
	switch t := Tier(s); t {
	case Free, Pro, Team, Enterprise:
		return t, nil
	}
	return "", fmt.Errorf("%w %q (want free, pro, team or enterprise)", ErrInvalidTier, s)
}

// IsPaid reports whether t is a paid tier.
func (t Tier) IsPaid() bool { return t != Free && t != "" }

// Stream is the stream id of organization id.
func Stream(id string) string { return "org-" + id }

// EmailStream is the reservation stream of an email address.
func EmailStream(email string) string {
	sum := sha256.Sum256([]byte(NormalizeEmail(email)))
	return "email-" + hex.EncodeToString(sum[:])
}

// NormalizeEmail lower-cases and trims an address for comparison.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidateEmail checks that s is a plain address (no display name).
func ValidateEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != strings.TrimSpace(s) || a.Name != "" || len(s) > 254 {
		return fmt.Errorf("%w: %q", ErrInvalidEmail, s)
	}
	return nil
}

// HashToken is how verification tokens are stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Organization is the aggregate, rebuilt from its stream.
type Organization struct {
	id               string
	name             string
	email            string
	emailVerified    bool
	tier             Tier
	workspaceID      string
	verificationHash string
	workspaces       int     // created, archived ones included
	billing          billing // the payment processor's side (subscription.go)
	version          int64
}

// DefaultName names an organization created with neither name nor email.
const DefaultName = "My organization"

// Create decides a new organization: the name (trimmed, at most 200
// characters; the email, or DefaultName, when empty), the optional email
// (a plain address), its default workspace and the hash of the emailed
// verification token.
func Create(id, name, email, workspaceID, token, clientIP string) (Created, error) {
	email = strings.TrimSpace(email)
	if email != "" {
		if err := ValidateEmail(email); err != nil {
			return Created{}, err
		}
	}
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > 200 {
		return Created{}, ErrNameTooLong
	}
	if name == "" {
		name = email
	}
	if name == "" {
		name = DefaultName
	}
	c := Created{OrgID: id, Name: name, Email: email, Tier: Free, WorkspaceID: workspaceID, ClientIP: clientIP}
	if email != "" && token != "" {
		c.VerificationHash = HashToken(token)
	}
	return c, nil
}

// New is an organization with no events yet.
func New() *Organization { return &Organization{version: event.NewStream} }

// Load folds a stream's events; an empty stream is ErrNotFound.
func Load(events []event.Event) (*Organization, error) {
	if len(events) == 0 {
		return nil, ErrNotFound
	}
	o := New()
	if err := event.Fold(o, events); err != nil {
		return nil, err
	}
	return o, nil
}

// Apply folds one event.
func (o *Organization) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("organization: %w", err)
	}
	switch d := d.(type) {
	case Created:
		o.id, o.name, o.email, o.tier, o.workspaceID, o.verificationHash = d.OrgID, d.Name, d.Email, d.Tier, d.WorkspaceID, d.VerificationHash
		o.workspaces = 1
	case WorkspaceAdded:
		o.workspaces++
	case EmailVerified:
		o.emailVerified = true
	case TierChanged:
		o.tier = d.To
	case SubscriptionChanged:
		o.billing.applyChange(d)
	case CustomerLinked:
		o.billing.customerID = d.CustomerID
	}
	o.version = e.Version
	return nil
}

// ID is the organization id.
func (o *Organization) ID() string { return o.id }

// Version is the version of the last event folded.
func (o *Organization) Version() int64 { return o.version }

// Tier is the current tier.
func (o *Organization) Tier() Tier { return o.tier }

// Email is the contact email ("" when none was given).
func (o *Organization) Email() string { return o.email }

// EmailVerified reports whether the email was verified.
func (o *Organization) EmailVerified() bool { return o.emailVerified }

// WorkspaceID is the default workspace.
func (o *Organization) WorkspaceID() string { return o.workspaceID }

// Workspaces is how many workspaces the organization created, the default
// and archived ones included.
func (o *Organization) Workspaces() int { return o.workspaces }

// AddWorkspace records workspace id's creation; the caller checked the
// tier's limit against Workspaces.
func (o *Organization) AddWorkspace(id string) WorkspaceAdded { return WorkspaceAdded{WorkspaceID: id} }

// ConfirmEmail decides the verification of the email by other means than
// the organization's own token (its owner user's verification).
func (o *Organization) ConfirmEmail() (EmailVerified, error) {
	switch {
	case o.email == "":
		return EmailVerified{}, ErrNoEmail
	case o.emailVerified:
		return EmailVerified{}, ErrAlreadyVerified
	}
	return EmailVerified{Email: o.email}, nil
}

// VerifyEmail checks token and decides the verification.
func (o *Organization) VerifyEmail(token string) (EmailVerified, error) {
	if o.email == "" || o.verificationHash == "" {
		return EmailVerified{}, ErrNoEmail
	}
	if subtle.ConstantTimeCompare([]byte(HashToken(token)), []byte(o.verificationHash)) != 1 {
		return EmailVerified{}, ErrInvalidToken
	}
	if o.emailVerified {
		return EmailVerified{}, ErrAlreadyVerified
	}
	return EmailVerified{Email: o.email}, nil
}

// ChangeTier decides a tier change; ok is false when t is already the tier.
func (o *Organization) ChangeTier(t Tier, source string) (change TierChanged, ok bool, err error) {
	if _, err := ParseTier(string(t)); err != nil {
		return TierChanged{}, false, err
	}
	if t == o.tier {
		return TierChanged{}, false, nil
	}
	return TierChanged{From: o.tier, To: t, Source: source}, true, nil
}
