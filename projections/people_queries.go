package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/adapters/credentials"
	"svc/domain/apikey"
	"svc/domain/org"
)

// SessionPrincipal is the principal of a valid session's access token: its
// user, in the user's own organization and default workspace with the
// user's role there. ErrNotFound for an unknown, expired or revoked token,
// and while the user's organization is being erased.
func (q *Queries) SessionPrincipal(ctx context.Context, access string) (Principal, error) {
	db := q.store.Pool()
	sessionID, userID, err := credentials.SessionOf(ctx, db, access)
	if errors.Is(err, credentials.ErrNotFound) {
		return Principal{}, ErrNotFound
	}
	if err != nil {
		return Principal{}, err
	}
	p := Principal{UserID: userID, SessionID: sessionID}
	err = db.QueryRow(ctx, `SELECT u.org_id::text, u.workspace_id::text, coalesce(m.role, 'viewer'), coalesce(o.tier, 'free')
		FROM users u LEFT JOIN workspace_members m ON m.workspace_id = u.workspace_id AND m.user_id = u.user_id
		LEFT JOIN organizations o ON o.org_id = u.org_id WHERE u.user_id = $1 AND o.erasing_since IS NULL`, userID).
		Scan(&p.OrgID, &p.WorkspaceID, &p.Role, &p.Tier)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, ErrNotFound
	}
	if err != nil {
		return Principal{}, fmt.Errorf("session principal: %w", err)
	}
	return p, nil
}

// UserRow is a user of the read model.
type UserRow struct {
	UserID string
	Email  string
	Name   string
}

// MembershipRow is one workspace a user belongs to.
type MembershipRow struct {
	WorkspaceID   string
	WorkspaceName string
	Role          apikey.Role
}

// User is user id with the workspaces they belong to (archived ones and
// those of an organization being erased left out), oldest membership
// first.
func (q *Queries) User(ctx context.Context, id string) (UserRow, []MembershipRow, error) {
	db := q.store.Pool()
	u := UserRow{UserID: id}
	err := db.QueryRow(ctx, `SELECT email, name FROM users WHERE user_id = $1`, id).Scan(&u.Email, &u.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		return UserRow{}, nil, ErrNotFound
	}
	if err != nil {
		return UserRow{}, nil, fmt.Errorf("user: %w", err)
	}
	rows, err := db.Query(ctx, `SELECT w.id::text, w.name, m.role FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
		LEFT JOIN organizations o ON o.org_id = w.org_id
		WHERE m.user_id = $1 AND w.archived_at IS NULL AND o.erasing_since IS NULL ORDER BY m.created_at, w.id`, id)
	if err != nil {
		return UserRow{}, nil, fmt.Errorf("memberships: %w", err)
	}
	ms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MembershipRow, error) {
		var m MembershipRow
		return m, r.Scan(&m.WorkspaceID, &m.WorkspaceName, &m.Role)
	})
	if err != nil {
		return UserRow{}, nil, fmt.Errorf("memberships: %w", err)
	}
	return u, ms, nil
}

// WorkspaceRow is a workspace of the read model.
type WorkspaceRow struct {
	ID         string
	OrgID      string
	Name       string
	Slug       string
	IsDefault  bool
	CreatedAt  time.Time
	ArchivedAt *time.Time
	Tier       org.Tier
	// Budget is the workspace's budget this month, when it has one and
	// the tier has budgets (budgets.go); nil otherwise.
	Budget *BudgetRow
}

const workspaceColumns = `w.id::text, w.org_id::text, w.name, w.slug, w.is_default, w.created_at, w.archived_at, coalesce(o.tier, 'free')`

func scanWorkspace(r pgx.CollectableRow) (WorkspaceRow, error) {
	var w WorkspaceRow
	return w, r.Scan(&w.ID, &w.OrgID, &w.Name, &w.Slug, &w.IsDefault, &w.CreatedAt, &w.ArchivedAt, &w.Tier)
}

