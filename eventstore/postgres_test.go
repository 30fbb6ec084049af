package eventstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"svc/eventstore"
	"svc/test/pgtest"
)

// A DATABASE_URL with pool parameters (pool_max_conns) creates, opens and
// drops its database: the pool settings never reach the server, which
// would refuse them.
func TestPoolParametersInURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := pgtest.URL("pool_params")
	if strings.Contains(url, "?") {
		url += "&pool_max_conns=3"
	} else {
		url += "?pool_max_conns=3"
	}
	_ = eventstore.DropDatabase(ctx, url)
	pool, err := eventstore.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if got := pool.Config().MaxConns; got != 3 {
		t.Errorf("MaxConns %d, want the URL's 3", got)
	}
	pool.Close()
	if err := eventstore.DropDatabase(ctx, url); err != nil {
		t.Fatal(err)
	}
}
