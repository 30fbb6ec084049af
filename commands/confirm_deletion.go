package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"svc/domain/deletion"
	"svc/eventstore"
	"svc/eventstore/event"
)

// ConfirmDeletion confirms a deletion request with its token (spec B,
// DELETE /api/data/confirm-deletion): from its commit on the
// organization's keys and sessions fail on every instance, and its
// erasure runs as a leased job (commands/erasure).
type ConfirmDeletion struct {
	OrgID     string
	RequestID string
	Token     string
	By        string
}

// DeletionConfirmed is the outcome of ConfirmDeletion.
type DeletionConfirmed struct {
	RequestID string
	Position  event.Position
}

// ErasureKicker starts a confirmed erasure in this process at once (the
// erasure runner's Kick); without one, a runner finds it within its poll.
type ErasureKicker interface{ Kick(requestID string) }

// ConfirmDeletionHandler handles ConfirmDeletion.
type ConfirmDeletionHandler struct {
	repos  *Repositories
	kicker ErasureKicker
	now    func() time.Time
}

// NewConfirmDeletionHandler returns a handler over repos that kicks
// kicker (nil: none) once a confirmation committed.
func NewConfirmDeletionHandler(repos *Repositories, kicker ErasureKicker) ConfirmDeletionHandler {
	return ConfirmDeletionHandler{repos: must(repos), kicker: kicker, now: time.Now}
}

// Handle appends DeletionConfirmed and queues the erasure (table
// erasures, in the same transaction). An unknown request, a wrong token,
// an expired or used request is deletion.ErrInvalidRequest.
func (h ConfirmDeletionHandler) Handle(ctx context.Context, cmd ConfirmDeletion) (DeletionConfirmed, error) {
	if uuid.Validate(cmd.RequestID) != nil {
		return DeletionConfirmed{}, fmt.Errorf("confirm deletion: %w", deletion.ErrInvalidRequest)
	}
	pos, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		a, err := h.repos.Deletions.Load(tx, cmd.OrgID)
		if err != nil {
			return err
		}
		c, err := a.Confirm(cmd.RequestID, cmd.Token, cmd.By, h.now())
		if err != nil {
			return err
		}
		if _, err := h.repos.Deletions.Save(tx, cmd.OrgID, a, c); err != nil {
			return err
		}
		_, err = tx.DB().Exec(tx.Context(), `INSERT INTO erasures (request_id, org_id) VALUES ($1, $2)`, cmd.RequestID, cmd.OrgID)
		return err
	})
	if err != nil {
		return DeletionConfirmed{}, fmt.Errorf("confirm deletion: %w", err)
	}
	if h.kicker != nil {
		h.kicker.Kick(cmd.RequestID)
	}
	return DeletionConfirmed{RequestID: cmd.RequestID, Position: pos}, nil
}
