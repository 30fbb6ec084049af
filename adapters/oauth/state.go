package oauth

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"svc/domain/connection"
)

// statePurpose binds a sealed state to this use of the service key: it is
// the associated data of the seal, so no other sealed value opens as a
// state.
const statePurpose = "svc/mcp-oauth-state"

// stateVersion is the format of statePayload.
const stateVersion = 1

// maxState bounds a state the callback will try to open (a real one is
// about 450 characters).
const maxState = 2048

// Sealer seals and opens values that travel in URLs, bound to a purpose
// (secrets.Box).
type Sealer interface {
	SealURL(purpose string, plaintext []byte) string
	OpenURL(purpose, sealed string) ([]byte, error)
}

// statePayload is a flow as its state carries it, sealed (encrypted and
// authenticated) with the service key: nothing about a flow is stored
// before its callback.
type statePayload struct {
	Version     int    `json:"v"`
	Nonce       string `json:"n"`
	OrgID       string `json:"o"`
	WorkspaceID string `json:"w"`
	Actor       string `json:"a"`
	Provider    string `json:"p"`
	Mode        string `json:"m"`
	ExpiresAt   int64  `json:"e"` // Unix seconds
	Verifier    string `json:"x"`
}

// newNonce returns 128 random bits, base64url.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails; it crashes instead
	return base64.RawURLEncoding.EncodeToString(b)
}

// sealState seals f into a state.
func sealState(s Sealer, f connection.Flow) string {
	raw, _ := json.Marshal(statePayload{Version: stateVersion, Nonce: f.Nonce, OrgID: f.OrgID, WorkspaceID: f.WorkspaceID,
		Actor: f.Actor, Provider: f.Provider, Mode: string(f.Mode), ExpiresAt: f.ExpiresAt.Unix(), Verifier: f.Verifier})
	return s.SealURL(statePurpose, raw)
}

// openState opens a state of sealState: connection.ErrInvalidState when it
// was not sealed here (forged, altered, of another key or format), and
// connection.ErrStateExpired when it expired at now.
func openState(s Sealer, state string, now time.Time) (connection.Flow, error) {
	if state == "" || len(state) > maxState {
		return connection.Flow{}, connection.ErrInvalidState
	}
	raw, err := s.OpenURL(statePurpose, state)
	if err != nil {
		return connection.Flow{}, fmt.Errorf("%w: %w", connection.ErrInvalidState, err)
	}
	var p statePayload
	if err := json.Unmarshal(raw, &p); err != nil || p.Version != stateVersion || p.Nonce == "" || p.OrgID == "" ||
		p.Provider == "" || p.Verifier == "" || p.ExpiresAt == 0 {
		return connection.Flow{}, fmt.Errorf("%w: unknown format", connection.ErrInvalidState)
	}
	mode, err := connection.ParsePermissionMode(p.Mode)
	if err != nil || p.Mode == "" {
		return connection.Flow{}, fmt.Errorf("%w: unknown format", connection.ErrInvalidState)
	}
	f := connection.Flow{Grant: connection.Grant{OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, Actor: p.Actor, Provider: p.Provider, Mode: mode},
		Nonce: p.Nonce, ExpiresAt: time.Unix(p.ExpiresAt, 0).UTC(), Verifier: p.Verifier}
	if f.Expired(now) {
		return f, connection.ErrStateExpired
	}
	return f, nil
}
