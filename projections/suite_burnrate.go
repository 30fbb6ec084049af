package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/domain/burnrate"
	"svc/eventstore/event"
)

// burnrateProjections are the burnrate product's read models (spec C).
func burnrateProjections() []Projection { return []Projection{BurnRate{}} }

// BurnRate is BurnRate's read model: each organization's tracked spend
// and activity per UTC day (the budget), and its correction factor per
// model (estimates).
type BurnRate struct{}

// Name implements Projection.
func (BurnRate) Name() string { return "burnrate" }

var (
	// burnrateSpendTable: tracked spend per organization, UTC day and
	// model.
	burnrateSpendTable = Table{
		Name: "burnrate_spend",
		DDL: `org_id uuid NOT NULL,
			day date NOT NULL,
			provider text NOT NULL,
			model text NOT NULL,
			spend_usd numeric NOT NULL,
			calls bigint NOT NULL,
			input_tokens bigint NOT NULL,
			output_tokens bigint NOT NULL,
			PRIMARY KEY (org_id, day, provider, model)`,
	}
	// burnrateActivityTable: estimates and optimizations per
	// organization and UTC day.
	burnrateActivityTable = Table{
		Name: "burnrate_activity",
		DDL: `org_id uuid NOT NULL,
			day date NOT NULL,
			estimates bigint NOT NULL,
			estimated_usd numeric NOT NULL,
			optimizations bigint NOT NULL,
			PRIMARY KEY (org_id, day)`,
	}
	// burnrateCalibrationTable: the correction factor of each
	// organization's model, as its last tracked call left it.
	burnrateCalibrationTable = Table{
		Name: "burnrate_calibration",
		DDL: `org_id uuid NOT NULL,
			provider text NOT NULL,
			model text NOT NULL,
			factor double precision NOT NULL,
			samples integer NOT NULL,
			updated_at timestamptz NOT NULL,
			PRIMARY KEY (org_id, provider, model)`,
	}
)

// Tables implements Projection.
func (BurnRate) Tables() []Table {
	return []Table{burnrateSpendTable, burnrateActivityTable, burnrateCalibrationTable}
}

// EventTypes implements Projection.
func (BurnRate) EventTypes() []string {
	return []string{burnrate.EventEstimateMade, burnrate.EventPlanOptimized, burnrate.EventSpendTracked}
}

// utcDay is t's UTC date.
func utcDay(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
}

// Apply implements Projection.
func (BurnRate) Apply(ctx context.Context, tx pgx.Tx, t Tables, events []event.Event) error {
	spend, activity, cal := t.Of(burnrateSpendTable.Name), t.Of(burnrateActivityTable.Name), t.Of(burnrateCalibrationTable.Name)
	b := &pgx.Batch{}
	for _, e := range events {
		day := utcDay(e.RecordedAt)
		switch d := e.Payload.(type) {
		case burnrate.EstimateMade:
			b.Queue(`INSERT INTO `+activity+` (org_id, day, estimates, estimated_usd, optimizations) VALUES ($1, $2, 1, $3, 0)
				ON CONFLICT (org_id, day) DO UPDATE SET estimates = `+activity+`.estimates + 1,
				estimated_usd = `+activity+`.estimated_usd + EXCLUDED.estimated_usd`, d.OrgID, day, d.TotalCostUSD)
		case burnrate.PlanOptimized:
			b.Queue(`INSERT INTO `+activity+` (org_id, day, estimates, estimated_usd, optimizations) VALUES ($1, $2, 0, 0, 1)
				ON CONFLICT (org_id, day) DO UPDATE SET optimizations = `+activity+`.optimizations + 1`, d.OrgID, day)
		case burnrate.SpendTracked:
			var in, out int64
			if d.InputTokens != nil {
				in = *d.InputTokens
			}
			if d.OutputTokens != nil {
				out = *d.OutputTokens
			}
			b.Queue(`INSERT INTO `+spend+` (org_id, day, provider, model, spend_usd, calls, input_tokens, output_tokens)
				VALUES ($1, $2, $3, $4, $5, 1, $6, $7)
				ON CONFLICT (org_id, day, provider, model) DO UPDATE SET spend_usd = `+spend+`.spend_usd + EXCLUDED.spend_usd,
				calls = `+spend+`.calls + 1, input_tokens = `+spend+`.input_tokens + EXCLUDED.input_tokens,
				output_tokens = `+spend+`.output_tokens + EXCLUDED.output_tokens`,
				d.OrgID, day, d.Provider, d.Model, d.CostUSD, in, out)
			if d.Known {
				b.Queue(`INSERT INTO `+cal+` (org_id, provider, model, factor, samples, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
					ON CONFLICT (org_id, provider, model) DO UPDATE SET factor = EXCLUDED.factor, samples = EXCLUDED.samples,
					updated_at = EXCLUDED.updated_at`, d.OrgID, d.Provider, d.Model, d.Factor, d.Samples, e.RecordedAt)
			}
		}
	}
	return sendBatch(ctx, tx, b)
}

