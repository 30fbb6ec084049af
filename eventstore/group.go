package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"svc/eventstore/event"
	"time"

	"github.com/google/uuid"
)

// Group appends: concurrent Append calls on distinct streams are written by
// one statement in one transaction, so they share one commit (one WAL flush)
// instead of queueing for one each. Each call keeps its own expected-version
// check; a call whose check fails, or a batch that loses a race with another
// writer, is retried on its own, so grouping never changes an outcome.

// groupSize bounds the calls written together.
const groupSize = 128

// groupWriters is how many group statements may run at once.
const groupWriters = 2

type appendCall struct {
	ctx      context.Context
	stream   string
	expected int64
	rows     []eventRow
	done     chan appendResult
}

type appendResult struct {
	pos event.Position
	err error
}

type eventRow struct {
	id, typ, data, meta string
	org                 *string
}

// encode turns events into rows, taking empty metadata fields from ctx.
func encode(ctx context.Context, events []event.New) ([]eventRow, error) {
	defaults := event.MetadataFrom(ctx)
	rows := make([]eventRow, len(events))
	for i, e := range events {
		typ := e.Type()
		if typ == "" {
			return nil, errors.New("eventstore: event without data or a type")
		}
		data, err := json.Marshal(e.Data)
		if err != nil {
			return nil, fmt.Errorf("eventstore: marshal %s: %w", typ, err)
		}
		m := e.Metadata.Or(defaults)
		meta, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("eventstore: marshal metadata: %w", err)
		}
		rows[i] = eventRow{id: uuid.NewString(), typ: typ, data: string(data), meta: string(meta)}
		if m.OrgID != "" {
			if _, err := uuid.Parse(m.OrgID); err != nil {
				return nil, fmt.Errorf("eventstore: metadata org_id %q is not a UUID", m.OrgID)
			}
			org := m.OrgID
			rows[i].org = &org
		}
	}
	return rows, nil
}

// startGroup starts the group writers once.
func (s *Store) startGroup() {
	s.groupOnce.Do(func() {
		s.calls = make(chan *appendCall, groupSize*groupWriters)
		for i := 0; i < groupWriters; i++ {
			go s.groupWriter()
		}
	})
}

func (s *Store) groupWriter() {
	for first := range s.calls {
		batch := []*appendCall{first}
		streams := map[string]bool{first.stream: true}
		var later []*appendCall
	drain:
		for len(batch) < groupSize {
			select {
			case c := <-s.calls:
				if streams[c.stream] {
					later = append(later, c) // same stream: its version depends on this batch
					continue
				}
				streams[c.stream] = true
				batch = append(batch, c)
			default:
				break drain
			}
		}
		s.writeGroup(batch)
		for _, c := range later {
			s.writeGroup([]*appendCall{c})
		}
	}
}

const groupSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])
		WITH ORDINALITY AS i(stream, expected, id, type, data, metadata, org, ord, n)
), cur AS (
	SELECT s.stream, (SELECT coalesce(max(e.version), -1) FROM events e WHERE e.stream_id = s.stream) AS v
	FROM (SELECT DISTINCT stream FROM input) AS s
)
INSERT INTO events (event_id, stream_id, version, type, data, metadata, org_id)
SELECT i.id::uuid, i.stream, cur.v + i.ord, i.type, i.data::jsonb, i.metadata::jsonb, i.org::uuid
FROM input i JOIN cur ON cur.stream = i.stream
WHERE i.expected = -2 OR cur.v = i.expected
ORDER BY i.stream, i.ord -- one lock order for every group: no deadlock between writers
RETURNING stream_id, position, transaction_id::text`

// writeGroup writes calls in one statement; calls that got no rows, and every
// call of a batch that failed, are written alone.
func (s *Store) writeGroup(calls []*appendCall) {
	live := calls[:0:0]
	for _, c := range calls {
		if err := c.ctx.Err(); err != nil {
			c.done <- appendResult{err: err}
			continue
		}
		live = append(live, c)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		c := live[0]
		pos, err := s.appendRows(c.ctx, s.pool, c.stream, c.expected, c.rows)
		c.done <- appendResult{pos, err}
		return
	}
	var streams, ids, types, datas, metas []string
	var expected []int64
	var orgs []*string
	var ords []int32
	for _, c := range live {
		for i, r := range c.rows {
			streams, expected, ids, types, datas, metas = append(streams, c.stream), append(expected, c.expected), append(ids, r.id), append(types, r.typ), append(datas, r.data), append(metas, r.meta)
			orgs, ords = append(orgs, r.org), append(ords, int32(i+1))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := map[string]event.Position{}
	counts := map[string]int{}
	rows, err := s.pool.Query(ctx, groupSQL, streams, expected, ids, types, datas, metas, orgs, ords)
	if err == nil {
		for rows.Next() {
			var (
				stream string
				p      event.Position
				txText string
			)
			if err = rows.Scan(&stream, &p.Global, &txText); err != nil {
				break
			}
			if p.TransactionID, err = strconv.ParseUint(txText, 10, 64); err != nil {
				break
			}
			if got[stream].Less(p) {
				got[stream] = p
			}
			counts[stream]++
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	for _, c := range live {
		if err == nil && counts[c.stream] == len(c.rows) {
			c.done <- appendResult{pos: got[c.stream]}
			continue
		}
		// a version mismatch (no rows for it), or the whole batch failed
		// (e.g. a writer outside the group won a race): on its own, the call
		// gets exactly the outcome it would have had
		pos, aerr := s.appendRows(c.ctx, s.pool, c.stream, c.expected, c.rows)
		c.done <- appendResult{pos, aerr}
	}
}

// groupAppend hands a call to the group writers and waits for its outcome.
func (s *Store) groupAppend(ctx context.Context, stream string, expected int64, rows []eventRow) (event.Position, error) {
	s.startGroup()
	c := &appendCall{ctx: ctx, stream: stream, expected: expected, rows: rows, done: make(chan appendResult, 1)}
	select {
	case s.calls <- c:
	case <-ctx.Done():
		return event.Position{}, ctx.Err()
	}
	r := <-c.done
	return r.pos, r.err
}
