package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"svc/commands/suite"
	"svc/domain/qualitygate"
)

// qualitygateOps are the qualitygate operations of the suite (spec C).
func (s *Server) qualitygateOps() []suiteOp {
	return []suiteOp{
		{action: "qualitygate.validate", method: http.MethodPost, path: "/api/qualitygate/validate", status: http.StatusOK,
			run: s.qualitygateValidate,
			doc: apiOp{tag: tagQualityGate, summary: "Validate an agent's output",
				note: "1 credit for pattern checks (directives, length, JSON Schema, code syntax parsed by real parsers); 8 when an LLM check (tone, factual_claims, internal_consistency) is asked for. " +
					"Directives are objects {type, value, name} or sentences (\"must include X\", \"no more than 500 words\", \"respond in JSON\"). " +
					"If the language model fails, the pattern checks answer alone at 1 credit and fallback_behavior is llm_checks_skipped. Every validation is recorded (the output's hash and length, not the output).",
				body: qgValidateDoc{}, required: []string{"output"},
				replies: []reply{ok(http.StatusOK, "The validation.", qgValidateResponse{})},
				errs:    []codes{errs(http.StatusPaymentRequired, "insufficient_credits")}}},
		{action: "qualitygate.trends", method: http.MethodGet, path: "/api/qualitygate/trends", status: http.StatusOK,
			run: s.qualitygateTrends,
			doc: apiOp{tag: tagQualityGate, summary: "Validation trends: pass, fail and override rates",
				note: "Free. The organization's validations of the last days: rates by the checks' verdict (before overrides), the override rate, each check type's pass rate, the directives outputs miss most, and a count per UTC day.",
				params: []param{
					query("days", "The period, in days (1-90, default 30).", jsonSchema{"type": "integer", "minimum": 1, "maximum": 90}),
					query("check_type", "Only validations that ran this check type.", jsonSchema{"type": "string", "enum": enumOf(qualitygate.CheckTypes)}),
				},
				replies: []reply{ok(http.StatusOK, "The trends.", qgTrendsResponse{})}}},
	}
}

// The document's notes on QualityGate's fields (reflection cannot tell
// a string-or-object directive, nor the enums).
func init() {
	checkTypes := jsonSchema{"type": "string", "enum": enumOf(qualitygate.CheckTypes)}
	dirTypes := enumOf(qualitygate.DirectiveTypes)
	for k, v := range map[string]fieldNote{
		"httpapi.qgValidateDoc.directives": {schema: jsonSchema{"type": "array", "items": jsonSchema{"oneOf": []any{
			jsonSchema{"type": "string", "description": "A directive in words: must include X, must not mention Y, at most N words, at least N characters, must match /re/, respond in JSON; a phrase of up to three words must be included."},
			jsonSchema{"type": "object", "required": []string{"type", "value"}, "properties": jsonSchema{
				"type":  jsonSchema{"type": "string", "enum": dirTypes},
				"value": jsonSchema{"oneOf": []any{jsonSchema{"type": "string"}, jsonSchema{"type": "number"}}},
				"name":  jsonSchema{"type": "string"},
			}},
		}}}},
		"httpapi.qgValidateDoc.check_types":     {schema: jsonSchema{"type": "array", "items": checkTypes}, desc: "Checks to run besides those the inputs imply (directives, schema, language)."},
		"httpapi.qgValidateDoc.schema":          {schema: jsonSchema{"type": "object"}, desc: "A JSON Schema (2020-12 by default); the output, or its first ```json block, must satisfy it."},
		"httpapi.qgValidateDoc.language":        {patch: jsonSchema{"enum": enumOf(qualitygate.Languages)}, desc: "For code_syntax; js, ts and py are accepted too."},
		"httpapi.qgValidateDoc.override_reason": {desc: "Required when override is true; recorded."},
		"httpapi.qgValidateResponse.verdict":    {patch: jsonSchema{"enum": []any{"pass", "warn", "fail"}}},
		"httpapi.qgValidateResponse.checks_verdict": {patch: jsonSchema{"enum": []any{"pass", "warn", "fail"}},
			desc: "The checks' verdict before any override."},
		"httpapi.qgValidateResponse.validation_id": {patch: uuidFormat},
		"httpapi.qgValidateResponse.score":         {patch: jsonSchema{"minimum": 0, "maximum": 100}},
		"httpapi.qgIssue.severity":                 {patch: jsonSchema{"enum": []any{"error", "warning", "info"}}},
		"httpapi.qgIssue.check_type":               {schema: checkTypes},
		"httpapi.qgIssue.line":                     {desc: "1-based line in the output; null when the issue has no place."},
		"httpapi.qgIssue.column":                   {desc: "1-based column (characters) in the output."},
		"httpapi.qgIssue.path":                     {desc: "The JSON pointer of a schema violation in the output's JSON."},
		"httpapi.qgTrendsResponse.check_type":      {schema: jsonSchema{"type": []string{"string", "null"}, "enum": append(enumOf(qualitygate.CheckTypes), nil)}},
	} {
		fieldNotes[k] = v
	}
}

