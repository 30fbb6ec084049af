package credit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// SnapshotCodec is the version of the ledger's snapshot encoding
// (Snapshot, FromSnapshot). A stored snapshot of another version is
// ignored and the stream folded instead, so raise it whenever the
// Ledger's state changes shape.
//
// 2: accounts name their workspace and last charge's month, and the
// workspaces' spend in the latest month is kept (workspace budgets).
// 3: the auto-reload configuration and its pending reload.
const SnapshotCodec = 3

// ErrSnapshot is a snapshot that does not decode into a ledger of the
// organization, or whose figures do not agree with each other.
var ErrSnapshot = errors.New("credit ledger: unusable snapshot")

// snapshot is the ledger's state as stored (codec 3).
type snapshot struct {
	OrgID    string                `json:"org_id"`
	Owned    int64                 `json:"owned"`
	Reserved int64                 `json:"reserved"`
	Granted  int64                 `json:"granted"`
	Charged  int64                 `json:"charged"`
	Refunded int64                 `json:"refunded"`
	Accounts map[string]account    `json:"accounts,omitempty"`
	Month    string                `json:"month,omitempty"`
	Spend    map[string]monthSpend `json:"spend,omitempty"`
	Reload   *reloadState          `json:"reload,omitempty"`
}

// Snapshot encodes the ledger's state (without its version: the store
// keeps that beside it) in codec SnapshotCodec.
func (l *Ledger) Snapshot() ([]byte, error) {
	s := snapshot{OrgID: l.orgID, Owned: l.owned, Reserved: l.reserved, Granted: l.granted,
		Charged: l.charged, Refunded: l.refunded, Accounts: l.accounts, Month: l.month, Spend: l.spend}
	if l.reload != (reloadState{}) {
		r := l.reload
		s.Reload = &r
	}
	return json.Marshal(s)
}

// FromSnapshot is the ledger of orgID that Snapshot encoded in data, at
// stream version version. A snapshot of another organization, with
// fields it does not know, or whose reservations do not add up is
// ErrSnapshot: the caller folds the stream instead.
func FromSnapshot(orgID string, version int64, data []byte) (*Ledger, error) {
	var s snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if s.OrgID != orgID {
		return nil, fmt.Errorf("%w: of organization %q", ErrSnapshot, s.OrgID)
	}
	if version < 0 {
		return nil, fmt.Errorf("%w: version %d", ErrSnapshot, version)
	}
	var held int64
	for _, a := range s.Accounts {
		held += a.Held
	}
	if held != s.Reserved || s.Owned != s.Granted-s.Charged+s.Refunded {
		return nil, fmt.Errorf("%w: figures disagree", ErrSnapshot)
	}
	for _, m := range s.Spend {
		if m.Month != s.Month {
			return nil, fmt.Errorf("%w: a workspace's spend is not of the latest month", ErrSnapshot)
		}
	}
	l := New(orgID)
	l.owned, l.reserved, l.granted, l.charged, l.refunded, l.version = s.Owned, s.Reserved, s.Granted, s.Charged, s.Refunded, version
	for k, a := range s.Accounts {
		l.accounts[k] = a
	}
	l.month = s.Month
	for k, m := range s.Spend {
		l.spend[k] = m
	}
	if s.Reload != nil {
		l.reload = *s.Reload
	}
	return l, nil
}
