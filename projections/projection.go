// Package projections builds the read models the HTTP API serves from the
// event log.
//
// A Projection owns a few tables. Each table lives in generations: the
// physical table rm_<name>_g<N>, and a view <name> that points at the active
// generation and is what readers query. A Runner feeds every projection the
// events in global order and writes the read model and its checkpoint in the
// same transaction, so a crash never applies an event twice or skips one. A
// rebuild fills generation N+1 beside the live one, in short batches, and
// switches the views when it has caught up: readers keep the old model until
// then.
package projections

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"svc/eventstore"
	"svc/eventstore/event"
)

// Table is one read-model table. DDL is the column list of CREATE TABLE;
// Indexes are CREATE INDEX statements. In both, {{table}} stands for the
// physical table name of a generation.
type Table struct {
	Name    string
	DDL     string
	Indexes []string
	// Storage is an optional storage parameter list for WITH (...), such
	// as "fillfactor = 50" for tables whose rows are updated in place often
	// (free room on the page keeps updates HOT: no index writes).
	Storage string
}

// Projection turns events into read-model rows.
type Projection interface {
	// Name identifies the projection (checkpoints, CLI).
	Name() string
	// Tables lists the tables the projection owns.
	Tables() []Table
	// EventTypes lists the event types the projection reads; the runner
	// hands it only those, decoded (Event.Payload set).
	EventTypes() []string
	// Apply applies a batch of events, in global order, inside tx, writing to
	// the tables named by t.
	Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error
}

// Versioned is a projection whose tables changed shape: a generation built
// at an older version is rebuilt at start (Runner.Upgrade). Projections
// that do not implement it are at version 1.
type Versioned interface {
	SchemaVersion() int
}

func schemaVersion(p Projection) int {
	if v, ok := p.(Versioned); ok {
		return v.SchemaVersion()
	}
	return 1
}

// All returns every projection of the service, in the order the CLI lists them.
func All() []Projection {
	all := []Projection{Organizations{}, Keys{}, Workspaces{}, Users{}, Invites{}, Billing{}, NewWorkflows(), Folders{}, TaskCosts{}, WebhookDeliveries{}, Usage{}, Audit{}, Budgets{}, LLMPolicies{}, AutoReloads{}, Notifications{}, WebhookEndpoints{}, DeletionRequests{}, Connections{}}
	// the suite's products (spec C), each in projections/suite_<product>.go
	for _, ps := range [][]Projection{dedupqProjections(), burnrateProjections(), qualitygateProjections(),
		guardrailProjections(), pitfalldbProjections()} {
		all = append(all, ps...)
	}
	return all
}

// Tables maps a table name to its physical table in one generation.
type Tables struct{ generation int }

// Of returns the physical name of table base in this generation, quoted.
func (t Tables) Of(base string) string {
	return pgx.Identifier{physical(base, t.generation)}.Sanitize()
}

func physical(base string, generation int) string {
	return fmt.Sprintf("rm_%s_g%d", base, generation)
}

func createTables(ctx context.Context, tx pgx.Tx, p Projection, generation int) error {
	for _, tb := range p.Tables() {
		name := physical(tb.Name, generation)
		quoted := pgx.Identifier{name}.Sanitize()
		if _, err := tx.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS %s", quoted)); err != nil {
			return fmt.Errorf("projection %s: drop stale %s: %w", p.Name(), name, err)
		}
		create := fmt.Sprintf("CREATE TABLE %s (%s)", quoted, tb.DDL)
		if tb.Storage != "" {
			create += " WITH (" + tb.Storage + ")"
		}
		if _, err := tx.Exec(ctx, create); err != nil {
			return fmt.Errorf("projection %s: create %s: %w", p.Name(), name, err)
		}
		for _, idx := range tb.Indexes {
			if _, err := tx.Exec(ctx, strings.ReplaceAll(idx, "{{table}}", name)); err != nil {
				return fmt.Errorf("projection %s: index on %s: %w", p.Name(), name, err)
			}
		}
	}
	return nil
}

func pointViews(ctx context.Context, tx pgx.Tx, p Projection, generation int) error {
	for _, tb := range p.Tables() {
		sql := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s",
			pgx.Identifier{tb.Name}.Sanitize(), pgx.Identifier{physical(tb.Name, generation)}.Sanitize())
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("projection %s: view %s: %w", p.Name(), tb.Name, err)
		}
	}
	return nil
}

func dropTables(ctx context.Context, db eventstore.DB, p Projection, generation int) error {
	for _, tb := range p.Tables() {
		if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{physical(tb.Name, generation)}.Sanitize()); err != nil {
			return fmt.Errorf("projection %s: drop generation %d: %w", p.Name(), generation, err)
		}
	}
	return nil
}
