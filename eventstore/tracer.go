package eventstore

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// statements counts the statements this process sent to PostgreSQL through
// connections from Connect (and Push's listener): BEGIN and COMMIT
// included, so it is what the server was asked to do.
var statements atomic.Int64

// Statements returns how many statements this process has sent to
// PostgreSQL (the svc_db_statements_total metric).
func Statements() int64 { return statements.Load() }

// counter is a pgx tracer that counts statements.
type counter struct{}

func (counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	statements.Add(1)
	return ctx
}

func (counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	if d.Batch != nil {
		statements.Add(int64(d.Batch.Len()))
	}
	return ctx
}

func (counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

var (
	_ pgx.QueryTracer = counter{}
	_ pgx.BatchTracer = counter{}
)
