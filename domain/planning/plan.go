package planning

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"svc/domain/catalog"
)

// Rigor levels, tool scopes, model preferences and executions accepted.
var (
	RigorLevels      = []string{"quick", "standard", "thorough"}
	ToolScopes       = []string{"mandatory", "recommended", "all"}
	ModelPreferences = []string{"quality_first", "cost_optimized", "balanced"}
	Executions       = []string{"direct", "standard"}
)

// Fixed steps and prices.
const (
	SynthesisName    = "Synthesis"
	SynthesisCredits = 530
	ReviewName       = "Multi-Perspective Review"
	VerificationName = "Evidence Check"
	// CompositionLimit is the most content steps direct execution composes
	// into one call.
	CompositionLimit = 8
	// tier2Factor is what a step costs on a tier-2 model relative to tier 1.
	tier2Factor = 0.5
)

var reviews = map[string]struct {
	qualifier string
	credits   int
	model     string
}{
	"quick":    {"Lightweight", 180, "tier-2"},
	"standard": {"Standard", 320, "tier-1"},
	"thorough": {"Full", 560, "tier-1 + tier-2 cross-check"},
}

var scopeRank = map[string]int{"mandatory": 1, "recommended": 2, "all": 3}
var defaultScope = map[string]string{"quick": "mandatory", "standard": "recommended", "thorough": "all"}

// FieldError is a request field that cannot be planned with; Field is its
// path in the body ("preferences.skip_frameworks").
type FieldError struct {
	Field, Reason string
	Code          string // "invalid_field" or "invalid_step_index"
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, a...), Code: "invalid_field"}
}

// ErrUnknownTaskType is a task_type hint that is not in the catalogue.
var ErrUnknownTaskType = errors.New("unknown task type")

// AddFramework is one entry of preferences.add_frameworks.
type AddFramework struct {
	Name       string
	BeforeStep int // 1-based step to insert before; 0 = at the end of the content steps
}

// Preferences are the plan preferences of spec A.
type Preferences struct {
	RigorLevel         string
	ToolScope          string
	ModelPreference    string
	MaxBudgetUSD       *float64
	SkipFrameworks     []string
	OnlyFrameworks     []string
	AddFrameworks      []AddFramework
	RequireApproval    bool
	ApprovalBeforeStep []int
	Execution          string
	OutputContract     json.RawMessage
}

// Connection is an entry of available_mcp_connections.
type Connection struct {
	ID           string   `json:"id"`
	Label        string   `json:"label"`
	ServerURL    string   `json:"server_url"`
	Capabilities []string `json:"capabilities"`
	// State is what a check of the server found, set by the caller:
	// "" or ConnAvailable, ConnDegraded (it answered with an error), or
	// ConnFailed (it did not answer); Detail says what happened.
	State  string `json:"-"`
	Detail string `json:"-"`
	// Listed says the server answered MCP resources/list, and Resources
	// are what it listed (set by the caller); the files named in
	// additional_context are checked against the listed servers.
	Listed    bool       `json:"-"`
	Resources []Resource `json:"-"`
}

// Connection states.
const (
	ConnAvailable = "available"
	ConnDegraded  = "degraded"
	ConnFailed    = "error"
)

// Step is one planned step. Only the first five fields are shown.
type Step struct {
	Step             int    `json:"step"`
	Name             string `json:"name"`
	EstimatedCredits int    `json:"estimated_credits"`
	PriorityClass    string `json:"priority_class,omitempty"`
	AutoAdded        bool   `json:"auto_added,omitempty"`
	// Model is the model the step runs on, shown (beyond spec A) only when
	// the workspace's llm policy routes it.
	Model string `json:"model,omitempty"`

	Kind      string `json:"-"` // content, research, process, review, synthesis
	ModelTier int    `json:"-"` // 1 or 2: the tier the step is served and priced at
	base      int
	want      int // the tier the plan asked for, before the policy's routing
}

// Range is the observed spread of a task type's executed cost.
type Range struct {
	EstimatedMin int `json:"estimated_min"`
	EstimatedMax int `json:"estimated_max"`
}

