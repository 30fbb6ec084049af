package projections

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/qualitygate"
	"svc/eventstore/event"
)

// qualitygateProjections are the qualitygate product's read models (spec C).
func qualitygateProjections() []Projection { return []Projection{QualityGateValidations{}} }

// QualityGateValidations is the read model of QualityGate's validations
// that trends read: a row per validation, per check type run and per
// directive checked.
type QualityGateValidations struct{}

// Name implements Projection.
func (QualityGateValidations) Name() string { return "qualitygate_validations" }

var (
	qgValidationsTable = Table{
		Name: "qualitygate_validations",
		DDL: `validation_id uuid PRIMARY KEY,
			org_id uuid NOT NULL,
			recorded_at timestamptz NOT NULL,
			checked_verdict text NOT NULL,
			verdict text NOT NULL,
			override boolean NOT NULL,
			score double precision NOT NULL,
			check_types text[] NOT NULL,
			llm boolean NOT NULL,
			llm_skipped boolean NOT NULL,
			issues integer NOT NULL,
			credits bigint NOT NULL`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, recorded_at)`},
	}
	qgChecksTable = Table{
		Name: "qualitygate_checks",
		DDL: `validation_id uuid NOT NULL,
			check_type text NOT NULL,
			org_id uuid NOT NULL,
			recorded_at timestamptz NOT NULL,
			passed boolean NOT NULL,
			PRIMARY KEY (validation_id, check_type)`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, recorded_at)`},
	}
	qgDirectivesTable = Table{
		Name: "qualitygate_directives",
		DDL: `validation_id uuid NOT NULL,
			idx integer NOT NULL,
			org_id uuid NOT NULL,
			recorded_at timestamptz NOT NULL,
			label text NOT NULL,
			type text NOT NULL,
			passed boolean NOT NULL,
			PRIMARY KEY (validation_id, idx)`,
		Indexes: []string{`CREATE INDEX {{table}}_org ON {{table}} (org_id, recorded_at)`},
	}
)

// Tables implements Projection.
func (QualityGateValidations) Tables() []Table {
	return []Table{qgValidationsTable, qgChecksTable, qgDirectivesTable}
}

// EventTypes implements Projection.
func (QualityGateValidations) EventTypes() []string { return []string{qualitygate.EventValidated} }

// Apply implements Projection.
func (QualityGateValidations) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	vals, checks, dirs := t.Of(qgValidationsTable.Name), t.Of(qgChecksTable.Name), t.Of(qgDirectivesTable.Name)
	b := &pgx.Batch{}
	for _, e := range events {
		d, ok := e.Payload.(qualitygate.Validated)
		if !ok {
			continue
		}
		b.Queue(`INSERT INTO `+vals+` (validation_id, org_id, recorded_at, checked_verdict, verdict, override, score, check_types, llm, llm_skipped, issues, credits)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (validation_id) DO NOTHING`,
			d.ValidationID, d.OrgID, d.At, d.CheckedVerdict, d.Verdict, d.Override, d.Score, nonNil(d.CheckTypes), d.LLM, d.LLMSkipped, len(d.Issues), d.Credits)
		for _, c := range d.Checks {
			b.Queue(`INSERT INTO `+checks+` (validation_id, check_type, org_id, recorded_at, passed)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, d.ValidationID, c.CheckType, d.OrgID, d.At, c.Passed)
		}
		for i, x := range d.Directives {
			b.Queue(`INSERT INTO `+dirs+` (validation_id, idx, org_id, recorded_at, label, type, passed)
				VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, d.ValidationID, i, d.OrgID, d.At, x.Label, x.Type, x.Passed)
		}
	}
	return sendBatch(ctx, tx, b)
}

// QualityGateTrends are an organization's validations over a period.
// Rates are shares (0 to 1) of Total: pass, warn and fail by the checks'
// verdict (before any override), override by the validations overridden.
type QualityGateTrends struct {
	Days                                       int
	Since                                      time.Time
	CheckType                                  string
	Total, Passed, Warned, Failed, Overridden  int
	PassRate, WarnRate, FailRate, OverrideRate float64
	// AverageScore is nil without validations.
	AverageScore *float64
	ByCheckType  []QualityGateCheckTrend
	Directives   []QualityGateDirectiveTrend
	Daily        []QualityGateDay
}

// QualityGateCheckTrend is one check type's record over the period.
type QualityGateCheckTrend struct {
	CheckType     string
	Total, Passed int
	Failed        int
	PassRate      float64
}

// QualityGateDirectiveTrend is one directive's record: how often it was
// checked and failed (directive effectiveness: the directives outputs
// miss most come first).
type QualityGateDirectiveTrend struct {
	Directive, Type string
	Checked, Failed int
	FailRate        float64
}

// QualityGateDay is one UTC day's validations.
type QualityGateDay struct {
	Date                                      string
	Total, Passed, Warned, Failed, Overridden int
}

