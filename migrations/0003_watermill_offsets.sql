-- 0003 watermill offsets: where each watermill consumer group of the "events" topic stands.
--
-- The shape is watermill-sql's DefaultPostgreSQLOffsetsAdapter table. It is
-- created here, under the migration lock, rather than by the first subscriber,
-- so two processes subscribing at once cannot race on CREATE TABLE.
CREATE TABLE IF NOT EXISTS watermill_offsets_events (
    consumer_group                varchar(255) NOT NULL PRIMARY KEY,
    offset_acked                  bigint,
    last_processed_transaction_id xid8 NOT NULL
);