// Workspace is workspace id; ErrNotFound when missing, or when its
// organization is being erased.
func (q *Queries) Workspace(ctx context.Context, id string) (WorkspaceRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT `+workspaceColumns+` FROM workspaces w
		LEFT JOIN organizations o ON o.org_id = w.org_id WHERE w.id = $1 AND o.erasing_since IS NULL`, id)
	if err != nil {
		return WorkspaceRow{}, fmt.Errorf("workspace: %w", err)
	}
	w, err := pgx.CollectExactlyOneRow(rows, scanWorkspace)
	if errors.Is(err, pgx.ErrNoRows) {
		return WorkspaceRow{}, ErrNotFound
	}
	if err != nil {
		return WorkspaceRow{}, fmt.Errorf("workspace: %w", err)
	}
	one := []WorkspaceRow{w}
	if err := q.withBudgets(ctx, one); err != nil {
		return WorkspaceRow{}, err
	}
	return one[0], nil
}

// WorkspaceFilter selects workspaces of an organization.
type WorkspaceFilter struct {
	OrgID           string
	IncludeArchived bool
	// MemberID, when set, keeps the workspaces user MemberID belongs to
	// (in any organization; OrgID is then ignored).
	MemberID string
	// OnlyID, when set, keeps that one workspace (a key's own).
	OnlyID string
}

// Workspaces lists workspaces, oldest first (none of an organization
// being erased).
func (q *Queries) Workspaces(ctx context.Context, f WorkspaceFilter) ([]WorkspaceRow, error) {
	sql := `SELECT ` + workspaceColumns + ` FROM workspaces w LEFT JOIN organizations o ON o.org_id = w.org_id WHERE o.erasing_since IS NULL AND `
	var args []any
	switch {
	case f.MemberID != "":
		sql += `w.id IN (SELECT workspace_id FROM workspace_members WHERE user_id = $1)`
		args = append(args, f.MemberID)
	case f.OnlyID != "":
		sql += `w.id = $1 AND w.org_id = $2`
		args = append(args, f.OnlyID, f.OrgID)
	default:
		sql += `w.org_id = $1`
		args = append(args, f.OrgID)
	}
	if !f.IncludeArchived {
		sql += ` AND w.archived_at IS NULL`
	}
	rows, err := q.store.Pool().Query(ctx, sql+` ORDER BY w.created_at, w.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("workspaces: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanWorkspace)
	if err != nil {
		return nil, fmt.Errorf("workspaces: %w", err)
	}
	if err := q.withBudgets(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// MemberRole is user's role in workspace wsID, "" for a non-member.
func (q *Queries) MemberRole(ctx context.Context, wsID, userID string) (apikey.Role, error) {
	var r apikey.Role
	err := q.store.Pool().QueryRow(ctx, `SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, wsID, userID).Scan(&r)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("member role: %w", err)
	}
	return r, nil
}

// MemberRow is a member of a workspace: a user or an API key.
type MemberRow struct {
	ID        string
	Type      string // "user" or "api_key"
	Email     string // users
	Name      string // users
	KeyPrefix string // keys
	Role      apikey.Role
	CreatedAt time.Time
}

// Members lists workspace wsID's users, then its active keys, oldest first.
func (q *Queries) Members(ctx context.Context, wsID string) ([]MemberRow, error) {
	rows, err := q.store.Pool().Query(ctx, `
		SELECT user_id::text, 'user', email, name, '', role, created_at, 0 FROM workspace_members WHERE workspace_id = $1
		UNION ALL
		SELECT key_id::text, 'api_key', '', '', prefix, role, created_at, 1 FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL
		ORDER BY 8, 7, 1`, wsID)
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MemberRow, error) {
		var m MemberRow
		var kind int
		return m, r.Scan(&m.ID, &m.Type, &m.Email, &m.Name, &m.KeyPrefix, &m.Role, &m.CreatedAt, &kind)
	})
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	return out, nil
}

// KeyRow is an API key as a workspace lists it (never the key itself).
type KeyRow struct {
	KeyID      string
	Prefix     string
	Label      string
	Role       apikey.Role
	CreatedAt  time.Time
	LastUsedAt *time.Time
	CreatedBy  string
}

// WorkspaceKeys lists workspace wsID's active keys, oldest first.
func (q *Queries) WorkspaceKeys(ctx context.Context, wsID string) ([]KeyRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT k.key_id::text, k.prefix, k.label, k.role, k.created_at, u.last_used_at, k.created_by
		FROM api_keys k LEFT JOIN api_key_usage u ON u.key_id = k.key_id
		WHERE k.workspace_id = $1 AND k.revoked_at IS NULL ORDER BY k.created_at, k.key_id`, wsID)
	if err != nil {
		return nil, fmt.Errorf("workspace keys: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (KeyRow, error) {
		var k KeyRow
		return k, r.Scan(&k.KeyID, &k.Prefix, &k.Label, &k.Role, &k.CreatedAt, &k.LastUsedAt, &k.CreatedBy)
	})
	if err != nil {
		return nil, fmt.Errorf("workspace keys: %w", err)
	}
	return out, nil
}
