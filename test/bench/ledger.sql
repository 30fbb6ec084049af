-- Synthetic credit ledgers, the same JSON the domain (package domain/credit)
-- and the event store (metadata, org_id column) produce. Parameters:
--   $1 int     number of organizations (one ledger stream "credits-<org>" each)
--   $2 bigint  first event number (inclusive), $3 bigint last (exclusive)
-- Event i belongs to org i % $1 at stream version i / $1, so any chunking of
-- [0, N) in increasing order yields gap-free versions. Per ledger: version 0 is
-- the signup grant, every 20th (from 1) a purchase grant, every 10th (from 9)
-- a refund of 1 credit to the workflow charged just before, the rest charges
-- of 1 to 40 credits in workflows of 8 steps. Org and key ids are
-- md5('svc-bench-org-' || o)::uuid and md5('svc-bench-key-' || o)::uuid.
INSERT INTO events (event_id, stream_id, version, type, data, metadata, org_id, recorded_at)
SELECT gen_random_uuid(), 'credits-' || g.org, g.v, g.type, g.data, g.meta, g.org, g.at
FROM (
    SELECT s.i, s.v, s.org,
        CASE WHEN s.v = 0 OR s.v % 20 = 1 THEN 'CreditsGranted'
             WHEN s.v % 10 = 9 THEN 'CreditsRefunded'
             ELSE 'CreditsCharged' END AS type,
        CASE WHEN s.v = 0 THEN
                jsonb_build_object('org_id', s.org, 'amount', 2500, 'reason', 'signup')
             WHEN s.v % 20 = 1 THEN
                jsonb_build_object('org_id', s.org, 'amount', 50000, 'reason', 'purchase', 'note', 'invoice in_' || s.o || '_' || s.v)
             WHEN s.v % 10 = 9 THEN
                jsonb_build_object('org_id', s.org, 'amount', 1, 'reason', 'step_failed',
                    'workflow_id', 'wr_' || substr(md5(s.o || '-' || ((s.v - 1) / 8)), 1, 16))
             ELSE jsonb_strip_nulls(jsonb_build_object('org_id', s.org, 'amount', 1 + (s.v * 13 + s.o * 7) % 40,
                    'reason', 'workflow_step',
                    'workflow_id', 'wr_' || substr(md5(s.o || '-' || (s.v / 8)), 1, 16),
                    'step', nullif(s.v % 8, 0),
                    'key_id', s.key,
                    'agent_id', 'agent_' || (s.v % 3)))
        END AS data,
        jsonb_build_object('org_id', s.org,
            'actor', CASE WHEN s.v % 20 = 1 THEN 'system' ELSE 'key:' || s.key END,
            'request_id', 'req_' || substr(md5('req-' || s.i), 1, 24),
            'correlation_id', 'req_' || substr(md5('req-' || s.i), 1, 24)) AS meta,
        timestamptz '2026-10-01 00:00:00+00' + s.i * interval '1 second' AS at
    FROM (
        SELECT i, i / $1 AS v, i % $1 AS o,
            md5('svc-bench-org-' || (i % $1))::uuid AS org,
            md5('svc-bench-key-' || (i % $1))::uuid AS key
        FROM generate_series($2::bigint, $3::bigint - 1) AS i
    ) s
) g
ORDER BY g.i
