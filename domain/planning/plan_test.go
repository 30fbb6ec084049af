package planning_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"svc/domain/catalog"
	"svc/domain/planning"
)

var cat = catalog.Default()

func build(t *testing.T, taskType string, p planning.Preferences) planning.Plan {
	t.Helper()
	plan, err := planning.Build(cat, planning.Request{TaskType: taskType, Description: "a task to plan", Preferences: p})
	if err != nil {
		t.Fatalf("build %s: %v", taskType, err)
	}
	return plan
}

func names(p planning.Plan) []string {
	var out []string
	for _, s := range p.Sequence {
		out = append(out, s.Name)
	}
	return out
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func fieldErr(t *testing.T, err error) *planning.FieldError {
	t.Helper()
	var fe *planning.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("want a field error, got %v", err)
	}
	return fe
}

func TestEveryTaskTypePlansWithTheFixedRules(t *testing.T) {
	for _, tt := range cat.TaskTypes() {
		for _, rigor := range planning.RigorLevels {
			p := build(t, tt.ID, planning.Preferences{RigorLevel: rigor})
			last := p.Sequence[len(p.Sequence)-1]
			if last.Name != "Synthesis" || last.PriorityClass != "must" || last.EstimatedCredits != 530 {
				t.Fatalf("%s/%s: last step %+v", tt.ID, rigor, last)
			}
			sum := 0
			for i, s := range p.Sequence {
				sum += s.EstimatedCredits
				if s.Step != i+1 || s.Name == "" || s.EstimatedCredits <= 0 {
					t.Fatalf("%s/%s: step %+v", tt.ID, rigor, s)
				}
				if strings.Contains(strings.ToLower(s.Name), "gpt") || strings.Contains(strings.ToLower(s.Name), "claude") {
					t.Fatalf("model name in a step: %s", s.Name)
				}
			}
			if p.Cost.Credits != sum || p.Cost.USD != float64(sum)/1000 || p.Cost.Range != nil {
				t.Fatalf("%s/%s: cost %+v, steps sum %d", tt.ID, rigor, p.Cost, sum)
			}
			qual := map[string]string{"quick": "Lightweight", "standard": "Standard", "thorough": "Full"}[rigor]
			if index(names(p), "Multi-Perspective Review ("+qual+")") != len(p.Sequence)-2 {
				t.Fatalf("%s/%s: review not second to last: %v", tt.ID, rigor, names(p))
			}
			if rigor == "thorough" && index(names(p), "Evidence Check") < 0 || rigor != "thorough" && index(names(p), "Evidence Check") >= 0 && index(tt.Frameworks, "Evidence Check") < 0 {
				t.Fatalf("%s/%s: verification: %v", tt.ID, rigor, names(p))
			}
			if len(p.Alternatives) != 2 || p.Alternatives[rigor].Steps != 0 || p.AllowedModes == nil || p.Warnings == nil {
				t.Fatalf("%s/%s: alternatives %v allowed %v", tt.ID, rigor, p.Alternatives, p.AllowedModes)
			}
			if p.Classification.TaskType != tt.ID || p.Classification.ValueClass != tt.ValueClass || p.RigorLevel != rigor {
				t.Fatalf("%s/%s: classification %+v", tt.ID, rigor, p.Classification)
			}
		}
	}
}

func TestRigorDefaultsAndAlternatives(t *testing.T) {
	tt, _ := cat.TaskType("competitive_analysis")
	p := build(t, tt.ID, planning.Preferences{})
	if p.RigorLevel != tt.DefaultRigor {
		t.Fatalf("rigor %s, want the type's default %s", p.RigorLevel, tt.DefaultRigor)
	}
	q := build(t, tt.ID, planning.Preferences{RigorLevel: "quick"})
	th := build(t, tt.ID, planning.Preferences{RigorLevel: "thorough"})
	alt := q.Alternatives["thorough"]
	if alt.Steps != len(th.Sequence) || alt.Cost.Credits != th.Cost.Credits || !alt.IncludesVerification || alt.ReviewModel == "" || alt.Tradeoff == "" {
		t.Fatalf("thorough alternative %+v vs plan of %d steps, %d credits", alt, len(th.Sequence), th.Cost.Credits)
	}
	for _, a := range alt.Adds {
		if index(names(q), a) >= 0 || index(names(th), a) < 0 {
			t.Fatalf("adds %v", alt.Adds)
		}
	}
	if len(q.Alternatives["thorough"].Skips) == 0 || index(q.Alternatives["thorough"].Skips, "Multi-Perspective Review (Lightweight)") < 0 {
		t.Fatalf("skips %v", q.Alternatives["thorough"].Skips)
	}
}

