// Package apikey is the API key aggregate and the key format: svc_live_
// followed by 48 hex characters, stored only as a SHA-256 hash.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"svc/eventstore/event"
)

// LivePrefix starts every live key.
const LivePrefix = "svc_live_"

// displayLen is the length of the display prefix: "svc_live_" plus 6 characters.
const displayLen = len(LivePrefix) + 6

// Domain errors.
var (
	ErrNotFound       = errors.New("api key not found")
	ErrAlreadyRevoked = errors.New("api key already revoked")
	ErrInvalidRole    = errors.New("invalid role")
)

// Role is a workspace role; roles ascend viewer < member < admin < owner.
type Role string

// Roles, lowest first.
const (
	Viewer Role = "viewer"
	Member Role = "member"
	Admin  Role = "admin"
	Owner  Role = "owner"
)

var rank = map[Role]int{Viewer: 1, Member: 2, Admin: 3, Owner: 4}

// ParseRole returns the role named s.
func ParseRole(s string) (Role, error) {
	if _, ok := rank[Role(s)]; !ok {
		return "", fmt.Errorf("%w %q", ErrInvalidRole, s)
	}
	return Role(s), nil
}

// AtLeast reports whether r is floor or above.
func (r Role) AtLeast(floor Role) bool { return rank[r] >= rank[floor] }

// Secret is a freshly generated key: the raw value is shown once.
type Secret struct {
	Raw    string
	Hash   string
	Prefix string
}

// Generate makes a new random live key.
func Generate() (Secret, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return Secret{}, fmt.Errorf("generate key: %w", err)
	}
	raw := LivePrefix + hex.EncodeToString(b)
	return Secret{Raw: raw, Hash: Hash(raw), Prefix: raw[:displayLen]}, nil
}

// Hash is how a raw key is stored and looked up.
func Hash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// LooksValid reports whether raw has the shape of a key, so malformed values
// are refused without a database lookup.
func LooksValid(raw string) bool {
	if !strings.HasPrefix(raw, "svc_") || len(raw) > 128 {
		return false
	}
	for _, c := range raw {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Stream is the stream id of key id.
func Stream(id string) string { return "apikey-" + id }

// Key is the aggregate.
type Key struct {
	id          string
	orgID       string
	workspaceID string
	revoked     bool
	version     int64
}

// New is a key with no events yet.
func New() *Key { return &Key{version: event.NewStream} }

// Load folds a key's stream; an empty stream is ErrNotFound.
func Load(events []event.Event) (*Key, error) {
	if len(events) == 0 {
		return nil, ErrNotFound
	}
	k := New()
	if err := event.Fold(k, events); err != nil {
		return nil, err
	}
	return k, nil
}

// Apply folds one event.
func (k *Key) Apply(e event.Event) error {
	d, err := registry.Decode(e)
	if err != nil {
		return fmt.Errorf("api key: %w", err)
	}
	switch d := d.(type) {
	case Created:
		k.id, k.orgID, k.workspaceID = d.KeyID, d.OrgID, d.WorkspaceID
	case Revoked:
		k.revoked = true
	}
	k.version = e.Version
	return nil
}

// Version is the version of the last event folded.
func (k *Key) Version() int64 { return k.version }

// OrgID is the owning organization.
func (k *Key) OrgID() string { return k.orgID }

// WorkspaceID is the workspace the key belongs to.
func (k *Key) WorkspaceID() string { return k.workspaceID }

// Revoke decides the revocation.
func (k *Key) Revoke() (Revoked, error) {
	if k.revoked {
		return Revoked{}, ErrAlreadyRevoked
	}
	return Revoked{KeyID: k.id, OrgID: k.orgID}, nil
}
