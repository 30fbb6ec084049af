-- 0008 snapshots: the latest folded state of long streams (a ledger), so a load reads only the events after it.
--
-- A snapshot is a cache, not business state: deleting any row, or all of
-- them, never changes an outcome, only how many events the next load of
-- that stream folds. One row per stream: the state of the aggregate after
-- the event at version, and that event's id. A load uses the row only when
-- that very event is in the log (a snapshot of a log restored from an older
-- backup, or of events that were rolled back, is ignored) and only when
-- codec is the version of the encoding the running code reads (the
-- aggregate's own codec version: a snapshot of another shape is ignored
-- and overwritten by the next one written). state is whatever the
-- aggregate's codec wrote (the ledger writes JSON). Writers replace a row
-- only with a newer version of the same codec, or with a newer codec.
-- eventstore/snapshot.go reads and writes it.
CREATE TABLE IF NOT EXISTS snapshots (
    stream_id  text        PRIMARY KEY,
    version    bigint      NOT NULL CHECK (version >= 0),
    event_id   uuid        NOT NULL,
    codec      integer     NOT NULL,
    state      bytea       NOT NULL,
    taken_at   timestamptz NOT NULL DEFAULT now()
);