// Cost of a plan.
type Cost struct {
	Credits int     `json:"credits"`
	USD     float64 `json:"usd"`
	Range   *Range  `json:"range,omitempty"`
}

// AltCost is an alternative's cost.
type AltCost struct {
	Credits int    `json:"credits"`
	Range   *Range `json:"range,omitempty"`
}

// Alternative is the plan at another rigor level.
type Alternative struct {
	Steps                int      `json:"steps"`
	Cost                 AltCost  `json:"cost"`
	Skips                []string `json:"skips"`
	Adds                 []string `json:"adds"`
	ReviewModel          string   `json:"review_model"`
	IncludesVerification bool     `json:"includes_verification"`
	Tradeoff             string   `json:"tradeoff"`
}

// Warning is a plan warning.
type Warning struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion"`
}

// ConnectionState is a connection as the plan's context reports it.
type ConnectionState struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Status string `json:"status"`
}

// Files are the files named in additional_context.
type Files struct {
	Found    []string `json:"found"`
	NotFound []string `json:"not_found"`
}

// Context is the plan's view of its context.
type Context struct {
	Connections     []ConnectionState `json:"connections"`
	ReferencedFiles Files             `json:"referenced_files"`
	Sufficient      bool              `json:"sufficient"`
}

// ClassificationInfo is the plan's classification.
type ClassificationInfo struct {
	TaskType   string `json:"task_type"`
	ValueClass string `json:"value_class"`
}

// Plan is spec A's Plan resource (single-workflow form).
type Plan struct {
	WorkflowID        string                 `json:"workflow_id,omitempty"`
	Classification    ClassificationInfo     `json:"classification"`
	Sequence          []Step                 `json:"sequence"`
	Cost              Cost                   `json:"cost"`
	Alternatives      map[string]Alternative `json:"alternatives"`
	Context           Context                `json:"context"`
	Info              []string               `json:"info"`
	Warnings          []Warning              `json:"warnings"`
	RigorLevel        string                 `json:"rigor_level"`
	Execution         string                 `json:"execution,omitempty"`
	ExecutionFallback bool                   `json:"execution_fallback,omitempty"`
	AllowedModes      []string               `json:"allowed_modes"`

	// ApprovalGates are the zero-based step indices execution pauses before.
	ApprovalGates []int `json:"-"`
	// External is the content read for the plan's steps, scanned
	// (external.go); never shown.
	External []External `json:"-"`
}

// History reports how far the executed cost of a task type's workflows
// strayed from their estimates (as ratios cost/estimate), if any ran.
type History func(taskType string) (minRatio, maxRatio float64, ok bool)

// Request is everything a plan is built from.
type Request struct {
	TaskType          string
	Description       string
	Preferences       Preferences
	AdditionalContext string
	Connections       []Connection
	History           History
	// SingleIntent plans the whole description as one workflow, even when
	// it holds several intents (a fresh execute runs one workflow).
	SingleIntent bool
	// Routing is the workspace's llm policy (nil: none): steps use only
	// the models it allows (models.go).
	Routing *Routing
	// External is the content of the files the context names, read from
	// the connections that list them (ResourceReads), set by the caller.
	External []External
}

func usd(credits int) float64 { return math.Round(float64(credits)) / 1000 }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Build builds the plan for a classified request.
func Build(cat *catalog.Catalog, req Request) (Plan, error) {
	tt, ok := cat.TaskType(req.TaskType)
	if !ok {
		return Plan{}, fmt.Errorf("%w %q", ErrUnknownTaskType, req.TaskType)
	}
	p := req.Preferences
	if err := validatePreferences(cat, p); err != nil {
		return Plan{}, err
	}
	rigor := p.RigorLevel
	if rigor == "" {
		rigor = tt.DefaultRigor
	}
	plan, err := sequence(cat, tt, p, rigor)
	if err != nil {
		return Plan{}, err
	}
	plan.Classification = ClassificationInfo{TaskType: tt.ID, ValueClass: tt.ValueClass}
	plan.RigorLevel = rigor
	plan.Info = append([]string{fmt.Sprintf("Planned as %s (%s) at %s rigor.", tt.Label, tt.ID, rigor)}, plan.Info...)
	if plan.Warnings == nil {
		plan.Warnings = []Warning{}
	}
	route(&plan, req.Routing)
	applyBudget(&plan, p.MaxBudgetUSD, req.Routing)
	policyNotes(&plan, req.Routing)
	costOf(&plan, req.History, tt.ID)

	if err := gates(&plan, p); err != nil {
		return Plan{}, err
	}
	execution(&plan, tt, p)
	plan.Context = contextOf(&plan, cat, req)

	plan.Alternatives = map[string]Alternative{}
	for _, level := range RigorLevels {
		if level == rigor {
			continue
		}
		alt, err := sequence(cat, tt, p, level)
		if err != nil {
			continue // a preference that only fits this level; the alternative is left out
		}
		route(&alt, req.Routing)
		applyBudget(&alt, p.MaxBudgetUSD, req.Routing) // priced under the same target and policy, for a fair comparison
		costOf(&alt, req.History, tt.ID)
		plan.Alternatives[level] = alternative(plan, alt, level)
	}
	return plan, nil
}

