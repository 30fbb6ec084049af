-- 0013 connection credentials: the sealed auth_credential of each context-server connection (spec A, /api/rigor/connections).
--
-- A connection's credential (a bearer token, an API key with its header,
-- an OAuth access token) is a secret: it never goes into an event. It is
-- kept here as JSON sealed with the service key (SVC_SECRET_KEY,
-- adapters/secrets, the box of mcp_tokens and webhook secrets), one row
-- per connection, written in the transaction that appends the event
-- saying it was set (ContextConnectionCreated, or ContextConnectionUpdated
-- with credential_replaced) and deleted in the one that appends
-- ContextConnectionRevoked: a revoked connection keeps its record, not its
-- credential. The sealed JSON names its organization and connection, so a
-- row copied onto another connection's id is refused when it is opened.
-- A projection rebuild neither needs nor restores these rows; erasing an
-- organization's data deletes them (org_id).
CREATE TABLE IF NOT EXISTS connection_credentials (
    connection_id uuid        PRIMARY KEY,
    org_id        uuid        NOT NULL,
    sealed        text        NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS connection_credentials_org ON connection_credentials (org_id);
