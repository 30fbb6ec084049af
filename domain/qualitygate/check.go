package qualitygate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// CheckType is one kind of check spec C names.
type CheckType string

// The check types. Tone, FactualClaims and InternalConsistency are LLM
// checks (the caller runs them through the LLM port); the others are
// pattern checks run here.
const (
	DirectiveCompliance CheckType = "directive_compliance"
	SchemaValidation    CheckType = "schema_validation"
	CodeSyntax          CheckType = "code_syntax"
	InternalConsistency CheckType = "internal_consistency"
	LengthCheck         CheckType = "length"
	Tone                CheckType = "tone"
	FactualClaims       CheckType = "factual_claims"
)

// CheckTypes are the check types in spec C's order.
var CheckTypes = []CheckType{DirectiveCompliance, SchemaValidation, CodeSyntax, InternalConsistency, LengthCheck, Tone, FactualClaims}

// LLM reports whether c is an LLM check.
func (c CheckType) LLM() bool { return c == Tone || c == FactualClaims || c == InternalConsistency }

// Severity of an issue: an error fails the validation, a warning makes it
// warn, info changes nothing.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Verdict of a validation.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "pass"
	Warn Verdict = "warn"
	Fail Verdict = "fail"
)

// Issue is one finding. Line and Column (1-based, in characters) are set
// where the finding has a place in the output, Path (a JSON pointer) for
// a schema violation, Directive for a directive's.
type Issue struct {
	CheckType string `json:"check_type"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Directive string `json:"directive,omitempty"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	Path      string `json:"path,omitempty"`
}

// MaxIssuesPerCheck bounds the issues one check reports; one more info
// issue says how many were left out.
const MaxIssuesPerCheck = 20

// InputError is a request the checks cannot run: Field names the
// parameter (400 invalid_request naming it).
type InputError struct {
	Field string
	Err   error
}

