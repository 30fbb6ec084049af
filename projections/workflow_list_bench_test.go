package projections_test

// Latency of the workflows listing (GET /api/rigor/workflows) over a large
// read model. Run with
//
//	go test -run '^$' -bench WorkflowList -benchtime 200x -timeout 30m ./projections
//
// SVC_BENCH_WORKFLOWS sets the number of rows (default 1,000,000). The rows
// are generated straight into the read model (no events): one org ("big")
// holds a fifth of them, the rest are spread over 999 orgs ("typical", about
// 800 each). Descriptions are 14 words drawn from a skewed vocabulary, so
// some terms are common and some rare. Each case is one ListWorkflows call
// (page, total_count and active count in one round trip); p50 and p99 are
// reported, nothing is asserted.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"svc/domain/workflow"
	"svc/projections"
)

// benchVocabulary: word j is drawn with a probability falling with j
// (index = n * u^2, u uniform).
var benchVocabulary = []string{
	"the", "our", "for", "and", "plan", "team", "customer", "report", "market", "pricing", "review", "product", "launch", "strategy",
	"analysis", "quarter", "growth", "sales", "support", "process", "data", "risk", "budget", "board", "roadmap", "hiring", "churn",
	"onboarding", "competitors", "compliance", "security", "migration", "pipeline", "forecast", "revenue", "partners", "europe",
	"germany", "mobile", "platform", "retention", "survey", "interviews", "segment", "positioning", "campaign", "content", "brand",
	"vendor", "contract", "audit", "policy", "incident", "postmortem", "architecture", "database", "latency", "api", "integration",
	"workflow", "automation", "dashboard", "metrics", "okrs", "offsite", "training", "handbook", "benefits", "payroll", "tax",
	"invoice", "procurement", "logistics", "warehouse", "shipping", "returns", "pricing-page", "landing", "seo", "newsletter",
	"webinar", "conference", "sponsorship", "investor", "fundraising", "valuation", "acquisition", "merger", "due-diligence",
	"gdpr", "soc2", "iso27001", "accessibility", "localization", "translation", "japan", "brazil", "india", "canada", "nordics",
	"kubernetes", "terraform", "observability", "on-call", "runbook", "capacity", "sharding", "replication", "backup", "disaster",
	"recovery", "sustainability", "carbon", "diversity", "mentoring", "promotion", "compensation", "equity", "okr-review", "c++",
	"rust", "golang", "snake_case", "o'brien", "r&d", "q3", "q4", "2027", "ai", "llm",
}

var benchTaskTypes = []string{"competitive_analysis", "process_improvement", "launch_plan", "market_research", "strategy",
	"code_review", "documentation", "financial_analysis", "hiring_plan", "risk_assessment", "policy_draft", "research_summary"}