func validatePreferences(cat *catalog.Catalog, p Preferences) error {
	if p.RigorLevel != "" && !contains(RigorLevels, p.RigorLevel) {
		return fieldErr("preferences.rigor_level", "must be quick, standard or thorough")
	}
	if p.ToolScope != "" && !contains(ToolScopes, p.ToolScope) {
		return fieldErr("preferences.tool_scope", "must be mandatory, recommended or all")
	}
	if p.ModelPreference != "" && !contains(ModelPreferences, p.ModelPreference) {
		return fieldErr("preferences.model_preference", "must be quality_first, cost_optimized or balanced")
	}
	if p.Execution != "" && !contains(Executions, p.Execution) {
		return fieldErr("preferences.execution", "must be direct or standard")
	}
	if p.MaxBudgetUSD != nil && (*p.MaxBudgetUSD <= 0 || math.IsNaN(*p.MaxBudgetUSD) || math.IsInf(*p.MaxBudgetUSD, 0)) {
		return fieldErr("preferences.max_budget_usd", "must be a positive number")
	}
	if len(p.SkipFrameworks) > 0 && len(p.OnlyFrameworks) > 0 {
		return fieldErr("preferences.only_frameworks", "cannot be combined with skip_frameworks")
	}
	for field, names := range map[string][]string{"preferences.skip_frameworks": p.SkipFrameworks, "preferences.only_frameworks": p.OnlyFrameworks} {
		for i, n := range names {
			if _, ok := cat.FrameworkFold(n); !ok {
				return fieldErr(fmt.Sprintf("%s[%d]", field, i), "unknown framework %q", n)
			}
		}
	}
	for i, a := range p.AddFrameworks {
		if _, ok := cat.FrameworkFold(a.Name); !ok {
			return fieldErr(fmt.Sprintf("preferences.add_frameworks[%d]", i), "unknown framework %q", a.Name)
		}
		if a.BeforeStep < 0 {
			return fieldErr(fmt.Sprintf("preferences.add_frameworks[%d].before_step", i), "must be a step number from 1")
		}
	}
	if len(p.OutputContract) > 0 {
		if err := ValidateContract(p.OutputContract); err != nil {
			return err
		}
	}
	return nil
}

