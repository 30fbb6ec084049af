package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"svc/domain/folder"
	"svc/eventstore/event"
)

// Folders is the read model of workspaces' folders and of the folder each
// workflow is in (the listing's folder_id filter reads the latter).
type Folders struct{}

// Name implements Projection.
func (Folders) Name() string { return "folders" }

// foldersTable holds the folders that exist (a deleted one's row goes).
var foldersTable = Table{
	Name: "folders",
	DDL: `folder_id uuid PRIMARY KEY,
		org_id uuid NOT NULL,
		workspace_id uuid NOT NULL,
		name text NOT NULL,
		created_at timestamptz NOT NULL`,
	Indexes: []string{`CREATE INDEX {{table}}_workspace ON {{table}} (workspace_id, lower(name), folder_id)`},
}

// folderWorkflowsTable holds a row per workflow in a folder that exists;
// a workflow in no folder has none.
var folderWorkflowsTable = Table{
	Name: "folder_workflows",
	DDL: `workflow_id text PRIMARY KEY,
		org_id uuid NOT NULL,
		folder_id uuid NOT NULL`,
	Indexes: []string{`CREATE INDEX {{table}}_folder ON {{table}} (folder_id, workflow_id)`},
}

// Tables implements Projection.
func (Folders) Tables() []Table { return []Table{foldersTable, folderWorkflowsTable} }

// EventTypes implements Projection.
func (Folders) EventTypes() []string {
	return []string{folder.EventCreated, folder.EventRenamed, folder.EventDeleted, folder.EventWorkflowAdded, folder.EventWorkflowRemoved}
}

// Apply implements Projection. A workflow put into a folder deleted in the
// meantime (the move read the folder before the deletion committed) is in
// no folder: the assignment is kept only while its folder's row exists.
func (Folders) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	folders, members := t.Of(foldersTable.Name), t.Of(folderWorkflowsTable.Name)
	b := &pgx.Batch{}
	for _, e := range events {
		switch d := e.Payload.(type) {
		case folder.Created:
			b.Queue(`INSERT INTO `+folders+` (folder_id, org_id, workspace_id, name, created_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (folder_id) DO NOTHING`, d.FolderID, d.OrgID, d.WorkspaceID, d.Name, e.RecordedAt)
		case folder.Renamed:
			b.Queue(`UPDATE `+folders+` SET name = $2 WHERE folder_id = $1`, d.FolderID, d.Name)
		case folder.Deleted:
			b.Queue(`DELETE FROM `+members+` WHERE folder_id = $1`, d.FolderID)
			b.Queue(`DELETE FROM `+folders+` WHERE folder_id = $1`, d.FolderID)
		case folder.WorkflowAdded:
			b.Queue(`DELETE FROM `+members+` WHERE workflow_id = $1`, d.WorkflowID)
			b.Queue(`INSERT INTO `+members+` (workflow_id, org_id, folder_id)
				SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM `+folders+` WHERE folder_id = $3)`, d.WorkflowID, d.OrgID, d.FolderID)
		case folder.WorkflowRemoved:
			b.Queue(`DELETE FROM `+members+` WHERE workflow_id = $1 AND folder_id = $2`, d.WorkflowID, d.FolderID)
		}
	}
	return sendBatch(ctx, tx, b)
}

// folderID reports whether id has the shape of a folder id: a UUID in its
// 36-character form (what PostgreSQL's uuid type reads: not urn:uuid:).
func folderID(id string) bool { return len(id) == 36 && uuid.Validate(id) == nil }

// FolderRow is a folder as spec B shows it.
type FolderRow struct {
	ID        string
	Name      string
	CreatedAt time.Time
}

// Folders lists workspace wsID's folders by name (case-insensitively),
// then id.
func (q *Queries) Folders(ctx context.Context, wsID string) ([]FolderRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT folder_id::text, name, created_at FROM folders
		WHERE workspace_id = $1 ORDER BY lower(name), folder_id`, wsID)
	if err != nil {
		return nil, fmt.Errorf("folders: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FolderRow, error) {
		var f FolderRow
		return f, r.Scan(&f.ID, &f.Name, &f.CreatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("folders: %w", err)
	}
	return out, nil
}

// Folder is folder id of workspace wsID; ErrNotFound for another
// workspace's, a deleted or an unknown one.
func (q *Queries) Folder(ctx context.Context, wsID, id string) (FolderRow, error) {
	if !folderID(id) {
		return FolderRow{}, ErrNotFound
	}
	f := FolderRow{ID: id}
	err := q.store.Pool().QueryRow(ctx, `SELECT name, created_at FROM folders WHERE folder_id = $1 AND workspace_id = $2`, id, wsID).
		Scan(&f.Name, &f.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return FolderRow{}, ErrNotFound
	}
	if err != nil {
		return FolderRow{}, fmt.Errorf("folder: %w", err)
	}
	return f, nil
}
