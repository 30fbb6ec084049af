// Package invite is the invite aggregate: an email invite (one use, by
// the invited address) or an invite link (up to max_uses, by anyone with
// its token) to join a workspace with a role.
package invite

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"svc/domain/apikey"
	"svc/domain/org"
	"svc/domain/user"
	"svc/eventstore/event"
)

// Domain errors.
var (
	ErrNotFound      = errors.New("invite not found")
	ErrExpired       = errors.New("invite expired")
	ErrInvalidDays   = errors.New("expires_in_days must be 1 to 365")
	ErrInvalidUses   = errors.New("max_uses must be 1 to 10000")
	ErrWrongEmail    = errors.New("invite is for another email address")
	ErrAlreadyMember = errors.New("already a member")
)

// Bounds and defaults.
const (
	DefaultTTL = 7 * 24 * time.Hour
	MaxDays    = 365
	MaxUses    = 10_000
)

// Stream is the stream id of invite id.
func Stream(id string) string { return "invite-" + id }

// Token makes a token for invite id from a random secret: "<id>.<secret>",
// so that accepting finds the invite without a lookup table.
func Token(id, secret string) string { return id + "." + secret }

// ParseToken returns the invite id a token names; ErrNotFound for a token
// of another shape.
func ParseToken(token string) (string, error) {
	id, secret, ok := strings.Cut(token, ".")
	if !ok || secret == "" || uuid.Validate(id) != nil || len(token) > 200 {
		return "", ErrNotFound
	}
	return id, nil
}

// Invite is the aggregate.
type Invite struct {
	id          string
	orgID       string
	workspaceID string
	kind        string
	email       string
	role        apikey.Role
	expiresAt   time.Time
	maxUses     *int
	uses        int
	users       map[string]bool
	tokenHash   string
	revoked     bool
	version     int64
}

// New is an invite with no events yet.
func New() *Invite { return &Invite{users: map[string]bool{}, version: event.NewStream} }

// Create decides a new invite of kind (Email or Link) to workspace wsID,
// valid until now+ttl, with role; email for Email invites, maxUses (nil:
// unlimited) for links.
func Create(id, orgID, wsID, kind, email string, role apikey.Role, maxUses *int, ttl time.Duration, now time.Time,
	token, sealed, createdBy string) (Created, error) {
	if maxUses != nil && (*maxUses < 1 || *maxUses > MaxUses) {
		return Created{}, ErrInvalidUses
	}
	c := Created{InviteID: id, OrgID: orgID, WorkspaceID: wsID, Kind: kind, Role: role, ExpiresAt: now.Add(ttl).UTC().Truncate(time.Second),
		MaxUses: maxUses, TokenHash: user.HashToken(token), TokenSealed: sealed, CreatedBy: createdBy}
	if kind == Email {
		one := 1
		c.Email, c.MaxUses = org.NormalizeEmail(email), &one
	}
	return c, nil
}

// TTLDays is the lifetime of an invite of days days (0: the default).
func TTLDays(days *int) (time.Duration, error) {
	if days == nil {
		return DefaultTTL, nil
	}
	if *days < 1 || *days > MaxDays {
		return 0, ErrInvalidDays
	}
	return time.Duration(*days) * 24 * time.Hour, nil
}

// Apply folds one event.
func (i *Invite) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("invite: %w", err)
	}
	switch d := d.(type) {
	case Created:
		i.id, i.orgID, i.workspaceID, i.kind, i.email, i.role = d.InviteID, d.OrgID, d.WorkspaceID, d.Kind, d.Email, d.Role
		i.expiresAt, i.maxUses, i.tokenHash = d.ExpiresAt, d.MaxUses, d.TokenHash
	case Accepted:
		i.uses++
		i.users[d.UserID] = true
	case Revoked:
		i.revoked = true
	}
	i.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (i *Invite) Version() int64 { return i.version }

// OrgID is the workspace's organization.
func (i *Invite) OrgID() string { return i.orgID }

// WorkspaceID is the workspace the invite is to.
func (i *Invite) WorkspaceID() string { return i.workspaceID }

// Role is the role the invite gives.
func (i *Invite) Role() apikey.Role { return i.role }

// Accept decides userID's use of the invite with token at now: a wrong
// token, a revoked or used-up invite, or an email invite for another
// address is ErrNotFound (nothing is revealed); past its expiry it is
// ErrExpired; a second use by one user is ErrAlreadyMember.
func (i *Invite) Accept(token, userID, email string, now time.Time) (Accepted, error) {
	if i.tokenHash == "" || subtle.ConstantTimeCompare([]byte(user.HashToken(token)), []byte(i.tokenHash)) != 1 {
		return Accepted{}, ErrNotFound
	}
	switch {
	case i.revoked:
		return Accepted{}, ErrNotFound
	case i.users[userID]:
		return Accepted{}, ErrAlreadyMember
	case !now.Before(i.expiresAt):
		return Accepted{}, ErrExpired
	case i.maxUses != nil && i.uses >= *i.maxUses:
		return Accepted{}, ErrNotFound
	case i.kind == Email && org.NormalizeEmail(email) != i.email:
		return Accepted{}, ErrNotFound
	}
	return Accepted{InviteID: i.id, OrgID: i.orgID, WorkspaceID: i.workspaceID, UserID: userID}, nil
}

// Revoke decides the revocation; a revoked invite is ErrNotFound.
func (i *Invite) Revoke() (Revoked, error) {
	if i.revoked {
		return Revoked{}, ErrNotFound
	}
	return Revoked{InviteID: i.id, OrgID: i.orgID, WorkspaceID: i.workspaceID}, nil
}
