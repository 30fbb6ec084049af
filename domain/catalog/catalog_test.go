package catalog

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

var workflowIDs = map[Category][]string{
	CategoryContent:     {"blog_post", "press_release", "sales_email_sequence", "internal_announcement"},
	CategoryEngineering: {"code_review", "architecture_design", "incident_postmortem", "security_audit"},
	CategoryGovernance:  {"compliance_assessment", "risk_assessment", "policy_drafting", "vendor_due_diligence"},
	CategoryHR:          {"job_description", "interview_plan", "performance_review", "onboarding_plan"},
	CategoryOperations:  {"project_plan", "process_improvement", "launch_plan", "okr_planning"},
	CategoryProduct:     {"product_requirements", "user_research_synthesis", "pricing_strategy", "growth_experiment_plan"},
	CategoryResearch:    {"competitive_analysis", "market_research", "literature_review", "data_analysis_report"},
	CategoryStrategy:    {"business_plan", "financial_model_review", "strategic_plan", "investment_memo"},
}

var atomicIDs = []string{
	"tag", "score", "rerank", "extract_entities", "parse_query", "compose", "cluster",
	"grade_set", "quick_research", "quick_classification", "quick_extraction", "quick_scoring",
}

func TestEmbeddedCatalogueLoads(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if first, again := Default(), Default(); first != again {
		t.Error("Default returned different catalogues")
	}
	if got, want := len(Default().TaskTypes()), len(c.TaskTypes()); got != want {
		t.Errorf("Default has %d task types, Load %d", got, want)
	}
}

func TestEmbeddedCatalogueCounts(t *testing.T) {
	c := Default()

	workflowsPerCat := map[Category]int{}
	for _, tt := range c.TaskTypes() {
		if tt.Shape == ShapeWorkflow {
			workflowsPerCat[tt.Category]++
		}
	}
	total := 0
	for _, cat := range Categories() {
		total += workflowsPerCat[cat]
		if workflowsPerCat[cat] < 4 {
			t.Errorf("category %q has %d workflow types, want >= 4", cat, workflowsPerCat[cat])
		}
		for _, id := range workflowIDs[cat] {
			tt, ok := c.TaskType(id)
			if !ok || tt.Shape != ShapeWorkflow || tt.Category != cat {
				t.Errorf("workflow type %q: got %+v, %v; want shape workflow in %q", id, tt, ok, cat)
			}
		}
	}
	if total < 32 {
		t.Errorf("%d workflow types, want >= 32", total)
	}
	for _, id := range atomicIDs {
		tt, ok := c.TaskType(id)
		if !ok || tt.Shape != ShapeAtomic {
			t.Errorf("atomic type %q missing or not atomic", id)
			continue
		}
		if tt.DefaultRigor != RigorQuick {
			t.Errorf("atomic type %q has default_rigor %q", id, tt.DefaultRigor)
		}
	}

	fws := c.Frameworks()
	if len(fws) < 64 {
		t.Errorf("%d frameworks, want >= 64", len(fws))
	}
	tiers := map[string]int{}
	withPrereq := 0
	for _, f := range fws {
		tiers[f.Tier]++
		if len(f.Prerequisites) > 0 {
			withPrereq++
		}
	}
	t.Logf("frameworks: %d, tiers %v, with prerequisites %d", len(fws), tiers, withPrereq)
	if withPrereq < 12 {
		t.Errorf("%d frameworks have prerequisites, want about 15", withPrereq)
	}
	for _, name := range []string{"Classification Verification", "Evidence Check"} {
		if f, ok := c.Framework(name); !ok || f.Kind != KindProcess {
			t.Errorf("framework %q missing or not of kind process", name)
		}
	}

	// Prerequisites the planner has to add because the task type does not
	// list them.
	outside := map[string]bool{}
	for _, tt := range c.TaskTypes() {
		for _, name := range tt.Frameworks {
			f, _ := c.Framework(name)
			for _, p := range f.Prerequisites {
				if !slices.Contains(tt.Frameworks, p) {
					outside[p] = true
				}
			}
		}
	}
	if len(outside) < 5 {
		t.Errorf("only %d prerequisites lie outside task types' lists, want >= 5: %v", len(outside), outside)
	}

	tps := c.Templates()
	if len(tps) < 44 {
		t.Errorf("%d templates, want >= 44", len(tps))
	}
	perCat := map[Category]int{}
	translated := 0
	for i, tp := range tps {
		perCat[tp.Category]++
		if i > 0 && tps[i-1].DisplayOrder >= tp.DisplayOrder {
			t.Errorf("templates not ordered by display_order at %q", tp.TemplateName)
		}
		if n := len(tp.PlaceholderFields); n < 2 || n > 5 {
			t.Errorf("template %q has %d placeholders, want 2-5", tp.TemplateName, n)
		}
		if tp.TemplateNameI18n["de"] != "" && tp.TemplateNameI18n["fr"] != "" && tp.TemplateNameI18n["es"] != "" {
			translated++
		}
	}
	for _, cat := range Categories() {
		if perCat[cat] < 4 {
			t.Errorf("category %q has %d templates, want >= 4", cat, perCat[cat])
		}
	}
	if translated < 10 {
		t.Errorf("%d templates have de, fr and es names, want >= 10", translated)
	}
}

