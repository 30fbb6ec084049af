package credentials

import (
	"context"
	"fmt"

	"svc/eventstore"
)

// EraseUsers deletes every credential of users (their password hash,
// sessions and one-time codes) and their read fences, through db: their sessions stop working
// on every instance at once (each request reads its session's row). It
// returns how many rows it deleted.
func EraseUsers(ctx context.Context, db eventstore.DB, users []string) (int64, error) {
	if len(users) == 0 {
		return 0, nil
	}
	var total int64
	for _, table := range []string{"user_sessions", "auth_codes", "user_credentials"} {
		tag, err := db.Exec(ctx, `DELETE FROM `+table+` WHERE user_id = ANY($1::uuid[])`, users)
		if err != nil {
			return total, fmt.Errorf("erase %s: %w", table, err)
		}
		total += tag.RowsAffected()
	}
	n, err := forgetFences(ctx, db, "user:", users)
	return total + n, err
}

// ForgetKeys deletes when keys were last used (api_key_usage) and their
// read fences, through db, and returns how many rows it deleted.
func ForgetKeys(ctx context.Context, db eventstore.DB, keys []string) (int64, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	tag, err := db.Exec(ctx, `DELETE FROM api_key_usage WHERE key_id = ANY($1::uuid[])`, keys)
	if err != nil {
		return 0, fmt.Errorf("erase api_key_usage: %w", err)
	}
	n, err := forgetFences(ctx, db, "key:", keys)
	return tag.RowsAffected() + n, err
}

// forgetFences deletes the read fences (migration 0012) of the callers
// prefix+id of ids: positions only, but erasure leaves nothing.
func forgetFences(ctx context.Context, db eventstore.DB, prefix string, ids []string) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM read_fences WHERE caller IN (SELECT $1 || id FROM unnest($2::text[]) AS id)`, prefix, ids)
	if err != nil {
		return 0, fmt.Errorf("erase read_fences: %w", err)
	}
	return tag.RowsAffected(), nil
}
