// Package pitfalldbtest tests PitfallDB's operations (commands/suite)
// against PostgreSQL: a failing embedder.
package pitfalldbtest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"svc/adapters/llm/offline"
	"svc/commands"
	"svc/commands/suite"
	"svc/domain/pitfalldb"
	"svc/eventstore"
	"svc/projections"
	"svc/test/pgtest"
)

var (
	store *eventstore.Store
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) {
	pgtest.Main(m, "pitfalldb", func(d *pgtest.DB) { store = eventstore.New(d.Pool) })
}

// downEmbedder always fails.
type downEmbedder struct{}

func (downEmbedder) Name() string { return "down" }

func (downEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedder down")
}

// TestQueryWithoutEmbedder: with the embedder down a query with a
// description still answers, ranked without it, says so in its
// fallback, and is charged.
func TestQueryWithoutEmbedder(t *testing.T) {
	ctx := context.Background()
	runner := projections.NewRunner(store, quiet, projections.All(), projections.WithPoll(5*time.Millisecond))
	if err := runner.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go runner.Run(rctx)
	repos := commands.NewRepositories(store)
	q := projections.NewQueries(store, repos.Workflows, runner, quiet)
	s := suite.New(repos, suite.Ports{Embedder: downEmbedder{}, LLM: offline.New(), Queries: q, Consistency: q, Log: quiet})
	org, err := commands.NewCreateOrganizationHandler(repos).Handle(ctx, commands.CreateOrganization{})
	if err != nil {
		t.Fatal(err)
	}
	caller := suite.Caller{OrgID: org.OrgID, WorkspaceID: org.WorkspaceID}
	r, err := s.PitfallDB.Query(ctx, suite.PitfallQuery{Caller: caller, TaskType: "sql_generation", TaskDescription: "monthly revenue report"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Fallback, "semantic search unavailable") || len(r.Pitfalls) < 3 || r.Receipt.CreditsUsed != 2 {
		t.Fatalf("query with the embedder down: %+v", r)
	}
	if r.Pitfalls[0].Severity != pitfalldb.Critical {
		t.Fatalf("not ranked by severity: %+v", r.Pitfalls[0])
	}
	// a report needs no embedder
	rep, err := s.PitfallDB.Report(ctx, suite.PitfallReport{Caller: caller, Report: pitfalldb.Report{TaskType: "sql_generation",
		TaskDescription: "revenue", Failure: pitfalldb.Failure{ErrorType: "UndefinedColumn", ErrorMessage: "column \"rev\" does not exist"}}})
	if err != nil || !rep.Starter || !rep.Verified {
		t.Fatalf("report: %+v %v", rep, err)
	}
}
