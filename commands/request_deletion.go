package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/domain/deletion"
	"svc/eventstore"
	"svc/eventstore/event"
)

// RequestDeletion asks for the erasure of all of an organization's data
// (spec B, POST /api/data/delete-request). Nothing is deleted until the
// request is confirmed with its token (ConfirmDeletion).
type RequestDeletion struct {
	OrgID string
	// By is the actor asking (key:<id> or user:<id>): the same actor
	// asking again within deletion.ReplayWindow gets the pending request.
	By string
}

// DeletionRequested is the outcome of RequestDeletion.
type DeletionRequested struct {
	RequestID string
	// Token is the confirmation token, in clear (shown to the caller,
	// stored hashed and sealed).
	Token       string
	RequestedAt time.Time
	ExpiresAt   time.Time
	// Repeat: the pending request answered again (nothing appended).
	Repeat   bool
	Position event.Position
}

// RequestDeletionHandler handles RequestDeletion.
type RequestDeletionHandler struct {
	repos  *Repositories
	sealer Sealer
	opener Opener
	ttl    time.Duration
	now    func() time.Time
}

// NewRequestDeletionHandler returns a handler over repos that seals
// confirmation tokens with sealer (opening them again for a repeat) and
// lets a request be confirmed for ttl (0: deletion.DefaultTTL).
func NewRequestDeletionHandler(repos *Repositories, sealer Sealer, ttl time.Duration) RequestDeletionHandler {
	if sealer == nil {
		panic("commands: nil sealer")
	}
	return RequestDeletionHandler{repos: must(repos), sealer: sealer, opener: opener(sealer), ttl: ttl, now: time.Now}
}

// Handle appends DeletionRequested to the organization's deletion stream,
// or answers the pending request repeated; the refusals are
// *deletion.Refusal (deletion.ErrAlreadyPending, deletion.ErrRateLimited).
func (h RequestDeletionHandler) Handle(ctx context.Context, cmd RequestDeletion) (DeletionRequested, error) {
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return DeletionRequested{}, fmt.Errorf("request deletion: %w", err)
	}
	token := "del_" + hex.EncodeToString(raw)
	sealed := h.sealer.Seal([]byte(token))
	var out DeletionRequested
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		a, err := h.repos.Deletions.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		now := h.now()
		repeat, data, err := a.Ask(deletion.Ask{ID: uuid.NewString(), OrgID: cmd.OrgID, By: cmd.By,
			TokenHash: deletion.HashToken(token), TokenSealed: sealed, Now: now, TTL: h.ttl})
		if err != nil {
			return err
		}
		if repeat != nil {
			if h.opener == nil {
				return errors.New("the sealed token cannot be opened")
			}
			clear, err := h.opener.Open(repeat.TokenSealed)
			if err != nil {
				return fmt.Errorf("open the pending request's token: %w", err)
			}
			out = DeletionRequested{RequestID: repeat.ID, Token: string(clear), RequestedAt: repeat.RequestedAt, ExpiresAt: repeat.ExpiresAt, Repeat: true}
			return nil
		}
		out = DeletionRequested{RequestID: data.RequestID, Token: token, RequestedAt: now.UTC(), ExpiresAt: data.ExpiresAt}
		_, err = h.repos.Deletions.Save(tx, cmd.OrgID, a, *data)
		return err
	})
	if err != nil {
		return DeletionRequested{}, fmt.Errorf("request deletion: %w", err)
	}
	out.Position = pos
	return out, nil
}