// qgValidateDoc documents validate's body.
type qgValidateDoc struct {
	Output         string          `json:"output"`
	Directives     []any           `json:"directives"`
	CheckTypes     []string        `json:"check_types"`
	Schema         json.RawMessage `json:"schema"`
	Language       string          `json:"language"`
	Override       bool            `json:"override"`
	OverrideReason string          `json:"override_reason"`
}

// qgValidateParams are validate's parameters as decoded.
type qgValidateParams struct {
	Output         *string           `json:"output"`
	Directives     []json.RawMessage `json:"directives"`
	CheckTypes     []string          `json:"check_types"`
	Schema         json.RawMessage   `json:"schema"`
	Language       *string           `json:"language"`
	Override       *bool             `json:"override"`
	OverrideReason *string           `json:"override_reason"`
}

// qgDirectiveParams is a directive object.
type qgDirectiveParams struct {
	Type  *string         `json:"type"`
	Value json.RawMessage `json:"value"`
	Name  *string         `json:"name"`
}

// request reads p into the checks' request: a bad value is 400 naming it.
func (p qgValidateParams) request() (qualitygate.Request, error) {
	var r qualitygate.Request
	if len(p.Directives) > qualitygate.MaxDirectives {
		return r, suiteInvalid("directives", fmt.Sprintf("Field directives holds %d directives; at most %d are checked at once.", len(p.Directives), qualitygate.MaxDirectives))
	}
	for i, raw := range p.Directives {
		field := fmt.Sprintf("directives[%d]", i)
		ds, err := qgDirective(field, raw)
		if err != nil {
			return r, err
		}
		r.Directives = append(r.Directives, ds...)
	}
	for i, c := range p.CheckTypes {
		ct := qualitygate.CheckType(strings.TrimSpace(c))
		if !containsCheck(ct) {
			return r, suiteInvalid("check_types", fmt.Sprintf("check_types[%d] %q is not a check type (want %s).", i, c, checkTypeList()))
		}
		r.CheckTypes = append(r.CheckTypes, ct)
	}
	if s := bytes.TrimSpace(p.Schema); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
		if s[0] != '{' {
			return r, suiteInvalid("schema", "Field schema must be a JSON Schema object.")
		}
		sch, err := qualitygate.CompileSchema(s)
		if err != nil {
			return r, suiteInvalid("schema", "Field schema is not a valid JSON Schema: "+err.Error())
		}
		r.Schema = sch
	}
	if p.Language != nil && strings.TrimSpace(*p.Language) != "" {
		l, err := qualitygate.ParseLanguage(*p.Language)
		if err != nil {
			return r, suiteInvalid("language", "Field language: "+err.Error()+".")
		}
		r.Language = l
	}
	return r, nil
}

// qgDirective reads one directive: a sentence, or an object.
func qgDirective(field string, raw json.RawMessage) ([]qualitygate.Directive, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, suiteInvalid(field, "Field "+field+" must be a string or an object.")
		}
		ds, err := qualitygate.ParseWords(text)
		if err != nil {
			return nil, suiteInvalid(field, "Field "+field+": "+err.Error()+".")
		}
		return ds, nil
	}
	var o qgDirectiveParams
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &o) != nil {
		return nil, suiteInvalid(field, "Field "+field+" must be a string (a directive in words) or an object {type, value, name}.")
	}
	if o.Type == nil {
		return nil, suiteMissing(field + ".type")
	}
	value, ok := qgValue(o.Value)
	if !ok {
		if len(bytes.TrimSpace(o.Value)) == 0 {
			return nil, suiteMissing(field + ".value")
		}
		return nil, suiteInvalid(field+".value", "Field "+field+".value must be a string or a number.")
	}
	name := ""
	if o.Name != nil {
		name = *o.Name
	}
	d, err := qualitygate.NewDirective(*o.Type, value, name)
	if err != nil {
		f := field + ".value"
		if errors.Is(err, qualitygate.ErrDirectiveType) {
			f = field + ".type"
		}
		return nil, suiteInvalid(f, "Field "+f+": "+err.Error()+".")
	}
	return []qualitygate.Directive{d}, nil
}