func TestToolScopeNests(t *testing.T) {
	for _, tt := range cat.TaskTypes() {
		m := build(t, tt.ID, planning.Preferences{RigorLevel: "standard", ToolScope: "mandatory"})
		r := build(t, tt.ID, planning.Preferences{RigorLevel: "standard", ToolScope: "recommended"})
		a := build(t, tt.ID, planning.Preferences{RigorLevel: "standard", ToolScope: "all"})
		if !(len(m.Sequence) <= len(r.Sequence) && len(r.Sequence) <= len(a.Sequence)) || len(m.Sequence) < 3 {
			t.Fatalf("%s: %d / %d / %d steps", tt.ID, len(m.Sequence), len(r.Sequence), len(a.Sequence))
		}
		for _, s := range m.Sequence {
			if index(names(a), s.Name) < 0 {
				t.Fatalf("%s: %s in mandatory but not in all", tt.ID, s.Name)
			}
		}
	}
}

func TestPrerequisitesAreAutoAdded(t *testing.T) {
	found := false
	for _, f := range cat.Frameworks() {
		if len(f.Prerequisites) == 0 {
			continue
		}
		pre := f.Prerequisites[0]
		for _, tt := range cat.TaskTypes() {
			if index(tt.Frameworks, pre) >= 0 || index(tt.Frameworks, f.Name) >= 0 || tt.Shape != "workflow" {
				continue
			}
			p := build(t, tt.ID, planning.Preferences{AddFrameworks: []planning.AddFramework{{Name: f.Name}}})
			ns := names(p)
			i, j := index(ns, pre), index(ns, f.Name)
			if i < 0 || j < 0 || i > j || !p.Sequence[i].AutoAdded || p.Sequence[j].AutoAdded {
				t.Fatalf("%s + %s: prerequisite %s at %d, framework at %d: %+v", tt.ID, f.Name, pre, i, j, p.Sequence)
			}
			found = true
			break
		}
		if found {
			break
		}
	}
	if !found {
		t.Fatal("no framework with a prerequisite to test")
	}
}

func TestSkipOnlyAdd(t *testing.T) {
	base := build(t, "competitive_analysis", planning.Preferences{RigorLevel: "standard"})
	first := base.Sequence[1].Name
	skipped := build(t, "competitive_analysis", planning.Preferences{RigorLevel: "standard", SkipFrameworks: []string{strings.ToUpper(first)}})
	if index(names(skipped), first) >= 0 {
		t.Fatalf("%s not skipped: %v", first, names(skipped))
	}
	only := build(t, "competitive_analysis", planning.Preferences{RigorLevel: "standard", OnlyFrameworks: []string{"SWOT Analysis"}})
	if only.Sequence[0].Name != "SWOT Analysis" || len(only.Sequence) != 3 {
		t.Fatalf("only: %v", names(only))
	}
	added := build(t, "competitive_analysis", planning.Preferences{RigorLevel: "standard", AddFrameworks: []planning.AddFramework{{Name: "Five Whys", BeforeStep: 1}}})
	if added.Sequence[0].Name != "Five Whys" {
		t.Fatalf("add before step 1: %v", names(added))
	}
	_, err := planning.Build(cat, planning.Request{TaskType: "competitive_analysis", Preferences: planning.Preferences{SkipFrameworks: []string{"SWOT Analysis"}, OnlyFrameworks: []string{"SWOT Analysis"}}})
	if fe := fieldErr(t, err); fe.Code != "invalid_field" || fe.Field != "preferences.only_frameworks" {
		t.Fatalf("skip+only: %+v", fe)
	}
	_, err = planning.Build(cat, planning.Request{TaskType: "competitive_analysis", Preferences: planning.Preferences{SkipFrameworks: []string{"Nope Analysis"}}})
	if fe := fieldErr(t, err); fe.Field != "preferences.skip_frameworks[0]" {
		t.Fatalf("unknown skip: %+v", fe)
	}
	_, err = planning.Build(cat, planning.Request{TaskType: "competitive_analysis", Preferences: planning.Preferences{AddFrameworks: []planning.AddFramework{{Name: "Five Whys", BeforeStep: 99}}}})
	if fe := fieldErr(t, err); fe.Field != "preferences.add_frameworks[0].before_step" {
		t.Fatalf("add past the end: %+v", fe)
	}
}

