-- 0006 trigram search: pg_trgm and btree_gin for the q search of GET /api/rigor/workflows.
--
-- The workflows listing matches every term of q as a case-insensitive
-- substring of the workflow's title or task description (spec A: no
-- stemming, no ranking), which a full-text index cannot answer: a trigram
-- GIN index answers LIKE '%term%'. btree_gin lets the same GIN index hold the
-- organization and the task type beside the trigrams, so a search looks only
-- at the candidates of one organization. The indexes belong to the workflows
-- projection (each generation creates its own, on its workflow_search
-- table); only the extensions, which are per database, are created here.
-- Both ship with PostgreSQL (contrib) and are trusted extensions since
-- PostgreSQL 13: the database owner may create them without superuser rights.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