// qgValue is a directive value: a string, or a number as written.
func qgValue(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func containsCheck(c qualitygate.CheckType) bool {
	for _, x := range qualitygate.CheckTypes {
		if x == c {
			return true
		}
	}
	return false
}

func checkTypeList() string {
	names := make([]string, len(qualitygate.CheckTypes))
	for i, c := range qualitygate.CheckTypes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// qualitygateError maps QualityGate's refusals to the suite's envelope.
func qualitygateError(err error) error {
	var ie *qualitygate.InputError
	switch {
	case errors.As(err, &ie):
		return suiteInvalid(ie.Field, "Field "+ie.Field+": "+ie.Err.Error()+".")
	case errors.Is(err, qualitygate.ErrOverrideReason):
		se := suiteInvalid("override_reason", "Field override_reason is required when override is true (the override is recorded with it).")
		se.Fix = "Send override_reason saying why the output is accepted, or drop override."
		return se
	}
	return err
}

func (s *Server) qualitygateValidate(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p qgValidateParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	if p.Output == nil {
		return nil, suite.Receipt{}, suiteMissing("output")
	}
	req, err := p.request()
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	cmd := suite.QualityGateValidate{Caller: c.caller, Output: *p.Output, Request: req}
	if p.Override != nil {
		cmd.Override = *p.Override
	}
	if cmd.Override && p.OverrideReason != nil {
		cmd.OverrideReason = strings.TrimSpace(*p.OverrideReason)
	}
	v, err := s.suite.QualityGate.Validate(ctx, cmd)
	if err != nil {
		return nil, suite.Receipt{}, qualitygateError(err)
	}
	return qgValidation(v), v.Receipt, nil
}

// qgValidateResponse is a validation (spec C's Validation result).
type qgValidateResponse struct {
	suiteMeta
	ValidationID            string               `json:"validation_id"`
	Score                   float64              `json:"score"`
	Verdict                 string               `json:"verdict"`
	ChecksVerdict           string               `json:"checks_verdict"`
	Issues                  []qgIssue            `json:"issues"`
	Recommendation          string               `json:"recommendation"`
	SuggestedPromptAddition string               `json:"suggested_prompt_addition"`
	CheckTypes              []string             `json:"check_types"`
	Directives              []qgDirectiveOutcome `json:"directives"`
	Override                bool                 `json:"override"`
	OverrideReason          *string              `json:"override_reason"`
	OutputLength            int                  `json:"output_length"`
}

// qgIssue is one finding of a validation.
type qgIssue struct {
	CheckType string  `json:"check_type"`
	Severity  string  `json:"severity"`
	Message   string  `json:"message"`
	Directive *string `json:"directive"`
	Line      *int    `json:"line"`
	Column    *int    `json:"column"`
	Path      *string `json:"path"`
}

// qgDirectiveOutcome is one directive checked.
type qgDirectiveOutcome struct {
	Directive string `json:"directive"`
	Type      string `json:"type"`
	Value     string `json:"value"`
	Passed    bool   `json:"passed"`
}

func qgString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func qgInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func qgValidation(v suite.QualityGateValidation) *qgValidateResponse {
	r := v.Result
	out := &qgValidateResponse{ValidationID: v.ValidationID, Score: r.Score, Verdict: string(r.Verdict), ChecksVerdict: string(r.CheckedVerdict),
		Issues: make([]qgIssue, 0, len(r.Issues)), Recommendation: r.Recommendation(), SuggestedPromptAddition: r.SuggestedPromptAddition(),
		CheckTypes: make([]string, 0, len(r.CheckTypes)), Directives: make([]qgDirectiveOutcome, 0, len(r.Directives)),
		Override: r.Override, OverrideReason: qgString(r.OverrideReason), OutputLength: r.OutputLength}
	for _, i := range r.Issues {
		issue := qgIssue{CheckType: i.CheckType, Severity: i.Severity, Message: i.Message, Directive: qgString(i.Directive),
			Line: qgInt(i.Line), Column: qgInt(i.Column)}
		issue.Path = qgString(i.Path)
		out.Issues = append(out.Issues, issue)
	}
	for _, c := range r.CheckTypes {
		out.CheckTypes = append(out.CheckTypes, string(c))
	}
	for _, d := range r.Directives {
		out.Directives = append(out.Directives, qgDirectiveOutcome{Directive: d.Directive.Label(), Type: string(d.Directive.Type),
			Value: d.Directive.Value, Passed: d.Passed})
	}
	out.FallbackBehavior = v.Fallback
	return out
}

// qgTrendsParams are trends' parameters as decoded.
type qgTrendsParams struct {
	Days      *float64 `json:"days"`
	CheckType *string  `json:"check_type"`
}

func (s *Server) qualitygateTrends(ctx context.Context, c suiteCall) (suiteBody, suite.Receipt, error) {
	var p qgTrendsParams
	if err := c.decode(&p); err != nil {
		return nil, suite.Receipt{}, err
	}
	days := 30
	if p.Days != nil {
		if *p.Days != math.Trunc(*p.Days) || *p.Days < 1 || *p.Days > 90 {
			return nil, suite.Receipt{}, suiteInvalid("days", "Field days must be a whole number of days from 1 to 90, not "+strconv.FormatFloat(*p.Days, 'g', -1, 64)+".")
		}
		days = int(*p.Days)
	}
	checkType := ""
	if p.CheckType != nil && *p.CheckType != "" {
		if !containsCheck(qualitygate.CheckType(*p.CheckType)) {
			return nil, suite.Receipt{}, suiteInvalid("check_type", fmt.Sprintf("Field check_type %q is not a check type (want %s).", *p.CheckType, checkTypeList()))
		}
		checkType = *p.CheckType
	}
	res, err := s.suite.QualityGate.Trends(ctx, suite.QualityGateTrends{Caller: c.caller, Days: days, CheckType: checkType})
	if err != nil {
		return nil, suite.Receipt{}, err
	}
	t := res.Trends
	out := &qgTrendsResponse{PeriodDays: t.Days, Since: t.Since, CheckType: qgString(t.CheckType),
		TotalValidations: t.Total, Passed: t.Passed, Warned: t.Warned, Failed: t.Failed, Overridden: t.Overridden,
		PassRate: t.PassRate, WarnRate: t.WarnRate, FailRate: t.FailRate, OverrideRate: t.OverrideRate, AverageScore: t.AverageScore,
		ByCheckType: make([]qgCheckTrend, 0, len(t.ByCheckType)), DirectiveEffectiveness: make([]qgDirectiveTrend, 0, len(t.Directives)),
		Daily: make([]qgDay, 0, len(t.Daily))}
	for _, c := range t.ByCheckType {
		out.ByCheckType = append(out.ByCheckType, qgCheckTrend{CheckType: c.CheckType, Total: c.Total, Passed: c.Passed, Failed: c.Failed, PassRate: c.PassRate})
	}
	for _, d := range t.Directives {
		out.DirectiveEffectiveness = append(out.DirectiveEffectiveness, qgDirectiveTrend{Directive: d.Directive, Type: d.Type,
			Checked: d.Checked, Failed: d.Failed, FailRate: d.FailRate})
	}
	for _, d := range t.Daily {
		out.Daily = append(out.Daily, qgDay{Date: d.Date, Total: d.Total, Passed: d.Passed, Warned: d.Warned, Failed: d.Failed, Overridden: d.Overridden})
	}
	return out, res.Receipt, nil
}

// qgTrendsResponse is an organization's validation trends.
type qgTrendsResponse struct {
	suiteMeta
	PeriodDays       int       `json:"period_days"`
	Since            time.Time `json:"since"`
	CheckType        *string   `json:"check_type"`
	TotalValidations int       `json:"total_validations"`
	Passed           int       `json:"passed"`
	Warned           int       `json:"warned"`
	Failed           int       `json:"failed"`
	Overridden       int       `json:"overridden"`
	// Rates are shares of total_validations (0 to 1).
	PassRate               float64            `json:"pass_rate"`
	WarnRate               float64            `json:"warn_rate"`
	FailRate               float64            `json:"fail_rate"`
	OverrideRate           float64            `json:"override_rate"`
	AverageScore           *float64           `json:"average_score"`
	ByCheckType            []qgCheckTrend     `json:"by_check_type"`
	DirectiveEffectiveness []qgDirectiveTrend `json:"directive_effectiveness"`
	Daily                  []qgDay            `json:"daily"`
}

// qgCheckTrend is one check type's record over the period.
type qgCheckTrend struct {
	CheckType string  `json:"check_type"`
	Total     int     `json:"total"`
	Passed    int     `json:"passed"`
	Failed    int     `json:"failed"`
	PassRate  float64 `json:"pass_rate"`
}

// qgDirectiveTrend is one directive's record: the ones outputs miss most
// first (at most 20).
type qgDirectiveTrend struct {
	Directive string  `json:"directive"`
	Type      string  `json:"type"`
	Checked   int     `json:"checked"`
	Failed    int     `json:"failed"`
	FailRate  float64 `json:"fail_rate"`
}

// qgDay is one UTC day's validations.
type qgDay struct {
	Date       string `json:"date"`
	Total      int    `json:"total"`
	Passed     int    `json:"passed"`
	Warned     int    `json:"warned"`
	Failed     int    `json:"failed"`
	Overridden int    `json:"overridden"`
}
