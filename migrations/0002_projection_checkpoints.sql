-- 0002 projection checkpoints: one row per projection generation; exactly one generation is active.
--
-- A runner locks the active row, applies a batch of events to that generation's
-- tables and moves the checkpoint in the same transaction. A rebuild fills a new
-- generation beside the live one and flips "active" when it has caught up.
CREATE TABLE projection_checkpoints (
    name           text        NOT NULL,
    generation     integer     NOT NULL,
    active         boolean     NOT NULL DEFAULT false,
    schema_version integer     NOT NULL DEFAULT 1,
    transaction_id xid8        NOT NULL DEFAULT '0',
    position       bigint      NOT NULL DEFAULT 0,
    events_applied bigint      NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, generation)
);

CREATE UNIQUE INDEX projection_checkpoints_one_active ON projection_checkpoints (name) WHERE active;
