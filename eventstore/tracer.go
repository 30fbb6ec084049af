package eventstore

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// counter is a pgx tracer that counts the statements sent on the
// connections of one pool (Connect), and on Push's listener, which copies
// the pool's connection settings: BEGIN and COMMIT included, so it is
// what the server was asked to do.
type counter struct{ n atomic.Int64 }

// Statements returns how many statements have been sent to PostgreSQL
// through pool, when Connect opened it (else 0): the
// svc_db_statements_total metric.
func Statements(pool *pgxpool.Pool) int64 {
	if c, ok := pool.Config().ConnConfig.Tracer.(*counter); ok {
		return c.n.Load()
	}
	return 0
}

func (c *counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (*counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	if d.Batch != nil {
		c.n.Add(int64(d.Batch.Len()))
	}
	return ctx
}

func (*counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (*counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

var (
	_ pgx.QueryTracer = (*counter)(nil)
	_ pgx.BatchTracer = (*counter)(nil)
)