// sequence orders the content steps, resolves prerequisites and appends
// verification, review and Synthesis.
func sequence(cat *catalog.Catalog, tt catalog.TaskType, p Preferences, rigor string) (Plan, error) {
	var plan Plan
	scope := p.ToolScope
	if scope == "" {
		scope = defaultScope[rigor]
	}
	var names []string
	if len(p.OnlyFrameworks) > 0 {
		for _, n := range p.OnlyFrameworks {
			f, _ := cat.FrameworkFold(n)
			if !contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	} else {
		for _, n := range tt.Frameworks {
			f, _ := cat.Framework(n)
			if scopeRank[f.Tier] <= scopeRank[scope] {
				names = append(names, f.Name)
			}
		}
	}
	skipped := map[string]bool{}
	for _, n := range p.SkipFrameworks {
		f, _ := cat.FrameworkFold(n)
		skipped[f.Name] = true
		if !contains(names, f.Name) {
			plan.Info = append(plan.Info, fmt.Sprintf("%s is not in this plan; nothing to skip.", f.Name))
		}
	}
	kept := names[:0:0]
	for _, n := range names {
		if !skipped[n] {
			kept = append(kept, n)
		}
	}
	names = kept
	for i, a := range p.AddFrameworks {
		f, _ := cat.FrameworkFold(a.Name)
		if contains(names, f.Name) {
			plan.Info = append(plan.Info, fmt.Sprintf("%s is already in the plan.", f.Name))
			continue
		}
		at := len(names)
		if a.BeforeStep > 0 {
			if a.BeforeStep > len(names)+1 {
				return Plan{}, fieldErr(fmt.Sprintf("preferences.add_frameworks[%d].before_step", i), "step %d is past the %d content steps", a.BeforeStep, len(names))
			}
			at = a.BeforeStep - 1
		}
		names = append(names[:at], append([]string{f.Name}, names[at:]...)...)
	}

	// prerequisites: each missing one goes right before the first step that needs it
	auto := map[string]bool{}
	var resolved []string
	var place func(name string, depth int)
	place = func(name string, depth int) {
		if contains(resolved, name) || depth > 16 {
			return
		}
		f, _ := cat.Framework(name)
		for _, pre := range f.Prerequisites {
			if contains(resolved, pre) {
				continue
			}
			if skipped[pre] {
				plan.Info = append(plan.Info, fmt.Sprintf("%s usually needs %s, which you skipped.", name, pre))
				continue
			}
			if !contains(names, pre) {
				auto[pre] = true
			}
			place(pre, depth+1)
		}
		resolved = append(resolved, name)
	}
	for _, n := range names {
		place(n, 0)
	}

	modelTier := func(f catalog.Framework) int {
		switch p.ModelPreference {
		case "quality_first":
			return 1
		case "cost_optimized":
			return 2
		}
		if f.PriorityClass == "must" {
			return 1
		}
		return 2
	}
	for _, n := range resolved {
		f, _ := cat.Framework(n)
		plan.Sequence = append(plan.Sequence, Step{Name: f.Name, PriorityClass: f.PriorityClass, AutoAdded: auto[n], Kind: f.Kind, ModelTier: modelTier(f), base: f.Credits})
	}
	if rigor == "thorough" && !contains(resolved, VerificationName) {
		if f, ok := cat.Framework(VerificationName); ok {
			plan.Sequence = append(plan.Sequence, Step{Name: f.Name, PriorityClass: "should", Kind: "process", ModelTier: 2, base: f.Credits})
		}
	}
	rv := reviews[rigor]
	plan.Sequence = append(plan.Sequence,
		Step{Name: ReviewName + " (" + rv.qualifier + ")", PriorityClass: "must", Kind: "review", ModelTier: 1, base: rv.credits},
		Step{Name: SynthesisName, PriorityClass: "must", Kind: "synthesis", ModelTier: 1, base: SynthesisCredits})
	number(&plan)
	return plan, nil
}

// number sets step numbers and prices.
func number(plan *Plan) {
	for i := range plan.Sequence {
		s := &plan.Sequence[i]
		s.Step = i + 1
		s.EstimatedCredits = s.base
		if s.ModelTier == 2 && s.Kind != "synthesis" && s.Kind != "review" {
			s.EstimatedCredits = int(math.Round(float64(s.base) * tier2Factor))
		}
	}
}

func total(steps []Step) int {
	n := 0
	for _, s := range steps {
		n += s.EstimatedCredits
	}
	return n
}

func costOf(plan *Plan, h History, taskType string) {
	plan.Cost = Cost{Credits: total(plan.Sequence)}
	plan.Cost.USD = usd(plan.Cost.Credits)
	if h != nil {
		if lo, hi, ok := h(taskType); ok {
			c := float64(plan.Cost.Credits)
			plan.Cost.Range = &Range{EstimatedMin: int(math.Floor(c * lo)), EstimatedMax: int(math.Ceil(c * hi))}
		}
	}
}

// applyBudget applies the three max_budget_usd rules; under a policy r
// that serves no tier-2 model, rule 1 has nothing to lower.
func applyBudget(plan *Plan, budget *float64, r *Routing) {
	if budget == nil {
		return
	}
	limit := int(math.Floor(*budget * 1000))
	before := total(plan.Sequence)
	if before <= limit {
		return
	}
	for i := range plan.Sequence { // rule 1: tier-1 models down to tier 2
		if plan.Sequence[i].Kind != "review" && plan.Sequence[i].Kind != "synthesis" {
			plan.Sequence[i].want = 2
		}
	}
	route(plan, r)
	if after := total(plan.Sequence); after <= limit {
		plan.Warnings = append(plan.Warnings, Warning{Code: "budget_below_estimate",
			Message:    fmt.Sprintf("The estimate of %d credits ($%.3f) was above max_budget_usd $%.2f; content steps now use tier-2 models: %d credits.", before, usd(before), *budget, after),
			Suggestion: "Raise max_budget_usd to keep tier-1 models, or accept the re-costed plan."})
		return
	}
	kept := plan.Sequence[:0:0] // rule 2: drop optional steps
	var dropped []string
	for _, s := range plan.Sequence {
		if s.PriorityClass == "could" {
			dropped = append(dropped, s.Name)
			continue
		}
		kept = append(kept, s)
	}
	plan.Sequence = kept
	number(plan)
	after := total(plan.Sequence)
	msg := fmt.Sprintf("The estimate of %d credits was above max_budget_usd $%.2f; content steps now use tier-2 models", before, *budget)
	if r != nil && r.For(2).Tier != 2 {
		msg = fmt.Sprintf("The estimate of %d credits was above max_budget_usd $%.2f; the workspace's model policy allows no tier-2 model", before, *budget)
	}
	if len(dropped) > 0 {
		msg += " and optional steps were dropped (" + strings.Join(dropped, ", ") + ")"
	}
	plan.Warnings = append(plan.Warnings, Warning{Code: "budget_below_estimate", Message: msg + fmt.Sprintf(": %d credits.", after),
		Suggestion: "Raise max_budget_usd, or skip frameworks with preferences.skip_frameworks."})
	if after > limit { // rule 3
		plan.Warnings = append(plan.Warnings, Warning{Code: "budget_below_estimate",
			Message:    fmt.Sprintf("After all optimisations the estimate (%d credits, $%.3f) still exceeds max_budget_usd $%.2f. The plan stays executable.", after, usd(after), *budget),
			Suggestion: "max_budget_usd is a target, not a ceiling: execute as is, lower the rigor level, or skip frameworks."})
	}
}

func gates(plan *Plan, p Preferences) error {
	n := len(plan.Sequence)
	for i, idx := range p.ApprovalBeforeStep {
		if idx < 0 || idx >= n {
			return &FieldError{Field: fmt.Sprintf("preferences.approval_before_step[%d]", i), Code: "invalid_step_index",
				Reason: fmt.Sprintf("index %d is outside the plan's steps 0 to %d", idx, n-1)}
		}
		if !containsInt(plan.ApprovalGates, idx) {
			plan.ApprovalGates = append(plan.ApprovalGates, idx)
		}
	}
	if p.RequireApproval {
		for i, s := range plan.Sequence {
			if s.Kind == "review" && !containsInt(plan.ApprovalGates, i) {
				plan.ApprovalGates = append(plan.ApprovalGates, i)
			}
		}
		plan.Info = append(plan.Info, "Execution pauses for approval before the final review and Synthesis.")
	}
	return nil
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func execution(plan *Plan, tt catalog.TaskType, p Preferences) {
	content := 0
	for _, s := range plan.Sequence {
		if s.Kind == "content" {
			content++
		}
	}
	plan.AllowedModes = []string{}
	eligible := content <= CompositionLimit
	if eligible {
		plan.AllowedModes = []string{"direct"}
	}
	gated := len(plan.ApprovalGates) > 0
	switch {
	case p.Execution == "direct" && eligible && !gated:
		plan.Execution = "direct"
	case p.Execution == "direct":
		plan.ExecutionFallback = true
		why := fmt.Sprintf("the plan has %d content steps, over the composition limit of %d", content, CompositionLimit)
		if gated {
			why = "an approval gate is set (the approval preference wins)"
		}
		plan.Info = append(plan.Info, "Direct execution was requested but standard execution will run: "+why+".")
	case p.Execution == "" && tt.Shape == catalog.ShapeAtomic && eligible && !gated:
		plan.Execution = "direct"
		plan.Info = append(plan.Info, "Atomic task type: direct execution selected.")
	}
}

func contextOf(plan *Plan, cat *catalog.Catalog, req Request) Context {
	c := Context{Connections: []ConnectionState{}, ReferencedFiles: Files{Found: []string{}, NotFound: []string{}}, Sufficient: true}
	codeHost, codingAgent := false, false
	for _, conn := range req.Connections {
		name := connectionName(conn)
		state := conn.State
		if state == "" {
			state = ConnAvailable
		}
		c.Connections = append(c.Connections, ConnectionState{Name: name, Type: "mcp", Status: state})
		switch state {
		case ConnFailed:
			c.Sufficient = false
			plan.Warnings = append(plan.Warnings, Warning{Code: "connection_error",
				Message:    fmt.Sprintf("Connection %s failed to respond: %s.", name, conn.Detail),
				Suggestion: "Check the server and its URL, then plan again; steps that need it will halt at execution while it is down."})
		case ConnDegraded:
			c.Sufficient = false
			plan.Warnings = append(plan.Warnings, Warning{Code: "context_insufficient",
				Message:    fmt.Sprintf("Connection %s returned degraded context: %s.", name, conn.Detail),
				Suggestion: "Fix the server's access (credentials, permissions), or paste the material in context.additional_context."})
		}
		caps := strings.ToLower(strings.Join(conn.Capabilities, " "))
		if strings.Contains(caps, "repo") || strings.Contains(caps, "git") {
			codeHost = true
		}
		if strings.Contains(caps, "code") || strings.Contains(caps, "shell") || strings.Contains(caps, "exec") {
			codingAgent = true
		}
	}
	needsContext := false
	for _, s := range plan.Sequence {
		if f, ok := cat.Framework(s.Name); ok && f.NeedsExternalContext {
			needsContext = true
		}
	}
	if needsContext && len(req.Connections) == 0 && strings.TrimSpace(req.AdditionalContext) == "" {
		c.Sufficient = false
		plan.Warnings = append(plan.Warnings, Warning{Code: "no_coding_agent",
			Message:    "Some steps work on material outside the description (a repository, documents) and no context server is connected: a prompt-protocol step will ask for it instead.",
			Suggestion: "Pass available_mcp_connections, or paste the material in context.additional_context."})
	}
	if codingAgent && !codeHost {
		plan.Warnings = append(plan.Warnings, Warning{Code: "mcp_cost_optimization",
			Message:    "A coding-agent tool is connected without a code-host connection: broad scanning costs extra tokens.",
			Suggestion: "Connect the code host too, so steps can read files directly."})
	}
	referencedFiles(plan, &c, req)
	plan.External = externalContent(plan, req)
	return c
}

func alternative(current, alt Plan, level string) Alternative {
	names := func(p Plan) []string {
		var out []string
		for _, s := range p.Sequence {
			out = append(out, s.Name)
		}
		return out
	}
	cur, other := names(current), names(alt)
	a := Alternative{Steps: len(alt.Sequence), Cost: AltCost{Credits: alt.Cost.Credits, Range: alt.Cost.Range},
		Skips: []string{}, Adds: []string{}, ReviewModel: reviews[level].model, IncludesVerification: contains(other, VerificationName)}
	for _, n := range cur {
		if !contains(other, n) {
			a.Skips = append(a.Skips, n)
		}
	}
	for _, n := range other {
		if !contains(cur, n) {
			a.Adds = append(a.Adds, n)
		}
	}
	switch level {
	case "quick":
		a.Tradeoff = "Cheapest and fastest: mandatory frameworks only and a lightweight review; less depth and no verification."
	case "standard":
		a.Tradeoff = "Balanced: recommended frameworks and a standard review."
	case "thorough":
		a.Tradeoff = "Most complete: every relevant framework, an evidence check and a full cross-model review; costs and takes the most."
	}
	return a
}
