package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"time"

	"svc/domain/suite"
	"svc/projections"
)

// browserSession names the usage of calls made without an API key.
const browserSession = "Browser session"

// usageSum is what a group of usage cells adds up to.
type usageSum struct{ credits, calls, steps, workflows int64 }

func (u *usageSum) add(c projections.UsageCell) {
	u.credits += c.Credits
	u.calls += c.Calls
	u.steps += c.Steps
	u.workflows += c.Workflows
}

// usageGroup is one group of a breakdown; id "" is the group without one
// (no key, no workspace, no task type).
type usageGroup struct {
	id string
	usageSum
}

// groupUsage sums cells by id, largest spend first (then by id, the group
// without an id last).
func groupUsage(cells []projections.UsageCell, id func(projections.UsageCell) string) []usageGroup {
	sums := map[string]*usageSum{}
	for _, c := range cells {
		k := id(c)
		if sums[k] == nil {
			sums[k] = &usageSum{}
		}
		sums[k].add(c)
	}
	out := make([]usageGroup, 0, len(sums))
	for k, s := range sums {
		out = append(out, usageGroup{k, *s})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.credits != b.credits {
			return a.credits > b.credits
		}
		if (a.id == "") != (b.id == "") {
			return b.id == ""
		}
		return a.id < b.id
	})
	return out
}

// total sums every cell.
func total(cells []projections.UsageCell) usageSum {
	var s usageSum
	for _, c := range cells {
		s.add(c)
	}
	return s
}

// nullable is s, or JSON null for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// usageData is what both usage endpoints read: the period's cells, the
// org's key and workspace names and its balance.
type usageData struct {
	cells            []projections.UsageCell
	keys, workspaces map[string]string
	balance          int64
}

func (s *Server) readUsage(ctx context.Context, orgID string, from, to time.Time, unit string) (usageData, error) {
	var (
		d   usageData
		err error
	)
	if d.cells, err = s.queries.UsageCells(ctx, orgID, from, to, unit); err != nil {
		return d, err
	}
	if d.keys, d.workspaces, err = s.queries.UsageNames(ctx, orgID); err != nil {
		return d, err
	}
	b, err := s.queries.Balance(ctx, orgID)
	if err != nil && !errors.Is(err, projections.ErrNotFound) {
		return d, err
	}
	d.balance = b.Balance
	return d, nil
}

// keyName is the display name of a key id ("" for a browser session).
func (d usageData) keyName(id string) string {
	if id == "" {
		return browserSession
	}
	if n, ok := d.keys[id]; ok {
		return n
	}
	return id
}

// usageSummary is GET /api/rigor/usage-summary?from=&to=&granularity=.
func (s *Server) usageSummary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	now := time.Now()
	from, to, err := usagePeriod(q, now)
	if err != nil {
		return err
	}
	unit := q.Get("granularity")
	switch unit {
	case "":
		unit = "day"
	case "hour", "day", "week", "month":
	default:
		return errInvalidField("granularity", "must be hour, day, week or month.")
	}
	starts, err := buckets(from, to, unit, "granularity")
	if err != nil {
		return err
	}
	p, _ := principalOf(r.Context())
	d, err := s.readUsage(r.Context(), p.OrgID, from, to, unit)
	if err != nil {
		return err
	}
	period := total(d.cells)
	end := to
	if now.Before(end) {
		end = now.UTC()
	}
	writeJSON(w, http.StatusOK, usageSummaryResponse{
		OK: true, metered: free(requestID(r.Context()), d.balance),
		Balance:  amount(d.balance),
		BurnRate: burnRate(d.cells, from, end),
		PeriodTotals: periodTotals{money: amount(period.credits), WorkflowCount: period.workflows, BySurface: bySurface(d.cells),
			ByProduct: byProduct(d.cells)},
		Trend:                trend(d.cells, starts, unit),
		BreakdownByWorkspace: d.byWorkspace(period.credits),
		BreakdownByTaskType:  d.byTaskType(period.credits),
		BreakdownByAPIKey:    d.byKey(period.credits),
	})
	return nil
}

