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
