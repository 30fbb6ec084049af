// Package eventstore is the append-only PostgreSQL event store every state
// change of the service goes through. Its vocabulary (events, metadata,
// positions, the concurrency error, the type registry) is package
// eventstore/event, which has no storage in it.
//
// Streams are appended to with an expected version (event.NewStream for a
// new stream), loaded in version order, and read all together in gap-free
// global order: by (transaction_id, position), below the oldest transaction
// still running, so a transaction that commits late is never skipped by a
// reader.
package eventstore

import (
	"strconv"

	"svc/eventstore/event"
)

// xid is the text of p's transaction id, for SQL parameters cast to xid8.
func xid(p event.Position) string { return strconv.FormatUint(p.TransactionID, 10) }
