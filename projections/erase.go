package projections

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/eventstore"
)

// Erasing an organization from the read models (data deletion, spec B).
//
// The erasure deletes the organization's events first; EraseOrg then
// deletes its rows from every generation of every projection: the live
// one and one a rebuild is filling. Before it touches a projection it
// waits for the batch its runners may be applying (it locks every
// checkpoint row of the projection, once): a batch that read the
// organization's events before they were deleted has committed then, and
// every later batch reads a log without them. So no row of the
// organization comes back, and a rebuild from the log afterwards equals
// the live model. Rows go in short transactions of eraseBatch rows each,
// never one long transaction (decision 3, the xmin rule).

// eraseBatch is how many rows one transaction of an erasure deletes.
const eraseBatch = 2000

// eraseLockTimeout bounds how long an erasure's statement waits for a
// lock (a runner's batch, a rebuild switching generations): past it the
// attempt fails and is tried again later.
const eraseLockTimeout = "5s"

// OrgErasure is what erasing organization OrgID removes from the read
// models beyond the rows whose org_id is its id.
type OrgErasure struct {
	OrgID string
	// RequestID is the deletion request carrying the erasure out: its row
	// of deletion_requests stays (OrganizationErased anonymizes it).
	RequestID string
	// Keys and Workspaces are the organization's API key and workspace
	// ids (audit_keys has no org_id).
	Keys, Workspaces []string
	// Homes are the organization's users who belong to another
	// organization too: they keep their account, in a new home.
	Homes []Home
}

// Home is where a kept user's account now belongs: an organization and a
// workspace of it they are a member of.
type Home struct {
	UserID, OrgID, WorkspaceID string
}

// OrgEraser is a projection whose tables the generic erasure (deleting
// every row whose org_id is the organization's) does not cover, or
// covers wrongly: it erases one generation's rows itself, through db, in
// short transactions (EraseWhere), and returns how many rows it changed.
// TestEveryTableIsErasable fails for a table with no org_id column whose
// projection is not one.
type OrgEraser interface {
	EraseOrg(ctx context.Context, db *pgxpool.Pool, t Tables, e OrgErasure) (int64, error)
}

// EraseOrg erases organization e.OrgID from every generation of the
// tables of ps, the keys first (so no key outlives its organization's
// row, which revokes it) and the organizations last, and returns how many
// rows it deleted or rewrote.
func EraseOrg(ctx context.Context, pool *pgxpool.Pool, ps []Projection, e OrgErasure) (int64, error) {
	ordered := slices.Clone(ps)
	rank := func(p Projection) int {
		switch p.Name() {
		case Keys{}.Name():
			return 0
		case Organizations{}.Name():
			return 2
		}
		return 1
	}
	slices.SortStableFunc(ordered, func(a, b Projection) int { return rank(a) - rank(b) })
	var total int64
	for _, p := range ordered {
		gens, err := barrier(ctx, pool, p.Name())
		if err != nil {
			return total, err
		}
		for _, g := range gens {
			n, err := eraseGeneration(ctx, pool, p, g, e)
			total += n
			if err != nil {
				return total, fmt.Errorf("erase %s (generation %d): %w", p.Name(), g, err)
			}
		}
	}
	return total, nil
}

