package eventstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/eventstore/event"
)

// startAtHeadQuery records the log's head as consumerGroup's offset unless
// the group has one. The head is the last event in read order below the
// oldest transaction still running (the subscriber's own bound): every
// event after it, including those of transactions still open, is read by
// the group. Several instances starting together compute a head each; the
// primary key keeps the first, and every one of them then reads from it.
// On an empty log the offset is watermill's own zero offset.
const startAtHeadQuery = `
	INSERT INTO ` + offsetsTable + ` (consumer_group, offset_acked, last_processed_transaction_id)
	SELECT $1, coalesce(head.position, 0), coalesce(head.transaction_id, '0'::xid8)
	FROM (SELECT 1) AS one
	LEFT JOIN LATERAL (
		SELECT position, transaction_id FROM events
		WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY transaction_id DESC, position DESC
		LIMIT 1
	) AS head ON true
	ON CONFLICT (consumer_group) DO NOTHING
	RETURNING offset_acked, last_processed_transaction_id::text`

// StartAtHead makes a consumer group that has no offset yet start at the
// log's current head instead of its beginning: call it before NewSubscriber
// for a subscriber that reacts to new events only (a webhook scheduler must
// not deliver what happened before it first ran, on a database that
// already has a history). A group with an offset keeps it, so a restart
// resumes where the group stopped. It is safe for instances starting at
// the same time (one head is recorded, and all read from it).
//
// The head is taken below the oldest running transaction, as the
// subscriber reads: nothing committed after the call is skipped, though
// an event committed just before it while an older transaction was still
// open may be read once. started reports whether this call recorded the
// offset, at head (zero on an empty log).
func StartAtHead(ctx context.Context, pool *pgxpool.Pool, consumerGroup string) (head event.Position, started bool, err error) {
	var txText string
	err = pool.QueryRow(ctx, startAtHeadQuery, consumerGroup).Scan(&head.Global, &txText)
	if errors.Is(err, pgx.ErrNoRows) {
		return event.Position{}, false, nil // the group has an offset
	}
	if err != nil {
		return event.Position{}, false, fmt.Errorf("eventstore: start %q at the head: %w", consumerGroup, err)
	}
	if head.TransactionID, err = strconv.ParseUint(txText, 10, 64); err != nil {
		return event.Position{}, false, fmt.Errorf("eventstore: start %q at the head: transaction id %q: %w", consumerGroup, txText, err)
	}
	return head, true, nil
}