// benchRows generates rows [$1, $2) of the synthetic read model; $3 is the
// vocabulary, $4 the task types, $5 the active statuses.
const benchRows = `
INSERT INTO rm_workflows_g1 (workflow_id, org_id, workspace_id, status, task_type, value_class, title, description, rigor_level,
	total_steps, current_step, credits_estimate, credits_used, execution_mode, error, version, view, created_at, updated_at,
	started_at, completed_at, counts_toward_limit, approval_status, halt_reason, halted_at_step)
SELECT id, org, org, status, task_type, 'operational', title, description, 'standard', 8, CASE WHEN status = 'planned' THEN 0 ELSE 8 END,
	1200, CASE WHEN status = 'completed' THEN 1200 ELSE 300 END, 'standard',
	CASE WHEN status IN ('failed', 'halted') THEN 'provider_exhausted: every LLM provider failed at step 3' END, 20,
	jsonb_build_object('workflow_id', id, 'status', status, 'title', title), at, at + interval '2 minutes',
	CASE WHEN status <> 'planned' THEN at + interval '1 second' END,
	CASE WHEN status IN ('completed', 'failed', 'halted', 'cancelled') THEN at + interval '2 minutes' END,
	status = ANY($5::text[]), 'not_required', CASE WHEN status = 'halted' THEN 'connection_failure' END,
	CASE WHEN status = 'halted' THEN 3 END
FROM (
	SELECT i, 'wr_' || md5('svc-bench-wf-' || i) AS id,
		md5('svc-bench-org-' || CASE WHEN i % 5 = 0 THEN 0 ELSE 1 + i % 999 END)::uuid AS org,
		timestamptz '2026-01-01 00:00:00+00' + (i / 2) * interval '10 seconds' AS at,
		CASE WHEN r < 70 THEN 'completed' WHEN r < 78 THEN 'failed' WHEN r < 82 THEN 'halted' WHEN r < 86 THEN 'cancelled'
			WHEN r < 92 THEN 'planned' WHEN r < 95 THEN 'queued' WHEN r < 97 THEN 'executing' WHEN r < 98 THEN 'quality_review'
			ELSE 'completed_partial' END AS status,
		($4::text[])[1 + abs(hashint8extended(i, 2)) % array_length($4::text[], 1)] AS task_type,
		(SELECT initcap(string_agg(($3::text[])[1 + floor(array_length($3::text[], 1) * power((abs(hashint8extended(i, 100 + k)) % 1000003) / 1000003.0, 2))::int], ' '))
			FROM generate_series(1, 4) k) AS title,
		(SELECT string_agg(($3::text[])[1 + floor(array_length($3::text[], 1) * power((abs(hashint8extended(i, 200 + k)) % 1000003) / 1000003.0, 2))::int], ' ')
			FROM generate_series(1, 14) k) AS description
	FROM (SELECT i, abs(hashint8extended(i, 1)) % 100 AS r FROM generate_series($1::bigint, $2::bigint - 1) i) s
) g`

// benchSearch and benchCounts fill the search table and the status counts
// from the rows, as the projection would.
const (
	benchSearch = `INSERT INTO rm_workflow_search_g1 (workflow_id, org_id, task_type, created_at, search)
		SELECT workflow_id, org_id, task_type, created_at, lower(title) || E'\n' || lower(description) FROM rm_workflows_g1`
	benchCounts = `INSERT INTO rm_workflow_counts_g1 (org_id, status, counts_toward_limit, n)
		SELECT org_id, status, bool_or(counts_toward_limit), count(*) FROM rm_workflows_g1 GROUP BY org_id, status`
)

