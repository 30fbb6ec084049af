package commands

import (
	"context"
	"fmt"

	"svc/domain/notification"
	"svc/eventstore"
	"svc/eventstore/event"
)

// MarkNotificationsRead marks an organization's notifications read (spec
// B: PATCH /api/notifications/read): IDs, which the caller has already
// narrowed to the organization's unread ones, or All of them.
type MarkNotificationsRead struct {
	OrgID string
	IDs   []string
	All   bool
	By    string // the actor: key:<id> or user:<id>
}

// NotificationsMarked is the outcome of MarkNotificationsRead: whether an
// event was appended.
type NotificationsMarked struct {
	Appended bool
}

// MarkNotificationsReadHandler handles MarkNotificationsRead.
type MarkNotificationsReadHandler struct{ repos *Repositories }

// NewMarkNotificationsReadHandler returns a handler over repos.
func NewMarkNotificationsReadHandler(repos *Repositories) MarkNotificationsReadHandler {
	return MarkNotificationsReadHandler{repos: must(repos)}
}

// Handle appends NotificationsRead to the organization's notification
// stream (any version: marks commute); nothing when there is nothing to
// mark.
func (h MarkNotificationsReadHandler) Handle(ctx context.Context, cmd MarkNotificationsRead) (NotificationsMarked, error) {
	if !cmd.All && len(cmd.IDs) == 0 {
		return NotificationsMarked{}, nil
	}
	d := notification.Read{OrgID: cmd.OrgID, IDs: cmd.IDs, All: cmd.All, By: cmd.By}
	_, err := h.repos.Store.Run(ctx, orgTx(cmd.OrgID), func(tx *eventstore.Tx) error {
		_, err := tx.Append(notification.Stream(cmd.OrgID), event.AnyVersion, d)
		return err
	})
	if err != nil {
		return NotificationsMarked{}, fmt.Errorf("mark notifications read: %w", err)
	}
	return NotificationsMarked{Appended: true}, nil
}