func TestLookups(t *testing.T) {
	c := Default()
	if _, ok := c.TaskType("no_such_type"); ok {
		t.Error("TaskType found an unknown id")
	}
	f, ok := c.FrameworkFold("  swot ANALYSIS ")
	if !ok || f.Name != "SWOT Analysis" {
		t.Errorf("FrameworkFold = %q, %v", f.Name, ok)
	}
	if _, ok := c.Framework("swot analysis"); ok {
		t.Error("Framework matched a name in the wrong case")
	}
	if len(Categories()) != 8 {
		t.Errorf("%d categories, want 8", len(Categories()))
	}

	// Results are copies: changing them does not change the catalogue.
	tt, _ := c.TaskType("blog_post")
	tt.Frameworks[0] = "changed"
	c.TaskTypes()[0].Keywords[0] = "changed"
	c.Templates()[0].PlaceholderFields[0].Key = "CHANGED"
	if again, _ := c.TaskType("blog_post"); again.Frameworks[0] == "changed" {
		t.Error("TaskType shares its slices with the catalogue")
	}
	if c.TaskTypes()[0].Keywords[0] == "changed" {
		t.Error("TaskTypes shares its slices with the catalogue")
	}
	if c.Templates()[0].PlaceholderFields[0].Key == "CHANGED" {
		t.Error("Templates shares its slices with the catalogue")
	}
}

// fixture is a small valid catalogue that the validation tests break.
type fixture struct {
	taskTypes  []TaskType
	frameworks []Framework
	templates  []Template
}

func words(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s + " " + strings.Repeat("x", i+1) + " for a realistic task description"
	}
	return out
}

func newFixture() *fixture {
	fw := func(name, tier, kind string, prereq ...string) Framework {
		return Framework{
			Name: name, Domain: "strategy", Tier: tier, PriorityClass: PriorityMust, Credits: 300,
			Kind: kind, Prerequisites: prereq, Description: "d", Sections: []string{"S1", "S2", "S3"},
		}
	}
	tt := func(id, shape string, frameworks ...string) TaskType {
		return TaskType{
			ID: id, Label: id, Shape: shape, Category: CategoryStrategy, ValueClass: ValueStrategic,
			DefaultRigor: RigorStandard, Capability: "c", Description: "d",
			Keywords:   []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"},
			Examples:   words("write a plan", 6),
			Frameworks: frameworks,
		}
	}
	return &fixture{
		frameworks: []Framework{
			fw("Alpha", TierMandatory, KindContent),
			fw("Beta", TierMandatory, KindContent),
			fw("Gamma", TierRecommended, KindResearch, "Alpha"),
		},
		taskTypes: []TaskType{
			tt("plan", ShapeWorkflow, "Alpha", "Beta", "Gamma"),
			tt("tag", ShapeAtomic, "Alpha"),
		},
		templates: []Template{{
			ID: "0b6f8f3e-5d0c-4a8e-9a57-1f2f0b3c4d5e", TaskType: "plan", TemplateName: "Plan template",
			TemplateNameI18n: map[string]string{"de": "Planvorlage", "pt-BR": "Modelo"},
			TemplatePrompt:   "Plan {{SUBJECT}} for {{AUDIENCE}}, then revisit {{SUBJECT}}.",
			PlaceholderFields: []PlaceholderField{
				{Key: "SUBJECT", Label: "Subject", Required: true},
				{Key: "AUDIENCE", Label: "Audience"},
			},
			Description: "d", ExampleFilled: "Plan x for y, then revisit x.", DisplayOrder: 1, Version: 1,
			Category: CategoryStrategy, Categories: []Category{CategoryStrategy, CategoryResearch},
		}},
	}
}

