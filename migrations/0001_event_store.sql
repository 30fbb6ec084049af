-- 0001 event store: one append-only table; (transaction_id, position) is the global read order.
--
-- position is a sequence value: unique, but not in commit order. Readers therefore
-- page by (transaction_id, position) and only below
-- pg_snapshot_xmin(pg_current_snapshot()), so an event from a transaction that
-- commits late is never skipped. UNIQUE (stream_id, version) is the optimistic
-- concurrency check: two writers of the same version cannot both commit.
-- org_id duplicates metadata.org_id so operators can tail or replay one org cheaply.
CREATE TABLE events (
    position       bigserial   NOT NULL,
    transaction_id xid8        NOT NULL DEFAULT pg_current_xact_id(),
    event_id       uuid        NOT NULL,
    stream_id      text        NOT NULL,
    version        bigint      NOT NULL CHECK (version >= 0),
    type           text        NOT NULL,
    data           jsonb       NOT NULL,
    metadata       jsonb       NOT NULL DEFAULT '{}',
    org_id         uuid,
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT events_pkey PRIMARY KEY (transaction_id, position),
    CONSTRAINT events_stream_version UNIQUE (stream_id, version)
);

-- Only operators look events up by position (events tail --from): a BRIN
-- index is enough (positions follow the physical order) and costs appends
-- almost nothing, unlike a btree.
CREATE INDEX events_position ON events USING brin (position);
CREATE INDEX events_org ON events (org_id, transaction_id, position) WHERE org_id IS NOT NULL;
