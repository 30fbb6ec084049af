-- 0011 erasures: the organizations being erased and what each erasure found to erase, kept only while it runs.
--
-- Data deletion (spec B) erases an organization in short transactions, as
-- a leased job (commands/erasure, kind 'erasure'): a crash half way
-- leaves it to another instance, which starts it again from the top
-- (every step deletes what is left). erasures is the queue of that job:
-- a row is written in the transaction that appends the request's
-- DeletionConfirmed, and deleted by the job's last step, after the
-- organization's last row. next_attempt_at paces the retries of an
-- attempt that failed (its DeletionFailed says why).
--
-- erasure_items is what the job's first step found and the later ones
-- need after the events that named it are gone: the organization's users
-- to erase, those it keeps because they belong to another organization
-- (with their new home), its keys, workspaces and streams (whose
-- snapshots and job leases go too). Rows of both tables are coordination,
-- like a lease (0007), not business state: they hold the organization's
-- ids only while it is being erased.
CREATE TABLE IF NOT EXISTS erasures (
    request_id      text        PRIMARY KEY,
    org_id          uuid        NOT NULL,
    confirmed_at    timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS erasure_items (
    request_id     text NOT NULL REFERENCES erasures (request_id) ON DELETE CASCADE,
    kind           text NOT NULL, -- user (erased), home (a kept user), key, workspace, stream
    id             text NOT NULL,
    home_org       uuid,          -- a kept user's new organization and workspace
    home_workspace uuid,
    PRIMARY KEY (request_id, kind, id)
);
