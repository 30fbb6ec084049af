-- 0004 workflow leases: which worker process runs which workflow, until when.
--
-- A lease is coordination, not business state: the workflow's events say
-- what happened, the lease only says who may make the next thing happen. A
-- worker renews its leases while it runs them and deletes them when it
-- stops; a crashed process's leases expire and another worker takes the
-- workflow over. Appends still carry the stream's expected version, so even
-- a worker that lost its lease without noticing cannot record a step twice.
CREATE TABLE IF NOT EXISTS workflow_leases (
    workflow_id text PRIMARY KEY,
    owner       text NOT NULL,
    expires_at  timestamptz NOT NULL,
    taken_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS workflow_leases_expiry ON workflow_leases (expires_at);
