package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"

	"svc/commands/suite"
	"svc/domain/pitfalldb"
)

// pitfalldbOps are the pitfalldb operations of the suite (spec C).
func (s *Server) pitfalldbOps() []suiteOp {
	return []suiteOp{
		suiteOp{action: "pitfalldb.query", method: http.MethodPost, path: "/api/pitfalldb/query", status: http.StatusOK, run: s.pitfalldbQuery,
			doc: apiOp{tag: tagPitfallDB, summary: "Known failure patterns for a task type",
				note: "2 credits. Returns the verified pitfalls of task_type (and the general ones), shared across organizations: the starter set and reported ones verified by reports from 2 organizations, or 2 reports with a fix that worked. " +
					"Ranked by severity, then report count; with task_description, those semantically relevant to it come first. filters keep pitfalls that name the value or none of its kind. At most 10; total_matching counts them all.",
				body: pitfalldbQueryParams{}, required: []string{"task_type"},
				replies: []reply{ok(http.StatusOK, "The pitfalls, best first.", pitfalldbQueryResponse{})},
				errs:    []codes{errs(http.StatusPaymentRequired, "insufficient_credits")}}},
		suiteOp{action: "pitfalldb.report", method: http.MethodPost, path: "/api/pitfalldb/report", status: http.StatusCreated, run: s.pitfalldbReport,
			doc: apiOp{tag: tagPitfallDB, summary: "Report a failure (anonymized)",
				note: "Free. Emails, phone numbers, IP addresses, keys and tokens, credentials in URLs, user names in paths and names given are replaced by placeholders ([EMAIL], [SECRET], ...) before the report is stored. " +
					"The report joins the pitfall of its task type and failure signature (error type and message, numbers and quoted values aside), or a starter pitfall whose signals it shows; failure needs error_type, error_message or root_cause.",
				body: pitfalldbReportParams{}, required: []string{"task_type", "task_description", "failure"},
				replies: []reply{ok(http.StatusCreated, "The report is stored.", pitfalldbReportResponse{})}}},
		suiteOp{action: "pitfalldb.stats", method: http.MethodGet, path: "/api/pitfalldb/stats", status: http.StatusOK, run: s.pitfalldbStats,
			doc: apiOp{tag: tagPitfallDB, summary: "Size and activity of the failure database",
				note:    "Free. Figures across organizations: verified pitfalls (the starter set included), reports, the task types reported most, and the last 7 days' activity.",
				replies: []reply{ok(http.StatusOK, "The figures.", pitfalldbStatsResponse{})}}},
	}
}

func init() {
	componentNames[reflect.TypeFor[pitfalldbQueryResponse]()] = "PitfallQueryResult"
	componentNames[reflect.TypeFor[pitfalldbReportResponse]()] = "PitfallReportReceipt"
	componentNames[reflect.TypeFor[pitfalldbStatsResponse]()] = "PitfallDBStats"
	componentNames[reflect.TypeFor[pitfallView]()] = "Pitfall"
	componentNames[reflect.TypeFor[pitfallAppliesTo]()] = "PitfallAppliesTo"
	componentNames[reflect.TypeFor[pitfallTaskCount]()] = "PitfallTaskTypeCount"
	componentNames[reflect.TypeFor[pitfallActivity]()] = "PitfallRecentActivity"
	typeEnums[reflect.TypeFor[pitfalldb.Severity]()] = enumOf([]pitfalldb.Severity{pitfalldb.Low, pitfalldb.Medium, pitfalldb.High, pitfalldb.Critical})
	fieldNotes["httpapi.pitfallView.id"] = fieldNote{patch: uuidFormat}
	fieldNotes["httpapi.pitfallView.fix_confidence"] = fieldNote{patch: jsonSchema{"minimum": 0, "maximum": 1},
		desc: "The share of the reports naming the fix that say it worked (1 for the starter set's)."}
	fieldNotes["httpapi.pitfallView.frequency"] = fieldNote{desc: `"reported 12 times by 4 organizations"; a starter pitfall says so.`}
	fieldNotes["httpapi.pitfallView.reports"] = fieldNote{desc: "How many reports joined the pitfall."}
	fieldNotes["httpapi.pitfallAppliesTo.language"] = fieldNote{desc: `The language most reports name; "" for any.`}
	fieldNotes["httpapi.pitfalldbReportResponse.report_id"] = fieldNote{patch: uuidFormat}
	fieldNotes["httpapi.pitfalldbReportResponse.linked_pitfall_id"] = fieldNote{patch: uuidFormat,
		desc: "The pitfall the report joined, verified or not."}
	fieldNotes["httpapi.pitfalldbReportResponse.verified"] = fieldNote{desc: "Whether that pitfall is verified, so queries return it."}
	fieldNotes["httpapi.pitfalldbQueryParams.task_type"] = fieldNote{patch: jsonSchema{"maxLength": pitfalldb.MaxTaskType},
		desc: `Lower-cased, words joined by "_": "Web Scraping" is web_scraping.`}
	fieldNotes["httpapi.pitfalldbQueryParams.task_description"] = fieldNote{patch: jsonSchema{"maxLength": pitfalldb.MaxText}}
	fieldNotes["httpapi.pitfalldbReportParams.task_description"] = fieldNote{patch: jsonSchema{"maxLength": pitfalldb.MaxText}}
}