// bySurface is the spend of cells by surface.
func bySurface(cells []projections.UsageCell) surfaces[money] {
	sums := surfaceSums(cells)
	return surfaces[money]{Workflow: amount(sums[projections.SurfaceWorkflow]), Gateway: amount(sums[projections.SurfaceGateway])}
}

// byProduct is the spend of cells by product.
func byProduct(cells []projections.UsageCell) products {
	sums := map[string]int64{}
	for _, c := range cells {
		sums[c.Product] += c.Credits
	}
	return products{Rigor: amount(sums["rigor"]), DedupQ: amount(sums[string(suite.DedupQ)]), BurnRate: amount(sums[string(suite.BurnRate)]),
		QualityGate: amount(sums[string(suite.QualityGate)]), GuardRail: amount(sums[string(suite.GuardRail)]),
		PitfallDB: amount(sums[string(suite.PitfallDB)])}
}

// surfaceSums sums the credits of cells by surface.
func surfaceSums(cells []projections.UsageCell) map[string]int64 {
	sums := map[string]int64{}
	for _, c := range cells {
		sums[c.Surface] += c.Credits
	}
	return sums
}

// burnRate is the net spend per day over [from, end), end being the end
// of the period or now, whichever is earlier.
func burnRate(cells []projections.UsageCell, from, end time.Time) burnRateJSON {
	days := max(end.Sub(from).Hours()/24, 0)
	perDay := func(credits int64) dailyRate {
		if days == 0 {
			return dailyRate{}
		}
		c := float64(credits) / days
		return dailyRate{CreditsPerDay: round(c, 2), USDPerDay: round(c/1000, 5)}
	}
	sums := surfaceSums(cells)
	return burnRateJSON{dailyRate: perDay(total(cells).credits), WindowDays: round(days, 2), BySurface: surfaces[dailyRate]{
		Workflow: perDay(sums[projections.SurfaceWorkflow]),
		Gateway:  perDay(sums[projections.SurfaceGateway]),
	}}
}

// trend lists every bucket of the period, empty ones included.
func trend(cells []projections.UsageCell, starts []time.Time, unit string) []trendBucket {
	byBucket := map[int64][]projections.UsageCell{}
	for _, c := range cells {
		byBucket[c.Bucket.Unix()] = append(byBucket[c.Bucket.Unix()], c)
	}
	out := make([]trendBucket, 0, len(starts))
	for _, b := range starts {
		in := byBucket[b.Unix()]
		sum := total(in)
		out = append(out, trendBucket{BucketStart: isoTime(b), BucketEnd: isoTime(bucketNext(b, unit)),
			periodTotals: periodTotals{money: amount(sum.credits), WorkflowCount: sum.workflows, BySurface: bySurface(in),
				ByProduct: byProduct(in)}})
	}
	return out
}

func (d usageData) byWorkspace(period int64) []workspaceUsage {
	out := []workspaceUsage{}
	for _, g := range groupUsage(d.cells, func(c projections.UsageCell) string { return c.WorkspaceID }) {
		share := 0.0
		if period > 0 {
			share = round(float64(g.credits)/float64(period), 4)
		}
		out = append(out, workspaceUsage{WorkspaceID: nullable(g.id), WorkspaceName: nullable(d.workspaces[g.id]),
			money: amount(g.credits), Share: share})
	}
	return out
}

func (d usageData) byTaskType(period int64) []taskTypeUsage {
	out := []taskTypeUsage{}
	for _, g := range groupUsage(d.cells, func(c projections.UsageCell) string { return c.TaskType }) {
		out = append(out, taskTypeUsage{TaskType: nullable(g.id), money: amount(g.credits), WorkflowCount: g.workflows,
			Pct: percent(g.credits, period)})
	}
	return out
}

func (d usageData) byKey(period int64) []keyUsage {
	out := []keyUsage{}
	for _, g := range groupUsage(d.cells, func(c projections.UsageCell) string { return c.KeyID }) {
		out = append(out, keyUsage{APIKeyID: nullable(g.id), APIKeyName: d.keyName(g.id), money: amount(g.credits),
			CallCount: g.calls, Pct: percent(g.credits, period)})
	}
	return out
}
