package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"svc/domain/pitfalldb"
	"svc/eventstore/event"
)

// pitfalldbProjections are the pitfalldb product's read models (spec C).
func pitfalldbProjections() []Projection { return []Projection{Pitfalls{}} }

// Pitfalls is PitfallDB's read model (decision 222): every report, owned
// by its organization (org_id), and every pitfall, shared by the
// organizations that reported it and so owned by none. A pitfall's row is
// recomputed from its remaining reports whenever they change: a report
// arrives, or an organization is erased (EraseOrg). Starter pitfalls
// have a row only once reported; queries merge the starter set.
type Pitfalls struct{}

// Name implements Projection.
func (Pitfalls) Name() string { return "pitfalldb" }

var pitfallReportsTable = Table{
	Name: "pitfalldb_reports",
	DDL: `report_id uuid PRIMARY KEY,
		org_id uuid NOT NULL,
		pitfall_id uuid NOT NULL,
		task_type text NOT NULL,
		error_type text NOT NULL,
		error_message text NOT NULL,
		root_cause text NOT NULL,
		fix_applied text NOT NULL,
		fix_worked boolean NOT NULL,
		language text NOT NULL,
		framework text NOT NULL,
		provider text NOT NULL,
		severity text NOT NULL,
		reported_at timestamptz NOT NULL`,
	Indexes: []string{
		`CREATE INDEX {{table}}_pitfall ON {{table}} (pitfall_id, reported_at)`,
		`CREATE INDEX {{table}}_org ON {{table}} (org_id)`,
		`CREATE INDEX {{table}}_time ON {{table}} (reported_at)`,
	},
}

var pitfallsTable = Table{
	Name: "pitfalldb_pitfalls",
	DDL: `pitfall_id uuid PRIMARY KEY,
		task_type text NOT NULL,
		starter boolean NOT NULL,
		title text NOT NULL,
		description text NOT NULL,
		severity text NOT NULL,
		severity_rank int NOT NULL,
		reports int NOT NULL,
		orgs int NOT NULL,
		fixes_worked int NOT NULL,
		verified boolean NOT NULL,
		verified_at timestamptz,
		first_reported_at timestamptz NOT NULL,
		last_reported_at timestamptz NOT NULL,
		fix text NOT NULL,
		fix_confidence double precision NOT NULL,
		language text NOT NULL,
		framework text NOT NULL,
		provider text NOT NULL,
		languages text[] NOT NULL,
		frameworks text[] NOT NULL,
		providers text[] NOT NULL,
		tags text[] NOT NULL`,
	Indexes: []string{`CREATE INDEX {{table}}_task ON {{table}} (task_type, verified)`},
	Storage: "fillfactor = 70",
}

// Tables implements Projection.
func (Pitfalls) Tables() []Table { return []Table{pitfallReportsTable, pitfallsTable} }

// EventTypes implements Projection.
func (Pitfalls) EventTypes() []string { return []string{pitfalldb.EventReported} }

// Apply implements Projection: the reports go in, then each pitfall they
// joined is recomputed once.
func (Pitfalls) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	b := &pgx.Batch{}
	var touched []string
	seen := map[string]bool{}
	for _, e := range events {
		d, ok := e.Payload.(pitfalldb.Reported)
		if !ok {
			continue
		}
		b.Queue(`INSERT INTO `+t.Of(pitfallReportsTable.Name)+` (report_id, org_id, pitfall_id, task_type, error_type, error_message,
			root_cause, fix_applied, fix_worked, language, framework, provider, severity, reported_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (report_id) DO NOTHING`,
			d.ReportID, d.OrgID, d.PitfallID, d.TaskType, d.ErrorType, d.ErrorMessage, d.RootCause, d.FixApplied, d.FixWorked,
			d.Language, d.Framework, d.Provider, d.Severity, e.RecordedAt)
		if !seen[d.PitfallID] {
			seen[d.PitfallID] = true
			touched = append(touched, d.PitfallID)
		}
	}
	if err := sendBatch(ctx, tx, b); err != nil {
		return err
	}
	for _, id := range touched {
		if err := recomputePitfall(ctx, tx, t, id); err != nil {
			return err
		}
	}
	return nil
}