func TestApprovalGatesAndExecution(t *testing.T) {
	p := build(t, "competitive_analysis", planning.Preferences{RequireApproval: true, Execution: "direct"})
	review := len(p.Sequence) - 2
	if len(p.ApprovalGates) != 1 || p.ApprovalGates[0] != review {
		t.Fatalf("gates %v, want [%d]", p.ApprovalGates, review)
	}
	if p.Execution != "" || !p.ExecutionFallback {
		t.Fatalf("direct with approval: execution %q fallback %v", p.Execution, p.ExecutionFallback)
	}
	d := build(t, "competitive_analysis", planning.Preferences{Execution: "direct"})
	if d.Execution != "direct" || d.ExecutionFallback || index(d.AllowedModes, "direct") < 0 {
		t.Fatalf("direct: %q %v %v", d.Execution, d.ExecutionFallback, d.AllowedModes)
	}
	atomic := build(t, "tag", planning.Preferences{})
	if atomic.Execution != "direct" || atomic.ExecutionFallback {
		t.Fatalf("atomic auto direct: %q", atomic.Execution)
	}
	std := build(t, "tag", planning.Preferences{Execution: "standard"})
	if std.Execution != "" || std.ExecutionFallback {
		t.Fatalf("atomic with standard asked: %q %v", std.Execution, std.ExecutionFallback)
	}
	n := len(p.Sequence)
	_, err := planning.Build(cat, planning.Request{TaskType: "competitive_analysis", Preferences: planning.Preferences{ApprovalBeforeStep: []int{0, n}}})
	if fe := fieldErr(t, err); fe.Code != "invalid_step_index" || fe.Field != "preferences.approval_before_step[1]" {
		t.Fatalf("out of range gate: %+v", fe)
	}
	g := build(t, "competitive_analysis", planning.Preferences{ApprovalBeforeStep: []int{0, n - 1}})
	if len(g.ApprovalGates) != 2 {
		t.Fatalf("gates %v", g.ApprovalGates)
	}
}

func TestBudgetRules(t *testing.T) {
	full := build(t, "strategic_plan", planning.Preferences{RigorLevel: "thorough", ModelPreference: "quality_first"})
	generous := 1000.0
	if p := build(t, "strategic_plan", planning.Preferences{RigorLevel: "thorough", ModelPreference: "quality_first", MaxBudgetUSD: &generous}); len(p.Warnings) != 0 || p.Cost != full.Cost {
		t.Fatalf("generous budget changed the plan: %+v", p.Warnings)
	}
	// rule 1: just under the full price, the tier-2 downgrade is enough
	fits := float64(full.Cost.Credits-1) / 1000
	p := build(t, "strategic_plan", planning.Preferences{RigorLevel: "thorough", ModelPreference: "quality_first", MaxBudgetUSD: &fits})
	if len(p.Warnings) != 1 || p.Warnings[0].Code != "budget_below_estimate" || p.Cost.Credits >= full.Cost.Credits || len(p.Sequence) != len(full.Sequence) {
		t.Fatalf("rule 1: %d credits, %d steps, warnings %+v", p.Cost.Credits, len(p.Sequence), p.Warnings)
	}
	// rules 2 and 3: a budget nothing fits
	tiny := 0.01
	p = build(t, "strategic_plan", planning.Preferences{RigorLevel: "thorough", ModelPreference: "quality_first", MaxBudgetUSD: &tiny})
	if len(p.Warnings) != 2 || p.Warnings[1].Code != "budget_below_estimate" || !strings.Contains(p.Warnings[1].Message, "still exceeds") {
		t.Fatalf("rule 3: %+v", p.Warnings)
	}
	for _, s := range p.Sequence {
		if s.PriorityClass == "could" {
			t.Fatalf("rule 2 kept optional step %s", s.Name)
		}
	}
	neg := -1.0
	if _, err := planning.Build(cat, planning.Request{TaskType: "strategic_plan", Preferences: planning.Preferences{MaxBudgetUSD: &neg}}); fieldErr(t, err).Field != "preferences.max_budget_usd" {
		t.Fatal("negative budget accepted")
	}
}

