-- 0012 read fences: each caller's last write of each event type, so the caller's next requests wait for the read models it fed.
--
-- Read-your-writes without waiting in the write (decision 230): an
-- operation whose answer is decided from its own aggregates (the suite's)
-- answers as soon as its transaction commits, after upserting here the
-- position of the last event of each type it appended, for its caller
-- (event metadata's actor, "key:<id>"). Every later request of that
-- caller, on any instance, reads its rows and waits, bounded, until the
-- read models fed by those types have applied them. A row only moves
-- forward. Rows are coordination, like a lease (0007): a row older than
-- the wait bound says nothing a read model has not applied, and a reader
-- skips it.
CREATE TABLE IF NOT EXISTS read_fences (
    caller         text        NOT NULL,
    event_type     text        NOT NULL,
    transaction_id bigint      NOT NULL,
    position       bigint      NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (caller, event_type)
);
