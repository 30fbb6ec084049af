package projections_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"svc/eventstore/event"
	"svc/projections"
)

// shaped is a projection whose table gained a column in version 2.
type shaped struct{ version int }

func (shaped) Name() string         { return "shaped" }
func (shaped) EventTypes() []string { return []string{"X"} }
func (s shaped) SchemaVersion() int { return s.version }
func (s shaped) Tables() []projections.Table {
	ddl := "stream text PRIMARY KEY"
	if s.version >= 2 {
		ddl += ", seen bigint NOT NULL"
	}
	return []projections.Table{{Name: "shaped_streams", DDL: ddl}}
}
func (s shaped) Apply(ctx context.Context, tx pgx.Tx, t projections.Tables, events []event.Event) error {
	for _, e := range events {
		q := "INSERT INTO " + t.Of("shaped_streams") + " (stream) VALUES ($1) ON CONFLICT DO NOTHING"
		args := []any{e.StreamID}
		if s.version >= 2 {
			q = "INSERT INTO " + t.Of("shaped_streams") + " (stream, seen) VALUES ($1, 1) ON CONFLICT (stream) DO UPDATE SET seen = " + t.Of("shaped_streams") + ".seen + 1"
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// TestUpgradeRebuildsOlderSchema: a live generation built by an older
// schema version is rebuilt, from the log, by Upgrade; a current one is
// left alone.
func TestUpgradeRebuildsOlderSchema(t *testing.T) {
	db.Reset(t)
	ctx := context.Background()
	for _, s := range []string{"up-a", "up-b", "up-a"} {
		if _, err := store.Append(ctx, s, event.AnyVersion, event.New{Data: eventX{}}); err != nil {
			t.Fatal(err)
		}
	}
	old := newRunner(t, []projections.Projection{shaped{1}})
	catchUp(t, old)
	if err := old.Upgrade(ctx); err != nil {
		t.Fatal(err)
	}
	if cp, _ := projections.ActiveCheckpoint(ctx, db.Pool, "shaped"); cp.SchemaVersion != 1 || cp.Generation != 1 {
		t.Fatalf("current schema touched: %+v", cp)
	}

	fresh := newRunner(t, []projections.Projection{shaped{2}})
	if err := fresh.Upgrade(ctx); err != nil {
		t.Fatal(err)
	}
	cp, err := projections.ActiveCheckpoint(ctx, db.Pool, "shaped")
	if err != nil || cp.SchemaVersion != 2 || cp.Generation != 2 {
		t.Fatalf("after upgrade: %+v %v", cp, err)
	}
	catchUp(t, fresh) // another package's open transaction may have held the rebuild back
	var seen int64
	if err := db.Pool.QueryRow(ctx, "SELECT seen FROM shaped_streams WHERE stream = 'up-a'").Scan(&seen); err != nil || seen != 2 {
		t.Fatalf("rebuilt row: seen %d %v", seen, err)
	}
}
