-- 0007 job leases: one lease table for every kind of leased job (workflows, webhook deliveries); live leases are kept.
--
-- A lease is coordination, not business state. A job's stream says what
-- happened to it (a workflow's steps, a delivery's attempts) and when it is
-- due next; its lease only says which process (owner) may make the next
-- thing happen, until when. A process takes the lease before it runs a job
-- (commands/jobs), renews it every third of its length while the job runs
-- and deletes it when the job returns, and every lease it still holds when
-- it stops; a crashed process's leases expire and another process takes the
-- jobs over. Appends carry the stream's expected version, so even a process
-- that outlived its lease without noticing cannot record anything twice.
-- A lease is not a lock on the job's state and holds no data of the job.
--
-- kind names the kind of job ('workflow': commands/worker, 'delivery':
-- commands/webhooks); job_id is the job's id within its kind. The primary
-- key is the index of a claim, renewal or release, and of the read models'
-- find queries, which join it on (kind, job_id) and check expires_at on the
-- row it finds (a separate expiry index would serve no query). The index by
-- owner serves the release of all of a process's leases of a kind.
--
-- The leases of workflow_leases (0004) and delivery_leases (0005) that are
-- still live are copied, so no job one of them protects is taken over while
-- the migration runs; expired ones are left behind. A process of the
-- previous version still running during an upgrade can no longer renew its
-- leases: they expire and another process takes its jobs over, which the
-- expected versions make safe.
CREATE TABLE IF NOT EXISTS job_leases (
    kind       text        NOT NULL,
    job_id     text        NOT NULL,
    owner      text        NOT NULL,
    expires_at timestamptz NOT NULL,
    taken_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, job_id)
);
CREATE INDEX IF NOT EXISTS job_leases_owner ON job_leases (owner, kind);

INSERT INTO job_leases (kind, job_id, owner, expires_at, taken_at)
SELECT 'workflow', workflow_id, owner, expires_at, taken_at FROM workflow_leases WHERE expires_at > now()
UNION ALL
SELECT 'delivery', delivery_id, owner, expires_at, taken_at FROM delivery_leases WHERE expires_at > now()
ON CONFLICT (kind, job_id) DO NOTHING;

DROP TABLE workflow_leases;
DROP TABLE delivery_leases;
