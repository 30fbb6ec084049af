-- 0009 credentials: what proves who a user is, kept outside the event log.
--
-- Password hashes, session tokens and one-time sign-in codes are secrets:
-- they never go into an event, so a rebuild never recreates them, and
-- erasing an organization deletes its rows. Each row is written in the
-- transaction of the command that appends the matching event (UserRegistered,
-- UserSignedIn, UserSignedOut, UserEmailVerified), so the log and these
-- tables never disagree. Tokens and codes are stored as SHA-256 hex of the
-- raw value; passwords as an argon2id PHC string.
CREATE TABLE IF NOT EXISTS user_credentials (
    user_id       uuid        PRIMARY KEY,
    email         text        NOT NULL UNIQUE, -- normalized (lower-case, trimmed)
    password_hash text        NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- A session: a short-lived access token (the cookie) and a refresh token
-- rotated at each use. refresh_previous keeps the hash of the refresh token
-- the last rotation replaced: presenting it again means the token leaked,
-- and revokes the session.
CREATE TABLE IF NOT EXISTS user_sessions (
    session_id        uuid        PRIMARY KEY,
    user_id           uuid        NOT NULL,
    access_hash       text        NOT NULL UNIQUE,
    access_expires_at timestamptz NOT NULL,
    refresh_hash      text        NOT NULL UNIQUE,
    refresh_previous  text        UNIQUE,
    refresh_expires_at timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    revoked_at        timestamptz
);
CREATE INDEX IF NOT EXISTS user_sessions_user ON user_sessions (user_id);

-- One-time codes that mails carry (email verification and sign-in links,
-- /api/auth/callback?code=...): used_at is set by the one use.
CREATE TABLE IF NOT EXISTS auth_codes (
    code_hash  text        PRIMARY KEY,
    user_id    uuid        NOT NULL,
    purpose    text        NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

-- When each API key was last used: written in batches by the serving
-- instances (at most one write per key every few seconds), never as an
-- event per request. Not a read model: a rebuild keeps it.
CREATE TABLE IF NOT EXISTS api_key_usage (
    key_id       uuid        PRIMARY KEY,
    last_used_at timestamptz NOT NULL
);
