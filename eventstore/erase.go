package eventstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"svc/eventstore/event"
)

// Erasure: the one exception to the append-only rule (docs/decisions.md,
// data deletion). Erasing an organization deletes its events (every event
// whose org_id is the organization's) and rewrites the few events of
// streams that outlive it (a kept user's, who belongs to another
// organization too) so that they no longer name it. Nothing else deletes
// or changes a stored event.
//
// Deleting events is safe for readers: they page by (transaction_id,
// position) after their checkpoint, so an event deleted behind a
// checkpoint is never looked for, and one deleted ahead of it is never
// read. A stream whose events are gone has version -1 again: an append
// that expected a version of it conflicts.

// OrgStreams lists the streams holding events of organization orgID.
func OrgStreams(ctx context.Context, db DB, orgID string) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT stream_id FROM events WHERE org_id = $1`, orgID)
	if err != nil {
		return nil, fmt.Errorf("eventstore: streams of %s: %w", orgID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("eventstore: streams of %s: %w", orgID, err)
	}
	return out, nil
}

// OrgEvents returns organization orgID's events of the given types, in
// global order.
func OrgEvents(ctx context.Context, db DB, orgID string, types ...string) ([]event.Event, error) {
	rows, err := db.Query(ctx, "SELECT "+eventColumns+` FROM events WHERE org_id = $1 AND type = ANY($2)
		ORDER BY transaction_id, position`, orgID, types)
	if err != nil {
		return nil, fmt.Errorf("eventstore: events of %s: %w", orgID, err)
	}
	return collect(rows)
}

// CountOrgEvents counts organization orgID's events outside the streams
// keep.
func CountOrgEvents(ctx context.Context, db DB, orgID string, keep ...string) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `SELECT count(*) FROM events WHERE org_id = $1 AND stream_id <> ALL($2)`, orgID, orEmpty(keep)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("eventstore: count events of %s: %w", orgID, err)
	}
	return n, nil
}

// DeleteOrgEvents deletes up to limit of organization orgID's events
// outside the streams keep, through db (the caller's short transaction),
// and returns how many it deleted: fewer than limit means none is left.
func DeleteOrgEvents(ctx context.Context, db DB, orgID string, limit int, keep ...string) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM events WHERE ctid = ANY(ARRAY(
		SELECT ctid FROM events WHERE org_id = $1 AND stream_id <> ALL($2) LIMIT $3))`, orgID, orEmpty(keep), limit)
	if err != nil {
		return 0, fmt.Errorf("eventstore: delete events of %s: %w", orgID, err)
	}
	return tag.RowsAffected(), nil
}

// DeleteStreams deletes every event of streams, through db.
func DeleteStreams(ctx context.Context, db DB, streams ...string) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM events WHERE stream_id = ANY($1)`, orEmpty(streams))
	if err != nil {
		return 0, fmt.Errorf("eventstore: delete streams: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Reassign rewrites the events of streams that belong to organization
// from so that they name another: their org_id (column and metadata)
// becomes values[from], and every top-level string field of their data
// whose value is a key of values takes its value (the organization's id
// and, say, its workspace's). It returns how many events it rewrote.
func Reassign(ctx context.Context, db DB, streams []string, from string, values map[string]string) (int64, error) {
	to, ok := values[from]
	if !ok {
		return 0, fmt.Errorf("eventstore: reassign from %s: no organization to move to", from)
	}
	rows, err := db.Query(ctx, `SELECT event_id, data, metadata FROM events WHERE stream_id = ANY($1) AND org_id = $2 FOR UPDATE`,
		orEmpty(streams), from)
	if err != nil {
		return 0, fmt.Errorf("eventstore: reassign: %w", err)
	}
	type change struct {
		id         string
		data, meta []byte
	}
	var changes []change
	for rows.Next() {
		var (
			id         string
			data, meta []byte
		)
		if err := rows.Scan(&id, &data, &meta); err != nil {
			rows.Close()
			return 0, fmt.Errorf("eventstore: reassign: %w", err)
		}
		nd, err := substitute(data, values)
		if err != nil {
			rows.Close()
			return 0, fmt.Errorf("eventstore: reassign event %s: %w", id, err)
		}
		nm, err := substitute(meta, map[string]string{from: to})
		if err != nil {
			rows.Close()
			return 0, fmt.Errorf("eventstore: reassign event %s: %w", id, err)
		}
		changes = append(changes, change{id: id, data: nd, meta: nm})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("eventstore: reassign: %w", err)
	}
	for _, c := range changes {
		if _, err := db.Exec(ctx, `UPDATE events SET org_id = $2, data = $3::jsonb, metadata = $4::jsonb WHERE event_id = $1`,
			c.id, to, string(c.data), string(c.meta)); err != nil {
			return 0, fmt.Errorf("eventstore: reassign event %s: %w", c.id, err)
		}
	}
	return int64(len(changes)), nil
}

// substitute replaces the top-level string values of a JSON object that
// are keys of values.
func substitute(raw []byte, values map[string]string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) != nil {
			continue
		}
		if to, ok := values[s]; ok {
			enc, err := json.Marshal(to)
			if err != nil {
				return nil, err
			}
			m[k] = enc
		}
	}
	return json.Marshal(m)
}

// DeleteSnapshots deletes the snapshots of streams, through db.
func DeleteSnapshots(ctx context.Context, db DB, streams ...string) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM snapshots WHERE stream_id = ANY($1)`, orEmpty(streams))
	if err != nil {
		return 0, fmt.Errorf("eventstore: delete snapshots: %w", err)
	}
	return tag.RowsAffected(), nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