func (e *InputError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// ErrNothingToCheck is a request with no directives, schema, language or
// check types.
var ErrNothingToCheck = errors.New("nothing to check: give directives, a schema, a language or check_types")

// Request is what to check the output against.
type Request struct {
	Directives []Directive
	// CheckTypes asked for; those the inputs imply are added
	// (directives: directive_compliance, and length for length
	// directives; schema: schema_validation; language: code_syntax).
	CheckTypes []CheckType
	// Schema is compiled by CompileSchema (nil: none).
	Schema   *Schema
	Language Language
}

// Plan is a checked Request: the check types to run.
type Plan struct {
	req   Request
	types []CheckType
}

// NewPlan checks r: a check type without what it needs (schema_validation
// without a schema, code_syntax without a language) is an InputError.
func NewPlan(r Request) (*Plan, error) {
	// what is given is checked: the check types asked for and those its
	// inputs imply
	types := slices.Clone(r.CheckTypes)
	if len(r.Directives) > 0 {
		types = append(types, DirectiveCompliance)
		if slices.ContainsFunc(r.Directives, func(d Directive) bool { return d.Type == MinLength || d.Type == MaxLength }) {
			types = append(types, LengthCheck)
		}
	}
	if r.Schema != nil {
		types = append(types, SchemaValidation)
	}
	if r.Language != "" {
		types = append(types, CodeSyntax)
	}
	if len(types) == 0 {
		return nil, &InputError{Field: "check_types", Err: ErrNothingToCheck}
	}
	// spec C's order, each once
	var ordered []CheckType
	for _, c := range CheckTypes {
		if slices.Contains(types, c) {
			ordered = append(ordered, c)
		}
	}
	if slices.Contains(ordered, SchemaValidation) && r.Schema == nil {
		return nil, &InputError{Field: "schema", Err: errors.New("schema_validation needs a schema (a JSON Schema object)")}
	}
	if slices.Contains(ordered, CodeSyntax) && r.Language == "" {
		return nil, &InputError{Field: "language", Err: fmt.Errorf("code_syntax needs a language (%s)", languageList())}
	}
	if slices.Contains(ordered, DirectiveCompliance) && len(r.Directives) == 0 {
		return nil, &InputError{Field: "directives", Err: errors.New("directive_compliance needs directives")}
	}
	return &Plan{req: r, types: ordered}, nil
}

// CheckTypes are the check types the plan runs, in spec C's order.
func (p *Plan) CheckTypes() []CheckType { return slices.Clone(p.types) }

// LLMChecks are the plan's LLM checks.
func (p *Plan) LLMChecks() []CheckType {
	var out []CheckType
	for _, c := range p.types {
		if c.LLM() {
			out = append(out, c)
		}
	}
	return out
}

// DirectiveResult is one directive checked.
type DirectiveResult struct {
	Directive Directive
	Passed    bool
}

// unit is one thing checked, weighted 1: its share passed (0 to 1).
type unit struct {
	check  CheckType
	passed float64
}

// Result is a validation's outcome. Check fills the pattern checks';
// AddJudgement and SkipLLM the LLM checks'; Finish scores it.
type Result struct {
	CheckTypes   []CheckType
	Issues       []Issue
	Directives   []DirectiveResult
	OutputSHA256 string
	OutputLength int
	Language     Language
	HasSchema    bool
	LLM          bool
	LLMSkipped   bool

	Score          float64
	CheckedVerdict Verdict
	Verdict        Verdict
	Override       bool
	OverrideReason string

	units []unit
}

// Check runs the plan's pattern checks on output.
func (p *Plan) Check(output string) *Result {
	sum := sha256.Sum256([]byte(output))
	r := &Result{CheckTypes: slices.Clone(p.types), OutputSHA256: hex.EncodeToString(sum[:]),
		OutputLength: utf8.RuneCountInString(output), Language: p.req.Language, HasSchema: p.req.Schema != nil,
		LLM: len(p.LLMChecks()) > 0, Issues: []Issue{}, Directives: []DirectiveResult{}}
	doc := newText(output)
	has := func(c CheckType) bool { return slices.Contains(p.types, c) }
	// directives imply directive_compliance (NewPlan): each is checked,
	// the length ones under length
	lengths := 0
	for _, d := range p.req.Directives {
		if d.Type == MinLength || d.Type == MaxLength {
			lengths++
		}
		r.directive(doc, d)
	}
	if has(LengthCheck) && lengths == 0 {
		// length without a bound: the output must not be empty
		passed := 1.0
		if strings.TrimSpace(output) == "" {
			passed = 0
			r.Issues = append(r.Issues, Issue{CheckType: string(LengthCheck), Severity: string(SeverityError), Message: "The output is empty."})
		}
		r.units = append(r.units, unit{LengthCheck, passed})
	}
	if has(SchemaValidation) {
		r.add(SchemaValidation, p.req.Schema.check(doc))
	}
	if has(CodeSyntax) {
		r.add(CodeSyntax, checkSyntax(doc, p.req.Language))
	}
	return r
}

// add records the issues of one pattern check (a unit).
func (r *Result) add(c CheckType, issues []Issue) {
	if len(issues) > MaxIssuesPerCheck {
		more := len(issues) - MaxIssuesPerCheck
		issues = append(issues[:MaxIssuesPerCheck:MaxIssuesPerCheck], Issue{CheckType: string(c), Severity: string(SeverityInfo),
			Message: fmt.Sprintf("%d more issues of this check are not listed.", more)})
	}
	r.Issues = append(r.Issues, issues...)
	r.units = append(r.units, unit{c, share(issues)})
}

// share is 1 without errors or warnings, 0.5 with warnings only, 0 with
// an error.
func share(issues []Issue) float64 {
	s := 1.0
	for _, i := range issues {
		switch Severity(i.Severity) {
		case SeverityError:
			return 0
		case SeverityWarning:
			s = 0.5
		}
	}
	return s
}

// Judgement is an LLM check's answer: a score 0-100, a summary and the
// changes that would raise the score.
type Judgement struct {
	Score    int
	Summary  string
	Findings []string
}

// JudgementPass is the score from which an LLM check passes; below
// JudgementWarn it fails (an error), between the two it warns.
const (
	JudgementPass = 80
	JudgementWarn = 50
)

// AddJudgement records LLM check c's judgement: each finding is an issue,
// an error below JudgementWarn, a warning below JudgementPass, info above.
func (r *Result) AddJudgement(c CheckType, j Judgement) {
	sev := SeverityInfo
	switch {
	case j.Score < JudgementWarn:
		sev = SeverityError
	case j.Score < JudgementPass:
		sev = SeverityWarning
	}
	findings := j.Findings
	if len(findings) == 0 && sev != SeverityInfo {
		findings = []string{j.Summary}
	}
	if len(findings) > MaxIssuesPerCheck {
		findings = findings[:MaxIssuesPerCheck]
	}
	for _, f := range findings {
		r.Issues = append(r.Issues, Issue{CheckType: string(c), Severity: string(sev), Message: f})
	}
	r.units = append(r.units, unit{c, float64(max(0, min(100, j.Score))) / 100})
}

// SkipLLM records that the LLM checks could not run (the port failed):
// they count for nothing and the result says so in an info issue each.
func (r *Result) SkipLLM(checks []CheckType) {
	r.LLMSkipped = true
	for _, c := range checks {
		r.Issues = append(r.Issues, Issue{CheckType: string(c), Severity: string(SeverityInfo),
			Message: "Skipped: the language model did not answer; the pattern checks were run and charged alone."})
	}
}

// Finish scores r: the share of its units passed, as 0-100 with one
// decimal; fail with an error issue, warn with a warning, else pass. An
// override makes the verdict pass and keeps the issues.
func (r *Result) Finish(override bool, reason string) {
	total := 0.0
	for _, u := range r.units {
		total += u.passed
	}
	r.Score = 100
	if len(r.units) > 0 {
		r.Score = float64(int(total/float64(len(r.units))*1000+0.5)) / 10
	}
	r.CheckedVerdict = Pass
	for _, i := range r.Issues {
		switch Severity(i.Severity) {
		case SeverityError:
			r.CheckedVerdict = Fail
		case SeverityWarning:
			if r.CheckedVerdict == Pass {
				r.CheckedVerdict = Warn
			}
		}
	}
	r.Verdict = r.CheckedVerdict
	if override {
		r.Override, r.OverrideReason, r.Verdict = true, strings.TrimSpace(reason), Pass
	}
}

// failed reports whether check c found an error.
func (r *Result) failed(c CheckType) bool {
	for _, i := range r.Issues {
		if i.CheckType == string(c) && Severity(i.Severity) == SeverityError {
			return true
		}
	}
	return false
}

// Errors counts r's error issues.
func (r *Result) Errors() int {
	n := 0
	for _, i := range r.Issues {
		if Severity(i.Severity) == SeverityError {
			n++
		}
	}
	return n
}