func (f *fixture) parse(t *testing.T) (*Catalog, error) {
	t.Helper()
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return parse(enc(f.taskTypes), enc(f.frameworks), enc(f.templates))
}

func TestFixtureIsValid(t *testing.T) {
	c, err := newFixture().parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.TaskTypes()) != 2 || len(c.Frameworks()) != 3 || len(c.Templates()) != 1 {
		t.Errorf("unexpected counts")
	}
}

func TestValidationRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *fixture)
		want   string // substring of the error, naming the item
	}{
		{"duplicate task type id", func(f *fixture) { f.taskTypes[1].ID = "plan" }, `task type "plan": duplicate id`},
		{"empty task type id", func(f *fixture) { f.taskTypes[1].ID = "" }, `task type #2: empty id`},
		{"duplicate framework name", func(f *fixture) { f.frameworks[1].Name = "Alpha" }, `framework "Alpha": duplicate name`},
		{"framework names differ only in case", func(f *fixture) { f.frameworks[1].Name = "ALPHA" }, `framework "ALPHA": name differs`},
		{"reserved framework name", func(f *fixture) { f.frameworks[2].Name = "Synthesis" }, `framework "Synthesis": name is reserved`},
		{"invalid shape", func(f *fixture) { f.taskTypes[0].Shape = "pipeline" }, `task type "plan": invalid shape "pipeline"`},
		{"invalid task type category", func(f *fixture) { f.taskTypes[0].Category = "Finance" }, `task type "plan": invalid category "Finance"`},
		{"invalid value class", func(f *fixture) { f.taskTypes[0].ValueClass = "tactical" }, `task type "plan": invalid value_class`},
		{"invalid default rigor", func(f *fixture) { f.taskTypes[0].DefaultRigor = "extreme" }, `task type "plan": invalid default_rigor`},
		{"too few examples", func(f *fixture) { f.taskTypes[0].Examples = f.taskTypes[0].Examples[:5] }, `task type "plan": has 5 examples`},
		{"too few keywords", func(f *fixture) { f.taskTypes[0].Keywords = f.taskTypes[0].Keywords[:7] }, `task type "plan": has 7 keywords`},
		{"upper-case keyword", func(f *fixture) { f.taskTypes[0].Keywords[0] = "SWOT" }, `task type "plan": keyword "SWOT"`},
		{"unknown framework reference", func(f *fixture) { f.taskTypes[0].Frameworks[2] = "Delta" }, `task type "plan": unknown framework "Delta"`},
		{"workflow with too few mandatory frameworks", func(f *fixture) { f.frameworks[1].Tier = TierAll }, `task type "plan": lists 1 frameworks of tier "mandatory"`},
		{"atomic type with non-content framework", func(f *fixture) { f.taskTypes[1].Frameworks = []string{"Gamma"} }, `task type "tag": atomic type uses framework "Gamma"`},
		{"prerequisite listed after dependent", func(f *fixture) {
			f.taskTypes[0].Frameworks = []string{"Gamma", "Beta", "Alpha"}
		}, `task type "plan": lists "Gamma" before its prerequisite "Alpha"`},
		{"invalid tier", func(f *fixture) { f.frameworks[0].Tier = "optional" }, `framework "Alpha": invalid tier "optional"`},
		{"invalid priority class", func(f *fixture) { f.frameworks[0].PriorityClass = "may" }, `framework "Alpha": invalid priority_class "may"`},
		{"invalid kind", func(f *fixture) { f.frameworks[0].Kind = "analysis" }, `framework "Alpha": invalid kind "analysis"`},
		{"invalid domain", func(f *fixture) { f.frameworks[0].Domain = "finance" }, `framework "Alpha": invalid domain "finance"`},
		{"credits out of range", func(f *fixture) { f.frameworks[0].Credits = 5000 }, `framework "Alpha": credits 5000`},
		{"too few sections", func(f *fixture) { f.frameworks[0].Sections = []string{"One"} }, `framework "Alpha": has 1 sections`},
		{"unknown prerequisite", func(f *fixture) { f.frameworks[1].Prerequisites = []string{"Omega"} }, `framework "Beta": unknown prerequisite "Omega"`},
		{"self prerequisite", func(f *fixture) { f.frameworks[1].Prerequisites = []string{"Beta"} }, `framework "Beta": lists itself`},
		{"prerequisite cycle", func(f *fixture) {
			f.frameworks[0].Prerequisites = []string{"Beta"}
			f.frameworks[1].Prerequisites = []string{"Gamma"}
		}, `prerequisite cycle`},
		{"invalid template id", func(f *fixture) { f.templates[0].ID = "tpl-1" }, `template "Plan template": id "tpl-1" is not a lower-case UUID`},
		{"duplicate template id", func(f *fixture) {
			dup := f.templates[0]
			dup.TemplateName, dup.DisplayOrder = "Second", 2
			f.templates = append(f.templates, dup)
		}, `template "Second": duplicate id`},
		{"duplicate display order", func(f *fixture) {
			dup := f.templates[0]
			dup.TemplateName, dup.ID = "Second", "7c0e5a3b-2f3d-4e1a-8b6c-9d0e1f2a3b4c"
			f.templates = append(f.templates, dup)
		}, `template "Second": display_order 1 already used by "Plan template"`},
		{"unknown template task type", func(f *fixture) { f.templates[0].TaskType = "novel" }, `template "Plan template": unknown task_type "novel"`},
		{"template on atomic type", func(f *fixture) { f.templates[0].TaskType = "tag" }, `template "Plan template": task_type "tag" is not a workflow type`},
		{"placeholder missing from fields", func(f *fixture) {
			f.templates[0].PlaceholderFields = f.templates[0].PlaceholderFields[:1]
		}, `template "Plan template": placeholder_fields [SUBJECT] do not match`},
		{"placeholder field not in prompt", func(f *fixture) {
			f.templates[0].PlaceholderFields = append(f.templates[0].PlaceholderFields, PlaceholderField{Key: "EXTRA", Label: "Extra"})
		}, `template "Plan template": placeholder_fields [SUBJECT AUDIENCE EXTRA] do not match`},
		{"placeholder fields out of order", func(f *fixture) {
			p := f.templates[0].PlaceholderFields
			p[0], p[1] = p[1], p[0]
		}, `template "Plan template": placeholder_fields [AUDIENCE SUBJECT] do not match`},
		{"malformed token", func(f *fixture) { f.templates[0].TemplatePrompt += " {{audience}}" }, `template "Plan template": malformed placeholder token "{{audience}}"`},
		{"unbalanced braces", func(f *fixture) { f.templates[0].TemplatePrompt += " {{AUDIENCE" }, `template "Plan template": unbalanced placeholder braces`},
		{"example_filled with token", func(f *fixture) { f.templates[0].ExampleFilled = "Plan {{SUBJECT}}" }, `template "Plan template": example_filled still contains`},
		{"categories without category", func(f *fixture) { f.templates[0].Categories = []Category{CategoryResearch} }, `template "Plan template": categories ["Research & analysis"] do not start with category`},
		{"invalid template category", func(f *fixture) {
			f.templates[0].Category = "Misc"
			f.templates[0].Categories = []Category{"Misc"}
		}, `template "Plan template": invalid category "Misc"`},
		{"invalid i18n code", func(f *fixture) { f.templates[0].TemplateNameI18n["german!"] = "x" }, `template "Plan template": template_name_i18n: invalid BCP 47 language code "german!"`},
		{"invalid description i18n code", func(f *fixture) {
			f.templates[0].DescriptionI18n = map[string]string{"zz-123456789": "x"}
		}, `template "Plan template": description_i18n: invalid BCP 47 language code`},
		{"version below 1", func(f *fixture) { f.templates[0].Version = 0 }, `template "Plan template": version 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			tc.mutate(f)
			c, err := f.parse(t)
			if err == nil {
				t.Fatalf("parse accepted the broken catalogue (%d task types)", len(c.TaskTypes()))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not contain %q:\n%v", tc.want, err)
			}
		})
	}
}

func TestParseRejectsMalformedJSON(t *testing.T) {
	ok := func(v any) []byte { b, _ := json.Marshal(v); return b }
	f := newFixture()
	tt, fw, tp := ok(f.taskTypes), ok(f.frameworks), ok(f.templates)
	unknown := []byte(`[{"name":"Alpha","colour":"red"}]`)
	for name, in := range map[string][3][]byte{
		"syntax error":  {[]byte(`[{`), fw, tp},
		"unknown field": {tt, unknown, tp},
		"trailing data": {tt, fw, append(slices.Clone(tp), []byte(` []`)...)},
	} {
		if _, err := parse(in[0], in[1], in[2]); err == nil {
			t.Errorf("%s: parse accepted malformed input", name)
		}
	}
}
