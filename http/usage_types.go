package httpapi

// usageSummaryResponse is the answer of GET /api/rigor/usage-summary.
type usageSummaryResponse struct {
	OK bool `json:"ok"`
	metered
	Balance              money            `json:"balance"`
	BurnRate             burnRateJSON     `json:"burn_rate"`
	PeriodTotals         periodTotals     `json:"period_totals"`
	Trend                []trendBucket    `json:"trend"`
	BreakdownByWorkspace []workspaceUsage `json:"breakdown_by_workspace"`
	BreakdownByTaskType  []taskTypeUsage  `json:"breakdown_by_task_type"`
	BreakdownByAPIKey    []keyUsage       `json:"breakdown_by_api_key"`
}

// money is an amount in credits and US dollars.
type money struct {
	Credits int64   `json:"credits"`
	USD     float64 `json:"usd"`
}

// amount is credits as money.
func amount(credits int64) money { return money{Credits: credits, USD: usd(credits)} }

// surfaces splits a figure by the surface that spent it.
type surfaces[T any] struct {
	Workflow T `json:"workflow"`
	Gateway  T `json:"gateway"`
}

// periodTotals is what a period (or one bucket of it) spent.
type periodTotals struct {
	money
	WorkflowCount int64           `json:"workflow_count"`
	BySurface     surfaces[money] `json:"by_surface"`
	ByProduct     products        `json:"by_product"`
}

// products splits spend by product: the workflow API (rigor) and the
// suite's five (spec C).
type products struct {
	Rigor       money `json:"rigor"`
	DedupQ      money `json:"dedupq"`
	BurnRate    money `json:"burnrate"`
	QualityGate money `json:"qualitygate"`
	GuardRail   money `json:"guardrail"`
	PitfallDB   money `json:"pitfalldb"`
}

// trendBucket is one bucket of the trend.
type trendBucket struct {
	BucketStart string `json:"bucket_start"`
	BucketEnd   string `json:"bucket_end"`
	periodTotals
}

// dailyRate is a net spend per day.
type dailyRate struct {
	CreditsPerDay float64 `json:"credits_per_day"`
	USDPerDay     float64 `json:"usd_per_day"`
}

// burnRateJSON is burn_rate: the spend per day over the period so far.
type burnRateJSON struct {
	dailyRate
	WindowDays float64             `json:"window_days"`
	BySurface  surfaces[dailyRate] `json:"by_surface"`
}

// workspaceUsage is a workspace's share of the period (id and name null
// for spend without a workspace).
type workspaceUsage struct {
	WorkspaceID   *string `json:"workspace_id"`
	WorkspaceName *string `json:"workspace_name"`
	money
	Share float64 `json:"share"`
}

// taskTypeUsage is a task type's share of the period, in percent.
type taskTypeUsage struct {
	TaskType *string `json:"task_type"`
	money
	WorkflowCount int64   `json:"workflow_count"`
	Pct           float64 `json:"pct"`
}

// keyUsage is an API key's share of the period, in percent (id null for
// calls without a key).
type keyUsage struct {
	APIKeyID   *string `json:"api_key_id"`
	APIKeyName string  `json:"api_key_name"`
	money
	CallCount int64   `json:"call_count"`
	Pct       float64 `json:"pct"`
}