// pitfalldbQueryParams are a query's parameters.
type pitfalldbQueryParams struct {
	TaskType        *string           `json:"task_type"`
	TaskDescription *string           `json:"task_description"`
	Filters         *pitfalldbFilters `json:"filters"`
}

// pitfalldbFilters narrow a query by what pitfalls apply to.
type pitfalldbFilters struct {
	Language  *string `json:"language"`
	Framework *string `json:"framework"`
	Provider  *string `json:"provider"`
}

// pitfalldbReportParams are a report's parameters.
type pitfalldbReportParams struct {
	TaskType        *string           `json:"task_type"`
	TaskDescription *string           `json:"task_description"`
	Failure         *pitfalldbFailure `json:"failure"`
}

// pitfalldbFailure is what went wrong.
type pitfalldbFailure struct {
	ErrorType    *string `json:"error_type"`
	ErrorMessage *string `json:"error_message"`
	RootCause    *string `json:"root_cause"`
	FixApplied   *string `json:"fix_applied"`
	FixWorked    *bool   `json:"fix_worked"`
	Language     *string `json:"language"`
	Framework    *string `json:"framework"`
	Provider     *string `json:"provider"`
}

// pitfallView is spec C's Pitfall.
type pitfallView struct {
	ID            string             `json:"id"`
	Severity      pitfalldb.Severity `json:"severity"`
	Title         string             `json:"title"`
	Description   string             `json:"description"`
	Frequency     string             `json:"frequency"`
	Reports       int                `json:"reports"`
	Fix           string             `json:"fix"`
	FixConfidence float64            `json:"fix_confidence"`
	Tags          []string           `json:"tags"`
	AppliesTo     pitfallAppliesTo   `json:"applies_to"`
}

// pitfallAppliesTo is what a pitfall applies to ("" for any).
type pitfallAppliesTo struct {
	TaskType  string `json:"task_type"`
	Language  string `json:"language"`
	Framework string `json:"framework"`
	Provider  string `json:"provider"`
}

// pitfalldbQueryResponse is a query's answer.
type pitfalldbQueryResponse struct {
	suiteMeta
	Pitfalls      []pitfallView `json:"pitfalls"`
	TotalMatching int           `json:"total_matching"`
}

// pitfalldbReportResponse is a report's answer.
type pitfalldbReportResponse struct {
	suiteMeta
	ReportID        string  `json:"report_id"`
	LinkedPitfallID *string `json:"linked_pitfall_id"`
	Verified        bool    `json:"verified"`
	Message         string  `json:"message"`
}

// pitfalldbStatsResponse is PitfallDB's figures.
type pitfalldbStatsResponse struct {
	suiteMeta
	TotalPitfalls  int                `json:"total_pitfalls"`
	TotalReports   int                `json:"total_reports"`
	TopTaskTypes   []pitfallTaskCount `json:"top_task_types"`
	RecentActivity pitfallActivity    `json:"recent_activity"`
}

// pitfallTaskCount is a task type and its reports.
type pitfallTaskCount struct {
	TaskType    string `json:"task_type"`
	ReportCount int    `json:"report_count"`
}

// pitfallActivity is the last 7 days' activity, and the counts behind
// total_pitfalls.
type pitfallActivity struct {
	Days                int `json:"days"`
	ReportsLast7Days    int `json:"reports_last_7_days"`
	NewPitfallsLast7Day int `json:"new_pitfalls_last_7_days"`
	VerifiedLast7Days   int `json:"verified_last_7_days"`
	UnverifiedPitfalls  int `json:"unverified_pitfalls"`
	StarterPitfalls     int `json:"starter_pitfalls"`
	YourReports         int `json:"your_reports"`
}

func pfStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (s *Server) pitfalldbQuery(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p pitfalldbQueryParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.TaskType == nil || *p.TaskType == "" {
		return nil, suite.Receipt{}, suiteMissing("task_type")
	}
	cmd := suite.PitfallQuery{Caller: c.caller, TaskType: *p.TaskType, TaskDescription: pfStr(p.TaskDescription)}
	if f := p.Filters; f != nil {
		cmd.Filters = pitfalldb.Filters{Language: pfStr(f.Language), Framework: pfStr(f.Framework), Provider: pfStr(f.Provider)}
	}
	r, err := s.suite.PitfallDB.Query(ctx, cmd)
	if err != nil {
		return nil, suite.Receipt{}, pitfalldbError(err)
	}
	out := &pitfalldbQueryResponse{Pitfalls: make([]pitfallView, 0, len(r.Pitfalls)), TotalMatching: r.TotalMatching}
	for _, x := range r.Pitfalls {
		tags := x.Tags
		if tags == nil {
			tags = []string{}
		}
		out.Pitfalls = append(out.Pitfalls, pitfallView{ID: x.ID, Severity: x.Severity, Title: x.Title, Description: x.Description,
			Frequency: pitfalldb.Frequency(x.Starter, x.Reports, x.Orgs), Reports: x.Reports, Fix: x.Fix,
			FixConfidence: math.Round(x.FixConfidence*1000) / 1000, Tags: tags,
			AppliesTo: pitfallAppliesTo{TaskType: x.AppliesTo.TaskType, Language: x.AppliesTo.Language,
				Framework: x.AppliesTo.Framework, Provider: x.AppliesTo.Provider}})
	}
	out.FallbackBehavior = r.Fallback
	return out, r.Receipt, nil
}

func (s *Server) pitfalldbReport(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p pitfalldbReportParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	switch {
	case p.TaskType == nil || *p.TaskType == "":
		return nil, suite.Receipt{}, suiteMissing("task_type")
	case p.TaskDescription == nil || *p.TaskDescription == "":
		return nil, suite.Receipt{}, suiteMissing("task_description")
	case p.Failure == nil:
		return nil, suite.Receipt{}, suiteMissing("failure")
	}
	f := p.Failure
	rep := pitfalldb.Report{TaskType: *p.TaskType, TaskDescription: *p.TaskDescription, Failure: pitfalldb.Failure{
		ErrorType: pfStr(f.ErrorType), ErrorMessage: pfStr(f.ErrorMessage), RootCause: pfStr(f.RootCause), FixApplied: pfStr(f.FixApplied),
		FixWorked: f.FixWorked != nil && *f.FixWorked, Language: pfStr(f.Language), Framework: pfStr(f.Framework), Provider: pfStr(f.Provider)}}
	r, err := s.suite.PitfallDB.Report(ctx, suite.PitfallReport{Caller: c.caller, Report: rep})
	if err != nil {
		return nil, suite.Receipt{}, pitfalldbError(err)
	}
	id := r.PitfallID
	return &pitfalldbReportResponse{ReportID: r.ReportID, LinkedPitfallID: &id, Verified: r.Verified, Message: reportMessage(r)}, r.Receipt, nil
}

// reportMessage tells the reporter where their report went.
func reportMessage(r suite.PitfallReported) string {
	freq := pitfalldb.Frequency(false, r.Reports, r.Orgs)
	switch {
	case r.Starter:
		return "Thank you. The report joined a known pitfall of the starter set (now " + freq + "); queries return it."
	case r.Verified:
		return "Thank you. The report joined a verified pitfall (" + freq + "); queries for its task type return it."
	}
	return fmt.Sprintf("Thank you. The report joined a pitfall (%s) that queries return once verified: "+
		"reports from %d organizations, or %d reports with a fix that worked.", freq, pitfalldb.MinOrgs, pitfalldb.MinReportsWithFix)
}

func (s *Server) pitfalldbStats(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	r, err := s.suite.PitfallDB.Stats(ctx, c.caller)
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	out := &pitfalldbStatsResponse{TotalPitfalls: r.Pitfalls, TotalReports: r.Reports, TopTaskTypes: []pitfallTaskCount{},
		RecentActivity: pitfallActivity{Days: 7, ReportsLast7Days: r.ReportsSince, NewPitfallsLast7Day: r.NewSince,
			VerifiedLast7Days: r.VerifiedSince, UnverifiedPitfalls: r.Unverified, StarterPitfalls: r.Starters, YourReports: r.OrgReports}}
	for _, t := range r.TopTaskTypes {
		out.TopTaskTypes = append(out.TopTaskTypes, pitfallTaskCount{TaskType: t.TaskType, ReportCount: t.Reports})
	}
	return out, r.Receipt, nil
}

// pitfalldbError maps PitfallDB's refusals to the suite's envelope.
func pitfalldbError(err error) error {
	var fe *pitfalldb.FieldError
	if errors.As(err, &fe) {
		return suiteInvalid(fe.Field, "Field "+fe.Field+" "+fe.Err.Error()+".")
	}
	return err
}
