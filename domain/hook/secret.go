package hook

import (
	"errors"
	"time"
)

// DefaultOverlap is how long a rotated-out secret keeps signing
// deliveries beside the new one, unless the rotation says otherwise.
const DefaultOverlap = 24 * time.Hour

// MaxOverlap is the longest overlap a rotation may ask for.
const MaxOverlap = 7 * 24 * time.Hour

// ErrOverlap is an overlap below zero or above MaxOverlap.
var ErrOverlap = errors.New("overlap must be between 0 and 168 hours")

// RotateSecret decides a new signing secret, newSealed (sealed by the
// caller). The current secret keeps signing deliveries beside it until
// now+overlap, so receivers can switch without losing one; an overlap of
// zero retires it at once. A secret rotated out before that is dropped:
// at most two sign a delivery.
func (h *Endpoint) RotateSecret(newSealed string, now time.Time, overlap time.Duration) (SecretRotated, error) {
	if !h.Exists() {
		return SecretRotated{}, ErrNotFound
	}
	if overlap < 0 || overlap > MaxOverlap {
		return SecretRotated{}, ErrOverlap
	}
	r := SecretRotated{EndpointID: h.id, OrgID: h.orgID, WorkspaceID: h.workspaceID, SealedSecret: newSealed}
	if overlap > 0 {
		until := now.Add(overlap).UTC()
		r.PreviousSealedSecret, r.PreviousExpiresAt = h.sealed, &until
	}
	return r, nil
}

// Secrets are the sealed secrets that sign a delivery made at now: the
// current one, then the previous one while its overlap lasts.
func (h *Endpoint) Secrets(now time.Time) []string {
	if h.previous != "" && now.Before(h.previousUntil) {
		return []string{h.sealed, h.previous}
	}
	return []string{h.sealed}
}

// PreviousExpiresAt is when the rotated-out secret stops signing; nil when
// none signs at now.
func (h *Endpoint) PreviousExpiresAt(now time.Time) *time.Time {
	if h.previous == "" || !now.Before(h.previousUntil) {
		return nil
	}
	t := h.previousUntil
	return &t
}
