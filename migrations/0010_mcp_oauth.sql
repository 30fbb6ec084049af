-- 0010 mcp oauth: the sealed provider tokens of MCP connections, and the spent states of their OAuth callbacks.
--
-- mcp_tokens holds what the event log must not: the token an OAuth
-- provider issued for an organization's MCP connection (access and refresh
-- token, expiry, scopes), as JSON sealed with the service key
-- (SVC_SECRET_KEY, adapters/secrets), never in clear. One row per
-- organization and provider: each authorization replaces it, in the
-- transaction that appends its McpConnectionAuthorized (the event says who
-- authorized which mode and scopes, without the token). A row is the
-- secret of the connection the events describe, so a projection rebuild
-- or replay neither needs nor restores it; deleting an organization's data
-- must delete its rows.
--
-- mcp_oauth_states records the nonce of every authorization state whose
-- callback ran, before the code is exchanged, so a state is used once
-- across every instance: the primary key makes a second use, concurrent or
-- later, fail. States are sealed and carry the whole flow, so nothing is
-- stored when one is issued. A row is coordination, like a lease (0007),
-- not business state; rows a day past their state's expiry are deleted by
-- the callback (a state is refused after expires_at anyway), hence the
-- index.
CREATE TABLE IF NOT EXISTS mcp_tokens (
    org_id     uuid        NOT NULL,
    provider   text        NOT NULL,
    sealed     text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, provider)
);

CREATE TABLE IF NOT EXISTS mcp_oauth_states (
    nonce      text        PRIMARY KEY,
    org_id     uuid        NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS mcp_oauth_states_expires ON mcp_oauth_states (expires_at);