// BurnRateFactors are organization orgID's correction factors by
// burnrate.Key; a model it never tracked is absent (factor 1).
func (q *Queries) BurnRateFactors(ctx context.Context, orgID string) (map[string]float64, error) {
	rows, err := q.store.Pool().Query(ctx, `SELECT provider, model, factor FROM burnrate_calibration WHERE org_id = $1 AND samples > 0`, orgID)
	if err != nil {
		return nil, fmt.Errorf("burnrate factors: %w", err)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var p, m string
		var f float64
		if err := rows.Scan(&p, &m, &f); err != nil {
			return nil, fmt.Errorf("burnrate factors: %w", err)
		}
		out[burnrate.Key(p, m)] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("burnrate factors: %w", err)
	}
	return out, nil
}

// BurnRateModelSpend is one model's tracked spend in a day.
type BurnRateModelSpend struct {
	Provider, Model           string
	SpendUSD                  float64
	Calls                     int64
	InputTokens, OutputTokens int64
}

// BurnRateDay is an organization's BurnRate activity in one UTC day.
type BurnRateDay struct {
	// Models are the tracked spend by model, largest first.
	Models        []BurnRateModelSpend
	SpendUSD      float64
	Calls         int64
	Estimates     int64
	EstimatedUSD  float64
	Optimizations int64
}

// BurnRateDay is organization orgID's activity on day (UTC).
func (q *Queries) BurnRateDay(ctx context.Context, orgID string, day time.Time) (BurnRateDay, error) {
	d := utcDay(day)
	out := BurnRateDay{Models: []BurnRateModelSpend{}}
	rows, err := q.store.Pool().Query(ctx, `SELECT provider, model, spend_usd::float8, calls, input_tokens, output_tokens
		FROM burnrate_spend WHERE org_id = $1 AND day = $2 ORDER BY spend_usd DESC, provider, model`, orgID, d)
	if err != nil {
		return out, fmt.Errorf("burnrate day: %w", err)
	}
	ms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (BurnRateModelSpend, error) {
		var m BurnRateModelSpend
		err := r.Scan(&m.Provider, &m.Model, &m.SpendUSD, &m.Calls, &m.InputTokens, &m.OutputTokens)
		return m, err
	})
	if err != nil {
		return out, fmt.Errorf("burnrate day: %w", err)
	}
	for _, m := range ms {
		out.Models = append(out.Models, m)
		out.SpendUSD += m.SpendUSD
		out.Calls += m.Calls
	}
	err = q.store.Pool().QueryRow(ctx, `SELECT estimates, estimated_usd::float8, optimizations FROM burnrate_activity
		WHERE org_id = $1 AND day = $2`, orgID, d).Scan(&out.Estimates, &out.EstimatedUSD, &out.Optimizations)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return out, fmt.Errorf("burnrate day: %w", err)
	}
	return out, nil
}