// recomputePitfall rewrites pitfall id's row from its reports, under the
// row's lock (taken first, so an erasure's recomputation and a batch's
// never interleave); a pitfall left with no report loses its row.
func recomputePitfall(ctx context.Context, tx pgx.Tx, t Tables, id string) error {
	pitfalls, reports := t.Of(pitfallsTable.Name), t.Of(pitfallReportsTable.Name)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM `+pitfalls+` WHERE pitfall_id = $1 FOR UPDATE`, id); err != nil {
		return fmt.Errorf("lock pitfall %s: %w", id, err)
	}
	rows, err := tx.Query(ctx, `SELECT org_id::text, task_type, error_type, error_message, root_cause, fix_applied, fix_worked,
		language, framework, provider, severity, reported_at FROM `+reports+` WHERE pitfall_id = $1 ORDER BY reported_at, report_id`, id)
	if err != nil {
		return fmt.Errorf("reports of pitfall %s: %w", id, err)
	}
	var taskType string
	facts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pitfalldb.Fact, error) {
		var f pitfalldb.Fact
		var sev string
		err := r.Scan(&f.OrgID, &taskType, &f.ErrorType, &f.ErrorMessage, &f.RootCause, &f.FixApplied, &f.FixWorked,
			&f.Language, &f.Framework, &f.Provider, &sev, &f.At)
		f.Severity = pitfalldb.Severity(sev)
		return f, err
	})
	if err != nil {
		return fmt.Errorf("reports of pitfall %s: %w", id, err)
	}
	if len(facts) == 0 {
		_, err := tx.Exec(ctx, `DELETE FROM `+pitfalls+` WHERE pitfall_id = $1`, id)
		return err
	}
	st, starter := pitfalldb.StarterByID(id)
	s := pitfalldb.Summarize(starter, taskType, facts)
	if starter {
		s.Severity, s.Title, s.Description, s.Tags = st.Severity, st.Title, st.Description, st.Tags
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+pitfalls+` (pitfall_id, task_type, starter, title, description, severity, severity_rank,
		reports, orgs, fixes_worked, verified, verified_at, first_reported_at, last_reported_at, fix, fix_confidence,
		language, framework, provider, languages, frameworks, providers, tags)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
		ON CONFLICT (pitfall_id) DO UPDATE SET title = excluded.title, description = excluded.description,
			severity = excluded.severity, severity_rank = excluded.severity_rank, reports = excluded.reports, orgs = excluded.orgs,
			fixes_worked = excluded.fixes_worked, verified = excluded.verified, verified_at = excluded.verified_at,
			first_reported_at = excluded.first_reported_at, last_reported_at = excluded.last_reported_at, fix = excluded.fix,
			fix_confidence = excluded.fix_confidence, language = excluded.language, framework = excluded.framework,
			provider = excluded.provider, languages = excluded.languages, frameworks = excluded.frameworks,
			providers = excluded.providers, tags = excluded.tags`,
		id, taskType, starter, s.Title, s.Description, string(s.Severity), s.Severity.Rank(), s.Reports, s.Orgs, s.FixesWorked,
		s.Verified, s.VerifiedAt, s.First, s.Last, s.Fix, s.FixConfidence, s.AppliesTo.Language, s.AppliesTo.Framework,
		s.AppliesTo.Provider, s.Languages, s.Frameworks, s.Providers, nonNil(s.Tags))
	if err != nil {
		return fmt.Errorf("write pitfall %s: %w", id, err)
	}
	return nil
}

// EraseOrg implements OrgEraser: the organization's reports go, and every
// pitfall they had joined is recomputed from the reports left (the rows
// of pitfalls have no org_id: several organizations share them). A
// rebuild from the log, which no longer holds those reports, agrees.
func (Pitfalls) EraseOrg(ctx context.Context, db *pgxpool.Pool, t Tables, e OrgErasure) (int64, error) {
	reports := t.Of(pitfallReportsTable.Name)
	rows, err := db.Query(ctx, `SELECT DISTINCT pitfall_id::text FROM `+reports+` WHERE org_id = $1`, e.OrgID)
	if err != nil {
		return 0, fmt.Errorf("pitfalls of the organization: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("pitfalls of the organization: %w", err)
	}
	n, err := EraseWhere(ctx, db, reports, "org_id = $1", e.OrgID)
	if err != nil {
		return n, err
	}
	for _, id := range ids {
		err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '"+eraseLockTimeout+"'"); err != nil {
				return err
			}
			return recomputePitfall(ctx, tx, t, id)
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// PitfallRow is a pitfall as the read model has it.
type PitfallRow struct {
	ID, TaskType                  string
	Starter, Verified             bool
	Title, Description, Severity  string
	Reports, Orgs                 int
	Fix                           string
	FixConfidence                 float64
	Language, Framework, Provider string
	Languages, Frameworks         []string
	Providers, Tags               []string
}

// Pitfalls lists the verified pitfalls of the task types (starter ones
// reported at least once included).
func (q *Queries) Pitfalls(ctx context.Context, taskTypes ...string) ([]PitfallRow, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT pitfall_id::text, task_type, starter, verified, title, description, severity,
		reports, orgs, fix, fix_confidence, language, framework, provider, languages, frameworks, providers, tags
		FROM pitfalldb_pitfalls WHERE task_type = ANY($1) AND verified`, taskTypes)
	if err != nil {
		return nil, fmt.Errorf("pitfalls: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PitfallRow, error) {
		var p PitfallRow
		err := r.Scan(&p.ID, &p.TaskType, &p.Starter, &p.Verified, &p.Title, &p.Description, &p.Severity, &p.Reports, &p.Orgs,
			&p.Fix, &p.FixConfidence, &p.Language, &p.Framework, &p.Provider, &p.Languages, &p.Frameworks, &p.Providers, &p.Tags)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("pitfalls: %w", err)
	}
	return out, nil
}

