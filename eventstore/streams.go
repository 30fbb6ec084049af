package eventstore

import (
	"context"
	"fmt"
	"strconv"

	"svc/eventstore/event"
)

// StreamRange names the versions From..To (inclusive) of a stream.
type StreamRange struct {
	Stream   string
	From, To int64
}

// ReadRanges returns the events of several stream ranges in one statement,
// read through db: each stream's in version order, the streams in the
// order of ranges' first mention. A reader that follows many streams at
// once (the webhook fan-out) pays one round trip instead of one a stream.
func ReadRanges(ctx context.Context, db DB, ranges []StreamRange) ([]event.Event, error) {
	if len(ranges) == 0 {
		return nil, nil
	}
	streams, from, to := make([]string, len(ranges)), make([]int64, len(ranges)), make([]int64, len(ranges))
	for i, r := range ranges {
		streams[i], from[i], to[i] = r.Stream, r.From, r.To
	}
	rows, err := db.Query(ctx, `SELECT `+eventColumns+` FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS r(stream, lo, hi, n)
		JOIN LATERAL (SELECT * FROM events WHERE stream_id = r.stream AND version BETWEEN r.lo AND r.hi) AS events ON true
		ORDER BY r.n, events.version`, streams, from, to)
	if err != nil {
		return nil, fmt.Errorf("eventstore: read %d streams: %w", len(ranges), err)
	}
	return collect(rows)
}

// StreamStart is the first events of a stream that must not exist yet.
type StreamStart struct {
	Stream string
	Events []event.New
}

// AppendNew starts several new streams in one statement inside the
// transaction (each must be empty: expected version event.NewStream), with
// the transaction's metadata under each event's own. A stream that exists
// already fails the whole append with a conflict on it (Store.Run tries
// again).
func (t *Tx) AppendNew(streams ...StreamStart) error {
	var (
		names, ids, types, datas, metas []string
		expected                        []int64
		orgs                            []*string
		ords                            []int32
		all                             []event.New
	)
	for _, s := range streams {
		if err := validate(s.Stream, event.NewStream, s.Events); err != nil {
			return err
		}
		events := make([]event.New, len(s.Events))
		for i, e := range s.Events {
			e.Metadata = e.Metadata.Or(t.meta)
			events[i] = e
		}
		rows, err := encode(t.ctx, events)
		if err != nil {
			return err
		}
		for i, r := range rows {
			names, expected, ids, types, datas, metas = append(names, s.Stream), append(expected, event.NewStream), append(ids, r.id),
				append(types, r.typ), append(datas, r.data), append(metas, r.meta)
			orgs, ords = append(orgs, r.org), append(ords, int32(i+1))
		}
		all = append(all, events...)
	}
	if len(names) == 0 {
		return nil
	}
	rows, err := t.tx.Query(t.ctx, groupSQL, names, expected, ids, types, datas, metas, orgs, ords)
	if err != nil {
		return fmt.Errorf("eventstore: append %d streams: %w", len(streams), err)
	}
	counts := map[string]int{}
	var last event.Position
	for rows.Next() {
		var (
			stream string
			p      event.Position
			txText string
		)
		if err := rows.Scan(&stream, &p.Global, &txText); err != nil {
			rows.Close()
			return fmt.Errorf("eventstore: append %d streams: %w", len(streams), err)
		}
		if p.TransactionID, err = strconv.ParseUint(txText, 10, 64); err != nil {
			rows.Close()
			return fmt.Errorf("eventstore: transaction id %q: %w", txText, err)
		}
		if last.Less(p) {
			last = p
		}
		counts[stream]++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("eventstore: append %d streams: %w", len(streams), err)
	}
	for _, s := range streams {
		if counts[s.Stream] != len(s.Events) {
			return &event.ConflictError{Stream: s.Stream, Expected: event.NewStream, Actual: -2}
		}
	}
	if t.last.Less(last) {
		t.last = last
	}
	t.types = append(t.types, typesOf(all)...)
	for _, s := range streams {
		t.streams = append(t.streams, s.Stream)
	}
	return nil
}