// barrier locks every checkpoint row of projection name, waiting for the
// batches being applied, and returns its generations.
func barrier(ctx context.Context, pool *pgxpool.Pool, name string) ([]int, error) {
	var gens []int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+eraseLockTimeout+"'"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT generation FROM projection_checkpoints WHERE name = $1 ORDER BY generation FOR UPDATE`, name)
		if err != nil {
			return err
		}
		gens, err = pgx.CollectRows(rows, pgx.RowTo[int])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("erase %s: wait for its runners: %w", name, err)
	}
	return gens, nil
}

// eraseGeneration erases e from generation g of p.
func eraseGeneration(ctx context.Context, pool *pgxpool.Pool, p Projection, g int, e OrgErasure) (int64, error) {
	t := Tables{generation: g}
	if er, ok := p.(OrgEraser); ok {
		n, err := er.EraseOrg(ctx, pool, t, e)
		if gone(err) { // a rebuild dropped the generation meanwhile
			return n, nil
		}
		return n, err
	}
	var total int64
	for _, tb := range p.Tables() {
		name := physical(tb.Name, g)
		var has bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'org_id')`, name).Scan(&has)
		if err != nil {
			return total, err
		}
		if !has {
			var exists bool
			if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
				return total, err
			}
			if !exists {
				continue // dropped by a rebuild meanwhile
			}
			return total, fmt.Errorf("table %s has no org_id column and projection %s erases nothing itself", name, p.Name())
		}
		n, err := EraseWhere(ctx, pool, t.Of(tb.Name), "org_id = $1", e.OrgID)
		total += n
		if gone(err) {
			continue
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// gone reports whether err is a table that no longer exists.
func gone(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "42P01"
}

// WaitCaughtUp waits, at most bound, until the projections names have
// applied the log's visible head (eventstore.Head): a reader of their
// tables then sees every event committed before the call.
func WaitCaughtUp(ctx context.Context, db eventstore.DB, bound time.Duration, names ...string) error {
	head, ok, err := eventstore.Head(ctx, db)
	if err != nil || !ok {
		return err
	}
	deadline := time.Now().Add(bound)
	for _, name := range names {
		for {
			cp, err := ActiveCheckpoint(ctx, db, name)
			if err != nil {
				return err
			}
			if cp.Position.Reached(head) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("projection %s has not reached the log's head %s within %s", name, head, bound)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

// EraseWhere deletes the rows of table (a quoted physical name, Tables.Of)
// matching where (args are its parameters), eraseBatch rows per
// transaction, and returns how many it deleted.
func EraseWhere(ctx context.Context, pool *pgxpool.Pool, table, where string, args ...any) (int64, error) {
	sql := fmt.Sprintf(`DELETE FROM %s WHERE ctid = ANY(ARRAY(SELECT ctid FROM %s WHERE %s LIMIT %d))`, table, table, where, eraseBatch)
	var total int64
	for {
		var n int64
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+eraseLockTimeout+"'"); err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, sql, args...)
			n = tag.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("erase from %s: %w", table, err)
		}
		total += n
		if n < eraseBatch {
			return total, nil
		}
	}
}

// EraseOrg implements OrgEraser: the organization's users who belong to
// another organization move there (their UserRegistered was rewritten
// the same way, so a rebuild agrees), then the others go.
func (Users) EraseOrg(ctx context.Context, db *pgxpool.Pool, t Tables, e OrgErasure) (int64, error) {
	var moved int64
	if len(e.Homes) > 0 {
		users, orgs, wss := make([]string, len(e.Homes)), make([]string, len(e.Homes)), make([]string, len(e.Homes))
		for i, h := range e.Homes {
			users[i], orgs[i], wss[i] = h.UserID, h.OrgID, h.WorkspaceID
		}
		tag, err := db.Exec(ctx, `UPDATE `+t.Of("users")+` u SET org_id = h.org_id, workspace_id = h.workspace_id
			FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS h(user_id, org_id, workspace_id)
			WHERE u.user_id = h.user_id AND u.org_id = $4`, users, orgs, wss, e.OrgID)
		if err != nil {
			return 0, fmt.Errorf("move kept users: %w", err)
		}
		moved = tag.RowsAffected()
	}
	n, err := EraseWhere(ctx, db, t.Of("users"), "org_id = $1", e.OrgID)
	return moved + n, err
}

// EraseOrg implements OrgEraser: audit_keys has no org_id; its rows are
// the organization's keys' and workspaces'.
func (Audit) EraseOrg(ctx context.Context, db *pgxpool.Pool, t Tables, e OrgErasure) (int64, error) {
	n, err := EraseWhere(ctx, db, t.Of("audit_events"), "org_id = $1", e.OrgID)
	if err != nil {
		return n, err
	}
	m, err := EraseWhere(ctx, db, t.Of("audit_keys"), "key_id = ANY($1::text[]) OR workspace_id = ANY($2::uuid[])",
		idsOrEmpty(e.Keys), idsOrEmpty(e.Workspaces))
	return n + m, err
}

// EraseOrg implements OrgEraser: the request carrying the erasure out
// stays, for OrganizationErased to anonymize.
func (DeletionRequests) EraseOrg(ctx context.Context, db *pgxpool.Pool, t Tables, e OrgErasure) (int64, error) {
	return EraseWhere(ctx, db, t.Of("deletion_requests"), "org_id = $1 AND request_id <> $2", e.OrgID, e.RequestID)
}

func idsOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