// PitfallStats are PitfallDB's figures across organizations.
type PitfallStats struct {
	// Verified and Unverified count the pitfalls with a row (a starter
	// pitfall has one once reported, and is verified); StartersReported
	// counts the starter pitfalls among them.
	Verified, Unverified, StartersReported int
	Reports                                int
	TopTaskTypes                           []TaskTypeCount
	ReportsSince, NewSince, VerifiedSince  int
	OrgReports                             int
}

// TaskTypeCount is a task type and its number of reports.
type TaskTypeCount struct {
	TaskType string
	Reports  int
}

// PitfallStats are the figures: ReportsSince, NewSince (reported
// pitfalls first reported) and VerifiedSince (reported pitfalls verified)
// count from since on, OrgReports is organization orgID's reports, and
// TopTaskTypes lists up to limit task types by reports.
func (q *Queries) PitfallStats(ctx context.Context, orgID string, since time.Time, limit int) (PitfallStats, error) {
	var s PitfallStats
	pool := q.store.Pool()
	err := pool.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE verified), count(*) FILTER (WHERE NOT verified), count(*) FILTER (WHERE starter),
		count(*) FILTER (WHERE first_reported_at >= $1 AND NOT starter), count(*) FILTER (WHERE verified_at >= $1 AND NOT starter)
		FROM pitfalldb_pitfalls`, since).Scan(&s.Verified, &s.Unverified, &s.StartersReported, &s.NewSince, &s.VerifiedSince)
	if err != nil {
		return s, fmt.Errorf("pitfall stats: %w", err)
	}
	err = pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE reported_at >= $1), count(*) FILTER (WHERE org_id = $2)
		FROM pitfalldb_reports`, since, orgID).Scan(&s.Reports, &s.ReportsSince, &s.OrgReports)
	if err != nil {
		return s, fmt.Errorf("pitfall stats: %w", err)
	}
	rows, err := pool.Query(ctx, `SELECT task_type, count(*) FROM pitfalldb_reports GROUP BY task_type
		ORDER BY count(*) DESC, task_type LIMIT $1`, limit)
	if err != nil {
		return s, fmt.Errorf("pitfall stats: %w", err)
	}
	s.TopTaskTypes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (TaskTypeCount, error) {
		var c TaskTypeCount
		return c, r.Scan(&c.TaskType, &c.Reports)
	})
	if err != nil {
		return s, fmt.Errorf("pitfall stats: %w", err)
	}
	return s, nil
}
