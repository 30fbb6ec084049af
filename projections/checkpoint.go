package projections

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/eventstore"
	"svc/eventstore/event"
)

// Checkpoint is where one generation of a projection stands.
type Checkpoint struct {
	Name          string
	Generation    int
	Active        bool
	Position      event.Position
	EventsApplied int64
	UpdatedAt     time.Time
	SchemaVersion int
}

const checkpointColumns = "name, generation, active, transaction_id::text, position, events_applied, updated_at, schema_version"

func scanCheckpoint(row pgx.Row) (Checkpoint, error) {
	var (
		c      Checkpoint
		txText string
	)
	if err := row.Scan(&c.Name, &c.Generation, &c.Active, &txText, &c.Position.Global, &c.EventsApplied, &c.UpdatedAt, &c.SchemaVersion); err != nil {
		return Checkpoint{}, err
	}
	tx, err := strconv.ParseUint(txText, 10, 64)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint transaction id %q: %w", txText, err)
	}
	c.Position.TransactionID = tx
	return c, nil
}

// lockActiveWithHead is lockCheckpoint of name's active generation, skipping
// a row another runner holds, with the log's head (eventstore.Head) read in
// the same statement: one round trip where a live step took two. The head
// is read at the statement's start, before the lock is granted: an earlier
// head than a statement after it would read, which only moves the
// checkpoint less far. hasHead is false for an empty log.
func lockActiveWithHead(ctx context.Context, tx pgx.Tx, name string) (c Checkpoint, head event.Position, ok, hasHead bool, err error) {
	var (
		txText, headTx *string
		headPos        *int64
	)
	err = tx.QueryRow(ctx, `SELECT c.name, c.generation, c.active, c.transaction_id::text, c.position, c.events_applied, c.updated_at,
		c.schema_version, h.tx_text, h.position
		FROM projection_checkpoints c LEFT JOIN LATERAL (`+eventstore.HeadSQL+`) h ON true
		WHERE c.name = $1 AND c.active FOR UPDATE OF c SKIP LOCKED`, name).
		Scan(&c.Name, &c.Generation, &c.Active, &txText, &c.Position.Global, &c.EventsApplied, &c.UpdatedAt, &c.SchemaVersion, &headTx, &headPos)
	if errors.Is(err, pgx.ErrNoRows) {
		return Checkpoint{}, event.Position{}, false, false, nil
	}
	if err != nil {
		return Checkpoint{}, event.Position{}, false, false, fmt.Errorf("lock checkpoint %s: %w", name, err)
	}
	if c.Position.TransactionID, err = strconv.ParseUint(*txText, 10, 64); err != nil {
		return Checkpoint{}, event.Position{}, false, false, fmt.Errorf("checkpoint transaction id %q: %w", *txText, err)
	}
	if headTx == nil || headPos == nil {
		return c, event.Position{}, true, false, nil
	}
	if head.TransactionID, err = strconv.ParseUint(*headTx, 10, 64); err != nil {
		return Checkpoint{}, event.Position{}, false, false, fmt.Errorf("head transaction id %q: %w", *headTx, err)
	}
	head.Global = *headPos
	return c, head, true, true, nil
}

// lockCheckpoint locks one generation's row; ok is false when it is missing
// or (with skipLocked) held by another runner.
func lockCheckpoint(ctx context.Context, tx pgx.Tx, name string, generation int, skipLocked bool) (Checkpoint, bool, error) {
	where := "name = $1 AND active"
	args := []any{name}
	if generation > 0 {
		where = "name = $1 AND generation = $2"
		args = append(args, generation)
	}
	lock := " FOR UPDATE"
	if skipLocked {
		lock += " SKIP LOCKED"
	}
	c, err := scanCheckpoint(tx.QueryRow(ctx, "SELECT "+checkpointColumns+" FROM projection_checkpoints WHERE "+where+lock, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return Checkpoint{}, false, nil
	}
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("lock checkpoint %s: %w", name, err)
	}
	return c, true, nil
}

func saveCheckpoint(ctx context.Context, tx pgx.Tx, c Checkpoint, applied int) error {
	_, err := tx.Exec(ctx, `UPDATE projection_checkpoints
		SET transaction_id = $3::text::xid8, position = $4, events_applied = events_applied + $5, updated_at = now()
		WHERE name = $1 AND generation = $2`,
		c.Name, c.Generation, strconv.FormatUint(c.Position.TransactionID, 10), c.Position.Global, applied)
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", c.Name, err)
	}
	return nil
}

// Checkpoints returns every projection generation's checkpoint.
func Checkpoints(ctx context.Context, db eventstore.DB) ([]Checkpoint, error) {
	rows, err := db.Query(ctx, "SELECT "+checkpointColumns+" FROM projection_checkpoints ORDER BY name, generation")
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ActiveCheckpoint returns the checkpoint of the active generation of name.
func ActiveCheckpoint(ctx context.Context, db eventstore.DB, name string) (Checkpoint, error) {
	c, err := scanCheckpoint(db.QueryRow(ctx, "SELECT "+checkpointColumns+" FROM projection_checkpoints WHERE name = $1 AND active", name))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint of %s: %w", name, err)
	}
	return c, nil
}
