package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The usage page: GET /api/rigor/usage-summary (the period's totals, its
// trend by bucket and product, its task types) and GET /api/rigor/costs
// (the period by task type, workspace or key) for a period chosen with
// a GET form, as charts and as tables.

// usagePeriods are the periods the page offers: the days they cover
// (months for 12m) and the bucket of their trend.
var usagePeriods = []struct {
	option
	days, months int
	unit         string
}{
	{option{"7d", "Last 7 days"}, 7, 0, "day"},
	{option{"30d", "Last 30 days"}, 30, 0, "day"},
	{option{"90d", "Last 90 days"}, 90, 0, "week"},
	{option{"12m", "Last 12 months"}, 0, 12, "month"},
	{option{"custom", "Dates below"}, 0, 0, ""},
}

// costGroups are the breakdowns of costs the page offers.
var costGroups = []option{{"task_type", "Task type"}, {"workspace", "Workspace"}, {"api_key", "API key"}}

// moneyJSON is an amount as the API writes it.
type moneyJSON struct {
	Credits int64   `json:"credits"`
	USD     float64 `json:"usd"`
}

// productsJSON is spend by product (spec A's usage summary).
type productsJSON struct {
	Rigor       moneyJSON `json:"rigor"`
	DedupQ      moneyJSON `json:"dedupq"`
	BurnRate    moneyJSON `json:"burnrate"`
	QualityGate moneyJSON `json:"qualitygate"`
	GuardRail   moneyJSON `json:"guardrail"`
	PitfallDB   moneyJSON `json:"pitfalldb"`
}

// trendRow is a bucket of the trend as the table shows it.
type trendRow struct {
	BucketStart string `json:"bucket_start"`
	Label       string `json:"-"`
	moneyJSON
	WorkflowCount int64        `json:"workflow_count"`
	ByProduct     productsJSON `json:"by_product"`
}

// taskTypeRow is a task type's share of the period.
type taskTypeRow struct {
	TaskType *string `json:"task_type"`
	moneyJSON
	WorkflowCount int64   `json:"workflow_count"`
	Pct           float64 `json:"pct"`
}

// costRow is a group of the costs' breakdown.
type costRow struct {
	Key           *string `json:"key"`
	Label         *string `json:"label"`
	WorkflowCount int64   `json:"workflow_count"`
	StepCount     int64   `json:"step_count"`
	CreditsUsed   int64   `json:"credits_used"`
	RevenueUSD    float64 `json:"revenue_usd"`
}

// Name is the group's display name.
func (c costRow) Name() string {
	switch {
	case c.Label != nil && *c.Label != "":
		return *c.Label
	case c.Key != nil:
		return *c.Key
	}
	return "None"
}

// usagePage is what the usage page shows.
type usagePage struct {
	Period, From, To, Group string
	Periods, Groups         []option
	Unit                    string
	Balance                 moneyJSON
	Totals                  struct {
		moneyJSON
		WorkflowCount int64        `json:"workflow_count"`
		ByProduct     productsJSON `json:"by_product"`
	}
	BurnPerDay    float64
	Trend         []trendRow
	TrendChart    chart
	TaskTypes     []taskTypeRow
	TaskChart     chart
	Costs         []costRow
	CostChart     chart
	CostSummary   costRow
	CostsProblem  *problem
	CostGroupName string
}

// usage is GET /dashboard/usage (viewer and above, as the routes).
func (h *Handler) usage(w http.ResponseWriter, r *http.Request, id Identity) {
	q := r.URL.Query()
	u := &usagePage{Period: q.Get("period"), From: q.Get("from"), To: q.Get("to"), Group: q.Get("group_by"),
		Periods: periodOptions(), Groups: costGroups}
	query := u.query(time.Now())
	v := view{Title: "Usage and costs", Me: h.loadChrome(r, id), Data: u}
	if !id.may("rigor.usage_summary") {
		v.Problem = &problem{Status: http.StatusForbidden, Code: "forbidden", Sentence: sentence("forbidden")}
		h.render(w, r, http.StatusForbidden, "money_usage", v)
		return
	}
	ws := workspaceParam(r)
	var sum struct {
		Balance  moneyJSON `json:"balance"`
		BurnRate struct {
			CreditsPerDay float64 `json:"credits_per_day"`
		} `json:"burn_rate"`
		PeriodTotals *struct {
			moneyJSON
			WorkflowCount int64        `json:"workflow_count"`
			ByProduct     productsJSON `json:"by_product"`
		} `json:"period_totals"`
		Trend     []trendRow    `json:"trend"`
		TaskTypes []taskTypeRow `json:"breakdown_by_task_type"`
	}
	rep := h.api.Call(r, ws, http.MethodGet, "/api/rigor/usage-summary?"+query.Encode(), nil)
	if p, bad := failed(rep); bad {
		v.Problem = p
		h.render(w, r, p.Status, "money_usage", v)
		return
	}
	if !decode(rep, &sum) || sum.PeriodTotals == nil {
		h.errorPage(w, r, v.Me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	u.Balance, u.BurnPerDay, u.Totals.moneyJSON = sum.Balance, sum.BurnRate.CreditsPerDay, sum.PeriodTotals.moneyJSON
	u.Totals.WorkflowCount, u.Totals.ByProduct = sum.PeriodTotals.WorkflowCount, sum.PeriodTotals.ByProduct
	u.Trend, u.TaskTypes = sum.Trend, sum.TaskTypes
	points := make([]point, len(u.Trend))
	for i := range u.Trend {
		u.Trend[i].Label = bucketName(u.Trend[i].BucketStart, u.Unit)
		points[i] = point{u.Trend[i].Label, u.Trend[i].Credits}
	}
	u.TrendChart = columnChart("trend-chart", "Credits spent per "+u.Unit,
		"Columns of the credits spent in each "+u.Unit+" of the period; the table below lists the same numbers.", points)
	points = make([]point, len(u.TaskTypes))
	for i, t := range u.TaskTypes {
		points[i] = point{taskTypeName(t.TaskType), t.Credits}
	}
	u.TaskChart = barChart("task-chart", "Credits by task type", "Bars of the credits each task type spent in the period.", points)
	u.costs(h, r, ws, query)
	h.render(w, r, http.StatusOK, "money_usage", v)
}

// costs reads GET /api/rigor/costs for the page's period and grouping;
// a refusal is shown in its section.
func (u *usagePage) costs(h *Handler, r *http.Request, ws string, query url.Values) {
	cq := url.Values{"group_by": {u.Group}}
	for _, k := range []string{"from", "to"} {
		if query.Get(k) != "" {
			cq.Set(k, query.Get(k))
		}
	}
	var out struct {
		Summary   costRow   `json:"summary"`
		Breakdown []costRow `json:"breakdown"`
	}
	rep := h.api.Call(r, ws, http.MethodGet, "/api/rigor/costs?"+cq.Encode(), nil)
	if p, bad := failed(rep); bad {
		u.CostsProblem = p
		return
	}
	if !decode(rep, &out) {
		u.CostsProblem = &problem{Status: http.StatusBadGateway, Sentence: sentence("internal_error")}
		return
	}
	u.CostSummary, u.Costs = out.Summary, out.Breakdown
	points := make([]point, len(u.Costs))
	for i, c := range u.Costs {
		points[i] = point{c.Name(), c.CreditsUsed}
	}
	u.CostChart = barChart("cost-chart", "Credits by "+u.CostGroupName, "Bars of the credits each "+u.CostGroupName+" used in the period.", points)
}

// query is the usage summary's query of the page's period (and fixes
// the page's choices: a period and a grouping it knows).
func (u *usagePage) query(now time.Time) url.Values {
	if u.From != "" || u.To != "" {
		u.Period = "custom"
	}
	q := url.Values{}
	today := now.UTC().Truncate(24 * time.Hour)
	switch u.Period {
	case "custom":
		u.Unit = customUnit(u.From, u.To, today)
		for k, v := range map[string]string{"from": u.From, "to": u.To} {
			if v != "" {
				q.Set(k, v)
			}
		}
	default:
		p := usagePeriods[1] // 30 days, also for a period the page does not know
		for _, o := range usagePeriods {
			if o.Value == u.Period {
				p = o
			}
		}
		from := today.AddDate(0, 0, 1-p.days)
		if p.months > 0 {
			from = time.Date(today.Year(), today.Month()-time.Month(p.months-1), 1, 0, 0, 0, 0, time.UTC)
		}
		u.Period, u.Unit = p.Value, p.unit
		q.Set("from", from.Format(time.DateOnly))
	}
	q.Set("granularity", u.Unit)
	u.CostGroupName = "task type"
	if u.Group == "" {
		u.Group = "task_type"
	}
	switch u.Group {
	case "workspace":
		u.CostGroupName = "workspace"
	case "api_key":
		u.CostGroupName = "API key"
	}
	return q
}

// customUnit is the bucket of a period of dates: days up to two months,
// weeks up to a year, months beyond (and days when a date is not one:
// the API then names the field).
func customUnit(from, to string, today time.Time) string {
	f, err1 := time.Parse(time.DateOnly, from)
	t, err2 := time.Parse(time.DateOnly, to)
	if to == "" {
		t, err2 = today, nil
	}
	if from == "" {
		f, err1 = t.AddDate(0, 0, -30), nil
	}
	switch days := t.Sub(f).Hours() / 24; {
	case err1 != nil || err2 != nil || days <= 62:
		return "day"
	case days <= 370:
		return "week"
	}
	return "month"
}

func periodOptions() []option {
	out := make([]option, len(usagePeriods))
	for i, p := range usagePeriods {
		out[i] = p.option
	}
	return out
}

// bucketName names a bucket of unit starting at start (RFC 3339).
func bucketName(start, unit string) string {
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return start
	}
	switch unit {
	case "hour":
		return t.UTC().Format("2 Jan 15:04")
	case "week":
		return "Week of " + t.UTC().Format("2 Jan")
	case "month":
		return t.UTC().Format("Jan 2006")
	}
	return t.UTC().Format("Mon 2 Jan")
}

// taskTypeName is a task type as the page names it ("Other" for spend of
// no task type: the suite's, a gateway's).
func taskTypeName(t *string) string {
	if t == nil || *t == "" {
		return "Suite and gateway calls"
	}
	s := strings.ReplaceAll(*t, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
