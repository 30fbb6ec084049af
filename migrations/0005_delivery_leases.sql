-- 0005 delivery leases: which dispatcher process sends which webhook delivery attempt, until when.
--
-- Like workflow_leases, a lease is coordination, not business state: the
-- delivery's stream (delivery-<delivery_id>) says which attempts were made
-- and when the next one is due; the lease only says who may make it now, so
-- two processes never send the same attempt at once. A dispatcher takes the
-- lease before an attempt and deletes it once the attempt is recorded; a
-- crashed process's lease expires and another dispatcher makes the attempt.
-- The attempt is appended with the stream's expected version, so even a
-- dispatcher that outlived its lease cannot record an attempt twice.
CREATE TABLE IF NOT EXISTS delivery_leases (
    delivery_id text PRIMARY KEY,
    owner       text NOT NULL,
    expires_at  timestamptz NOT NULL,
    taken_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS delivery_leases_owner ON delivery_leases (owner);