func TestOutputContract(t *testing.T) {
	good := `{"task_type":"lead_scores","shape":"array","fields":[{"name":"lead","type":"string"},{"name":"score","type":"integer","minimum":0,"maximum":100},
		{"name":"tags","type":"array","items":{"type":"string","enum":["hot","cold"]}},{"name":"meta","type":"object","properties":[{"name":"source","type":"string","required":false}]}],
		"count":{"min":1,"max":50},"selection":{"scoreField":"score","minScore":50,"minCount":1,"maxCount":10}}`
	if err := planning.ValidateContract(json.RawMessage(good)); err != nil {
		t.Fatalf("good contract: %v", err)
	}
	for contract, path := range map[string]string{
		`{"shape":"array","fields":[{"name":"a","type":"string"}]}`:                                               "preferences.output_contract",
		`{"task_type":"x","shape":"list","fields":[{"name":"a","type":"string"}]}`:                                "preferences.output_contract.shape",
		`{"task_type":"x","shape":"object","fields":[{"name":"a","type":"string"},{"name":"b","type":"date"}]}`:   "preferences.output_contract.fields[1].type",
		`{"task_type":"x","shape":"object","fields":[{"name":"a","type":"string","colour":"red"}]}`:               "preferences.output_contract.fields[0]",
		`{"task_type":"x","shape":"object","fields":[]}`:                                                          "preferences.output_contract.fields",
		`{"task_type":"x","shape":"array","fields":[{"name":"a","type":"string"}],"count":{"min":5,"max":2}}`:     "preferences.output_contract.count",
		`{"task_type":"x","shape":"object","fields":[{"name":"a","type":"string"},{"name":"a","type":"number"}]}`: "preferences.output_contract.fields[1].name",
	} {
		err := planning.ValidateContract(json.RawMessage(contract))
		if fe := fieldErr(t, err); fe.Field != path {
			t.Errorf("contract %s: path %s (%s), want %s", contract, fe.Field, fe.Reason, path)
		}
	}
}

func TestTitleAndDescription(t *testing.T) {
	for in, want := range map[string]string{
		"please compare our pricing with three competitors.": "Compare our pricing with three competitors",
		"can you draft a launch plan":                        "Draft a launch plan",
		"a b":                                                "A b",
	} {
		if got := planning.Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
	long := planning.Title(strings.Repeat("word ", 40))
	if len([]rune(long)) > 61 || !strings.HasSuffix(long, "…") {
		t.Errorf("long title %q", long)
	}
	pl := planning.NewPlanner(cat)
	for _, d := range []string{"", "   ", "pricing"} {
		if _, err := pl.Plan(planning.Request{Description: d}); !errors.Is(err, planning.ErrInvalidDescription) {
			t.Errorf("%q: %v", d, err)
		}
	}
	if _, err := pl.Plan(planning.Request{Description: "do stuff", TaskType: "nope"}); fieldErr(t, err).Field != "task_type" {
		t.Error("unknown task type hint accepted")
	}
	var vague *planning.VagueError
	if _, err := pl.Plan(planning.Request{Description: "hello there"}); !errors.As(err, &vague) {
		t.Errorf("vague: %v", err)
	}
}

func TestMultiIntent(t *testing.T) {
	pl := planning.NewPlanner(cat)
	res, err := pl.Plan(planning.Request{Description: "audit our authentication code for security vulnerabilities and draft a launch plan for the new mobile app"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 2 || len(res.Groups) != 2 {
		t.Fatalf("%d plans, %d groups", len(res.Plans), len(res.Groups))
	}
	got := map[string]bool{}
	for i, g := range res.Groups {
		got[g.PrimaryTaskType] = true
		if len(g.Intents) != 1 || g.Intents[0].SourcePhrase == "" || g.Intents[0].Confidence <= 0 || g.Reason == "" || res.Plans[i].Classification.TaskType != g.PrimaryTaskType {
			t.Fatalf("group %d: %+v", i, g)
		}
	}
	if !got["security_audit"] || !got["launch_plan"] {
		t.Fatalf("intents %v", got)
	}
	single, err := pl.Plan(planning.Request{Description: "compare our pricing and packaging with three competitors"})
	if err != nil || len(single.Plans) != 1 || len(single.Groups) != 0 {
		t.Fatalf("single intent split: %+v %v", single.Groups, err)
	}
}

func TestCostRangeFromHistory(t *testing.T) {
	hist := func(tt string) (float64, float64, bool) { return 0.75, 1, tt == "competitive_analysis" }
	p, err := planning.Build(cat, planning.Request{TaskType: "competitive_analysis", Description: "compare us with three rivals", History: hist})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Cost.Credits
	if p.Cost.Range == nil || p.Cost.Range.EstimatedMax != c || p.Cost.Range.EstimatedMin != c*3/4 {
		t.Fatalf("range %+v for %d credits", p.Cost.Range, c)
	}
	for level, alt := range p.Alternatives {
		if alt.Cost.Range == nil || alt.Cost.Range.EstimatedMax != alt.Cost.Credits {
			t.Fatalf("alternative %s: %+v", level, alt.Cost)
		}
	}
	p, _ = planning.Build(cat, planning.Request{TaskType: "blog_post", Description: "write a blog post", History: hist})
	if p.Cost.Range != nil {
		t.Fatalf("a type without history has no range: %+v", p.Cost.Range)
	}
}