func BenchmarkWorkflowList(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_WORKFLOWS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	db.Reset(b)
	if err := projections.NewRunner(store, quiet, []projections.Projection{projections.Workflows{}}).Setup(ctx); err != nil {
		b.Fatal(err)
	}
	started := time.Now()
	if err := generateWorkflows(ctx, n); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d workflows with their indexes in %v", n, time.Since(started).Round(time.Second))

	big, typical := benchOrg(0), benchOrg(1)
	var deep projections.Cursor
	if err := db.Pool.QueryRow(ctx, `SELECT created_at, workflow_id FROM workflows WHERE org_id = $1
		ORDER BY created_at DESC, workflow_id DESC OFFSET $2 LIMIT 1`, big, n/5*9/10).Scan(&deep.CreatedAt, &deep.WorkflowID); err != nil {
		b.Fatal(err)
	}
	// the rows span created_at from 2026-01-01 over n*5 seconds: the last tenth
	lastTenth := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * 5 * time.Second * 9 / 10)
	terms := projections.SearchTerms("churn interviews")  // words 26 and 42: each in a few % of the rows
	common := projections.SearchTerms("customer")         // word 6: in about a third of the rows
	rare := projections.SearchTerms("o'brien snake_case") // two of the rarest words, together
	for _, c := range []struct {
		name string
		f    projections.WorkflowFilter
	}{
		{"first-page", projections.WorkflowFilter{}},
		{"status", projections.WorkflowFilter{Statuses: []string{"completed"}}},
		{"status+task_type", projections.WorkflowFilter{Statuses: []string{"completed"}, TaskType: "launch_plan"}},
		{"status+task_type+q", projections.WorkflowFilter{Statuses: []string{"completed"}, TaskType: "launch_plan", Terms: terms}},
		{"q-two-terms", projections.WorkflowFilter{Terms: terms}},
		{"q-rare", projections.WorkflowFilter{Terms: rare}},
		{"q-common", projections.WorkflowFilter{Terms: common}},
		{"active", projections.WorkflowFilter{CountsTowardLimit: new(true)}},
		{"created_after", projections.WorkflowFilter{CreatedAfter: &lastTenth}},
		{"deep-cursor", projections.WorkflowFilter{After: &deep}},
		{"deep-cursor+status", projections.WorkflowFilter{After: &deep, Statuses: []string{"failed", "halted"}}},
	} {
		for _, org := range []struct{ name, id string }{{"big", big}, {"typical", typical}} {
			if org.name == "typical" && c.f.After != nil {
				continue // the deep cursor is one of the big org's rows
			}
			f := c.f
			f.OrgID, f.Limit = org.id, 20
			b.Run(fmt.Sprintf("%s/org=%s", c.name, org.name), func(b *testing.B) {
				var (
					durations []time.Duration
					page      projections.WorkflowPage
				)
				for b.Loop() {
					t0 := time.Now()
					var err error
					if page, err = projections.ListWorkflows(ctx, db.Pool, f); err != nil {
						b.Fatal(err)
					}
					durations = append(durations, time.Since(t0))
				}
				slices.Sort(durations)
				pct := func(p float64) float64 {
					return float64(durations[min(len(durations)-1, int(p*float64(len(durations))))].Microseconds()) / 1000
				}
				b.ReportMetric(pct(0.50), "p50-ms")
				b.ReportMetric(pct(0.99), "p99-ms")
				b.ReportMetric(float64(page.Total), "total")
				b.ReportMetric(float64(len(page.Workflows)), "rows")
			})
		}
	}
}

func benchOrg(o int) string {
	var id string
	if err := db.Pool.QueryRow(context.Background(), "SELECT md5('svc-bench-org-' || $1::int)::uuid::text", o).Scan(&id); err != nil {
		panic(err)
	}
	return id
}

// generateWorkflows fills the (empty) workflows read model with n rows:
// without its indexes, which are then built again as the projection
// declares them, and analysed and vacuumed (the visibility map makes
// index-only counts possible, as autovacuum would in service).
func generateWorkflows(ctx context.Context, n int) error {
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	rows, err := conn.Query(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename IN ('rm_workflows_g1', 'rm_workflow_search_g1')
		AND indexname NOT LIKE '%_pkey'`)
	if err != nil {
		return err
	}
	var defs []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return err
		}
		defs = append(defs, d)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `DO $$ DECLARE r record; BEGIN
		FOR r IN SELECT indexname FROM pg_indexes WHERE tablename IN ('rm_workflows_g1', 'rm_workflow_search_g1') AND indexname NOT LIKE '%_pkey'
		LOOP EXECUTE 'DROP INDEX ' || quote_ident(r.indexname); END LOOP; END $$`); err != nil {
		return err
	}
	var active []string
	for _, s := range []string{"planned", "queued", "executing", "quality_review", "completed", "completed_partial", "failed", "halted", "cancelled"} {
		if workflow.Active(s) {
			active = append(active, s)
		}
	}
	const chunk = 100_000
	for from := 0; from < n; from += chunk {
		if _, err := conn.Exec(ctx, benchRows, from, min(from+chunk, n), benchVocabulary, benchTaskTypes, active); err != nil {
			return fmt.Errorf("generate rows %d..: %w", from, err)
		}
	}
	for _, q := range []string{benchSearch, benchCounts} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '512MB'"); err != nil {
		return err
	}
	for _, d := range defs {
		if _, err := conn.Exec(ctx, d); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	_, err = conn.Exec(ctx, "VACUUM (ANALYZE) rm_workflows_g1, rm_workflow_search_g1, rm_workflow_counts_g1")
	return err
}