// MaxTrendDirectives bounds the directives a trends answer lists.
const MaxTrendDirectives = 20

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*10000) / 10000
}

// QualityGateTrends reads orgID's validations of the days days before now,
// of check type checkType only when it is not "".
func (q *Queries) QualityGateTrends(ctx context.Context, orgID string, days int, checkType string, now time.Time) (QualityGateTrends, error) {
	since := now.UTC().Add(-time.Duration(days) * 24 * time.Hour)
	t := QualityGateTrends{Days: days, Since: since, CheckType: checkType,
		ByCheckType: []QualityGateCheckTrend{}, Directives: []QualityGateDirectiveTrend{}, Daily: []QualityGateDay{}}
	pool := q.store.Pool()
	// a validation counts when it ran checkType ("" : every validation)
	const filter = `v.org_id = $1 AND v.recorded_at >= $2 AND ($3 = '' OR $3 = ANY(v.check_types))`
	var avg *float64
	err := pool.QueryRow(ctx, `SELECT count(*),
			count(*) FILTER (WHERE checked_verdict = 'pass'), count(*) FILTER (WHERE checked_verdict = 'warn'),
			count(*) FILTER (WHERE checked_verdict = 'fail'), count(*) FILTER (WHERE override), avg(score)
		FROM qualitygate_validations v WHERE `+filter, orgID, since, checkType).
		Scan(&t.Total, &t.Passed, &t.Warned, &t.Failed, &t.Overridden, &avg)
	if err != nil {
		return t, fmt.Errorf("qualitygate trends: %w", err)
	}
	if avg != nil {
		a := math.Round(*avg*10) / 10
		t.AverageScore = &a
	}
	t.PassRate, t.WarnRate, t.FailRate, t.OverrideRate = rate(t.Passed, t.Total), rate(t.Warned, t.Total), rate(t.Failed, t.Total), rate(t.Overridden, t.Total)

	rows, err := pool.Query(ctx, `SELECT c.check_type, count(*), count(*) FILTER (WHERE c.passed)
		FROM qualitygate_checks c WHERE c.org_id = $1 AND c.recorded_at >= $2 AND ($3 = '' OR c.check_type = $3)
		GROUP BY c.check_type ORDER BY c.check_type`, orgID, since, checkType)
	if err != nil {
		return t, fmt.Errorf("qualitygate trends by check type: %w", err)
	}
	t.ByCheckType, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (QualityGateCheckTrend, error) {
		var c QualityGateCheckTrend
		err := r.Scan(&c.CheckType, &c.Total, &c.Passed)
		c.Failed, c.PassRate = c.Total-c.Passed, rate(c.Passed, c.Total)
		return c, err
	})
	if err != nil {
		return t, fmt.Errorf("qualitygate trends by check type: %w", err)
	}

	rows, err = pool.Query(ctx, `SELECT d.label, d.type, count(*), count(*) FILTER (WHERE NOT d.passed)
		FROM qualitygate_directives d JOIN qualitygate_validations v USING (validation_id)
		WHERE `+filter+` AND d.org_id = $1 AND d.recorded_at >= $2
		GROUP BY d.label, d.type
		ORDER BY count(*) FILTER (WHERE NOT d.passed) DESC, count(*) DESC, d.label, d.type LIMIT $4`,
		orgID, since, checkType, MaxTrendDirectives)
	if err != nil {
		return t, fmt.Errorf("qualitygate trends by directive: %w", err)
	}
	t.Directives, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (QualityGateDirectiveTrend, error) {
		var d QualityGateDirectiveTrend
		err := r.Scan(&d.Directive, &d.Type, &d.Checked, &d.Failed)
		d.FailRate = rate(d.Failed, d.Checked)
		return d, err
	})
	if err != nil {
		return t, fmt.Errorf("qualitygate trends by directive: %w", err)
	}

	rows, err = pool.Query(ctx, `SELECT to_char(date_trunc('day', v.recorded_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD'), count(*),
			count(*) FILTER (WHERE checked_verdict = 'pass'), count(*) FILTER (WHERE checked_verdict = 'warn'),
			count(*) FILTER (WHERE checked_verdict = 'fail'), count(*) FILTER (WHERE override)
		FROM qualitygate_validations v WHERE `+filter+` GROUP BY 1 ORDER BY 1`, orgID, since, checkType)
	if err != nil {
		return t, fmt.Errorf("qualitygate trends by day: %w", err)
	}
	t.Daily, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (QualityGateDay, error) {
		var d QualityGateDay
		return d, r.Scan(&d.Date, &d.Total, &d.Passed, &d.Warned, &d.Failed, &d.Overridden)
	})
	if err != nil {
		return t, fmt.Errorf("qualitygate trends by day: %w", err)
	}
	return t, nil
}
