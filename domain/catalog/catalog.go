// Package catalog holds the planner's catalogues: the task types a
// description can be classified as, the frameworks a plan is built from and
// the prompt templates offered to callers.
//
// The catalogues are JSON files embedded in the binary (data/*.json). They
// are parsed and validated as a whole: every framework a task type lists and
// every prerequisite must exist, prerequisites must not form a cycle, and
// every template must use exactly the placeholders it declares. A broken
// catalogue makes [Load] fail (and the package's tests with it), so a bad
// edit never reaches a running service.
package catalog

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/text/language"
)

//go:embed data/*.json
var dataFS embed.FS

// Category is the group a task type or template belongs to.
type Category string

// The categories, in display order.
const (
	CategoryContent     Category = "Content & communication"
	CategoryEngineering Category = "Engineering"
	CategoryGovernance  Category = "Governance & compliance"
	CategoryHR          Category = "HR & recruiting"
	CategoryOperations  Category = "Operations & PM"
	CategoryProduct     Category = "Product & growth"
	CategoryResearch    Category = "Research & analysis"
	CategoryStrategy    Category = "Strategy & finance"
)

var categories = []Category{
	CategoryContent, CategoryEngineering, CategoryGovernance, CategoryHR,
	CategoryOperations, CategoryProduct, CategoryResearch, CategoryStrategy,
}

// Categories returns every category in display order.
func Categories() []Category { return slices.Clone(categories) }

// Valid reports whether c is one of the categories.
func (c Category) Valid() bool { return slices.Contains(categories, c) }

// Task type shapes.
const (
	ShapeWorkflow = "workflow" // multi-step deliverable
	ShapeAtomic   = "atomic"   // single-call primitive
)

// Value classes of a task type.
const (
	ValueOperational = "operational"
	ValueGovernance  = "governance"
	ValueStrategic   = "strategic"
)

// Rigor levels.
const (
	RigorQuick    = "quick"
	RigorStandard = "standard"
	RigorThorough = "thorough"
)

// Framework tiers, as selected by a plan's tool_scope: a scope includes its
// own tier and every narrower one (mandatory ⊂ recommended ⊂ all).
const (
	TierMandatory   = "mandatory"
	TierRecommended = "recommended"
	TierAll         = "all"
)

// Priority classes of a framework step. Steps of class PriorityCould are
// optional: they are the first dropped to meet max_budget_usd.
const (
	PriorityMust   = "must"
	PriorityShould = "should"
	PriorityCould  = "could"
)

// Framework kinds.
const (
	KindContent  = "content"  // composable with other content steps in one LLM call
	KindResearch = "research" // separate call that needs web or source material
	KindProcess  = "process"  // verification or review protocol; separate call
)

// Framework domains.
var domains = []string{
	"strategy", "engineering", "governance", "research", "product",
	"hr", "operations", "content", "process",
}

// Names the planner adds to every plan itself; a catalogue framework must
// not use them.
var reservedFrameworkNames = []string{"Synthesis", "Multi-Perspective Review"}

// TaskType is a kind of task a description can be classified as.
type TaskType struct {
	ID           string   `json:"id"`
	Label        string   `json:"label"`
	Shape        string   `json:"shape"` // ShapeWorkflow or ShapeAtomic
	Category     Category `json:"category"`
	ValueClass   string   `json:"value_class"`   // ValueOperational, ValueGovernance or ValueStrategic
	DefaultRigor string   `json:"default_rigor"` // rigor used when the request names none
	// Capability is one sentence saying what the type produces.
	Capability string `json:"capability"`
	// Description is one to three sentences used by the classifier.
	Description string `json:"description"`
	// Keywords are distinctive lower-case words and phrases.
	Keywords []string `json:"keywords"`
	// Examples are realistic task descriptions of this type.
	Examples []string `json:"examples"`
	// Frameworks are the names of the plan's steps before review and
	// synthesis, in order.
	Frameworks []string `json:"frameworks"`
}

// Framework is a method a plan step applies, such as a SWOT analysis.
type Framework struct {
	Name          string `json:"name"`           // display name, also the step name
	Domain        string `json:"domain"`         // strategy, engineering, governance, research, product, hr, operations, content or process
	Tier          string `json:"tier"`           // TierMandatory, TierRecommended or TierAll
	PriorityClass string `json:"priority_class"` // PriorityMust, PriorityShould or PriorityCould
	Credits       int    `json:"credits"`        // estimated credits of the step
	Kind          string `json:"kind"`           // KindContent, KindResearch or KindProcess
	NeedsResearch bool   `json:"needs_research"`
	// NeedsExternalContext reports that the step needs material the
	// description cannot carry, such as the repository of a code review.
	NeedsExternalContext bool `json:"needs_external_context"`
	// Prerequisites are names of frameworks that must run earlier.
	Prerequisites []string `json:"prerequisites"`
	Description   string   `json:"description"`
	// Sections are the headings the step writes.
	Sections []string `json:"sections"`
}

// PlaceholderField describes one {{KEY}} token of a template prompt.
type PlaceholderField struct {
	Key         string `json:"key"`
	Label       string `json:"label"`
	Required    bool   `json:"required"`
	Placeholder string `json:"placeholder"`
}

// Template is a prompt template offered by GET /api/rigor/templates.
type Template struct {
	ID               string            `json:"id"` // UUID
	TaskType         string            `json:"task_type"`
	TemplateName     string            `json:"template_name"`
	TemplateNameI18n map[string]string `json:"template_name_i18n"` // nil, or keyed by BCP 47 code
	// TemplatePrompt contains {{KEY}} tokens, KEY in upper snake case.
	TemplatePrompt string `json:"template_prompt"`
	// PlaceholderFields has one entry per distinct token, in order of first
	// appearance in TemplatePrompt.
	PlaceholderFields []PlaceholderField `json:"placeholder_fields"`
	Description       string             `json:"description"`
	DescriptionI18n   map[string]string  `json:"description_i18n"` // nil, or keyed by BCP 47 code
	ExampleFilled     string             `json:"example_filled"`   // TemplatePrompt filled in
	DisplayOrder      int                `json:"display_order"`
	Version           int                `json:"version"`
	Category          Category           `json:"category"`
	Categories        []Category         `json:"categories"` // Category first
	Demo              bool               `json:"demo"`
}

// Catalog is a validated set of task types, frameworks and templates. It is
// read-only and safe for concurrent use; the slices its methods return are
// copies.
type Catalog struct {
	taskTypes   []TaskType
	taskTypeIdx map[string]int
	frameworks  []Framework
	fwIdx       map[string]int
	fwFoldIdx   map[string]int
	templates   []Template
}

// Load parses and validates the embedded catalogues. The error lists every
// problem found, each naming the offending item.
func Load() (*Catalog, error) {
	var files [3][]byte
	for i, name := range []string{"task_types.json", "frameworks.json", "templates.json"} {
		b, err := dataFS.ReadFile("data/" + name)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		files[i] = b
	}
	return parse(files[0], files[1], files[2])
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
)

// Default returns the embedded catalogue, loading it on first use. It panics
// if the embedded catalogue is invalid, which the package's tests rule out.
func Default() *Catalog {
	defaultOnce.Do(func() {
		c, err := Load()
		if err != nil {
			panic(err)
		}
		defaultCat = c
	})
	return defaultCat
}

// TaskTypes returns every task type in catalogue order.
func (c *Catalog) TaskTypes() []TaskType {
	out := make([]TaskType, len(c.taskTypes))
	for i, t := range c.taskTypes {
		out[i] = t.clone()
	}
	return out
}

// TaskType returns the task type with the given id.
func (c *Catalog) TaskType(id string) (TaskType, bool) {
	i, ok := c.taskTypeIdx[id]
	if !ok {
		return TaskType{}, false
	}
	return c.taskTypes[i].clone(), true
}

// Frameworks returns every framework in catalogue order.
func (c *Catalog) Frameworks() []Framework {
	out := make([]Framework, len(c.frameworks))
	for i, f := range c.frameworks {
		out[i] = f.clone()
	}
	return out
}

// Framework returns the framework with exactly the given display name.
func (c *Catalog) Framework(name string) (Framework, bool) {
	i, ok := c.fwIdx[name]
	if !ok {
		return Framework{}, false
	}
	return c.frameworks[i].clone(), true
}

// FrameworkFold is like [Catalog.Framework] but ignores case and
// surrounding white space, as for names supplied by callers.
func (c *Catalog) FrameworkFold(name string) (Framework, bool) {
	i, ok := c.fwFoldIdx[foldName(name)]
	if !ok {
		return Framework{}, false
	}
	return c.frameworks[i].clone(), true
}

// Templates returns every template ordered by display order.
func (c *Catalog) Templates() []Template {
	out := make([]Template, len(c.templates))
	for i, t := range c.templates {
		out[i] = t.clone()
	}
	return out
}

func foldName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (t TaskType) clone() TaskType {
	t.Keywords = slices.Clone(t.Keywords)
	t.Examples = slices.Clone(t.Examples)
	t.Frameworks = slices.Clone(t.Frameworks)
	return t
}

func (f Framework) clone() Framework {
	f.Prerequisites = slices.Clone(f.Prerequisites)
	f.Sections = slices.Clone(f.Sections)
	return f
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (t Template) clone() Template {
	t.TemplateNameI18n = cloneMap(t.TemplateNameI18n)
	t.DescriptionI18n = cloneMap(t.DescriptionI18n)
	t.PlaceholderFields = slices.Clone(t.PlaceholderFields)
	t.Categories = slices.Clone(t.Categories)
	return t
}

// decode reads a JSON array strictly: unknown fields and trailing data are
// errors.
func decode(what string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("catalog: %s: %w", what, err)
	}
	if dec.More() {
		return fmt.Errorf("catalog: %s: trailing data after the array", what)
	}
	return nil
}

// parse builds a catalogue from the three JSON documents and validates it.
func parse(taskTypes, frameworks, templates []byte) (*Catalog, error) {
	c := &Catalog{}
	if err := decode("task types", taskTypes, &c.taskTypes); err != nil {
		return nil, err
	}
	if err := decode("frameworks", frameworks, &c.frameworks); err != nil {
		return nil, err
	}
	if err := decode("templates", templates, &c.templates); err != nil {
		return nil, err
	}
	v := &validator{}
	c.indexFrameworks(v)
	c.indexTaskTypes(v)
	c.checkFrameworks(v)
	c.checkTaskTypes(v)
	c.checkTemplates(v)
	if len(v.errs) > 0 {
		return nil, fmt.Errorf("catalog: invalid catalogue:\n%w", errors.Join(v.errs...))
	}
	sort.SliceStable(c.templates, func(i, j int) bool {
		return c.templates[i].DisplayOrder < c.templates[j].DisplayOrder
	})
	return c, nil
}

type validator struct{ errs []error }

func (v *validator) add(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf(format, args...))
}

func (c *Catalog) indexFrameworks(v *validator) {
	c.fwIdx = make(map[string]int, len(c.frameworks))
	c.fwFoldIdx = make(map[string]int, len(c.frameworks))
	for i, f := range c.frameworks {
		if f.Name == "" {
			v.add("framework #%d: empty name", i+1)
			continue
		}
		if f.Name != strings.TrimSpace(f.Name) {
			v.add("framework %q: name has surrounding space", f.Name)
		}
		if _, dup := c.fwIdx[f.Name]; dup {
			v.add("framework %q: duplicate name", f.Name)
			continue
		}
		if j, dup := c.fwFoldIdx[foldName(f.Name)]; dup {
			v.add("framework %q: name differs from %q only in case", f.Name, c.frameworks[j].Name)
			continue
		}
		c.fwIdx[f.Name] = i
		c.fwFoldIdx[foldName(f.Name)] = i
	}
}

func (c *Catalog) indexTaskTypes(v *validator) {
	c.taskTypeIdx = make(map[string]int, len(c.taskTypes))
	for i, t := range c.taskTypes {
		if t.ID == "" {
			v.add("task type #%d: empty id", i+1)
			continue
		}
		if _, dup := c.taskTypeIdx[t.ID]; dup {
			v.add("task type %q: duplicate id", t.ID)
			continue
		}
		c.taskTypeIdx[t.ID] = i
	}
}

func oneOf(s string, valid ...string) bool { return slices.Contains(valid, s) }

func (c *Catalog) checkFrameworks(v *validator) {
	for _, f := range c.frameworks {
		if f.Name == "" {
			continue // reported by indexFrameworks
		}
		e := func(format string, args ...any) {
			v.add("framework %q: "+format, append([]any{f.Name}, args...)...)
		}
		for _, r := range reservedFrameworkNames {
			if strings.EqualFold(f.Name, r) {
				e("name is reserved for the planner")
			}
		}
		if !oneOf(f.Domain, domains...) {
			e("invalid domain %q", f.Domain)
		}
		if !oneOf(f.Tier, TierMandatory, TierRecommended, TierAll) {
			e("invalid tier %q", f.Tier)
		}
		if !oneOf(f.PriorityClass, PriorityMust, PriorityShould, PriorityCould) {
			e("invalid priority_class %q", f.PriorityClass)
		}
		if !oneOf(f.Kind, KindContent, KindResearch, KindProcess) {
			e("invalid kind %q", f.Kind)
		}
		if f.Credits < 80 || f.Credits > 900 {
			e("credits %d outside 80-900", f.Credits)
		}
		if strings.TrimSpace(f.Description) == "" {
			e("empty description")
		}
		if n := len(f.Sections); n < 3 || n > 6 {
			e("has %d sections, want 3-6", n)
		}
		seen := map[string]bool{}
		for _, p := range f.Prerequisites {
			switch _, ok := c.fwIdx[p]; {
			case p == f.Name:
				e("lists itself as a prerequisite")
			case !ok:
				e("unknown prerequisite %q", p)
			case seen[p]:
				e("duplicate prerequisite %q", p)
			}
			seen[p] = true
		}
	}
	c.checkCycles(v)
}

// checkCycles reports every prerequisite cycle once, by depth-first search.
func (c *Catalog) checkCycles(v *validator) {
	const (
		unvisited = iota
		active
		done
	)
	state := make([]int, len(c.frameworks))
	var stack []string
	var visit func(i int)
	visit = func(i int) {
		state[i] = active
		stack = append(stack, c.frameworks[i].Name)
		for _, p := range c.frameworks[i].Prerequisites {
			j, ok := c.fwIdx[p]
			if !ok || p == c.frameworks[i].Name {
				continue // reported elsewhere
			}
			switch state[j] {
			case active:
				start := slices.Index(stack, p)
				cycle := append(slices.Clone(stack[start:]), p)
				v.add("framework %q: prerequisite cycle %s", p, strings.Join(cycle, " -> "))
			case unvisited:
				visit(j)
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
	}
	for i, f := range c.frameworks {
		if state[i] == unvisited && c.fwIdx[f.Name] == i {
			visit(i)
		}
	}
}

func (c *Catalog) checkTaskTypes(v *validator) {
	for _, t := range c.taskTypes {
		if t.ID == "" {
			continue // reported by indexTaskTypes
		}
		e := func(format string, args ...any) {
			v.add("task type %q: "+format, append([]any{t.ID}, args...)...)
		}
		if strings.TrimSpace(t.Label) == "" {
			e("empty label")
		}
		if !oneOf(t.Shape, ShapeWorkflow, ShapeAtomic) {
			e("invalid shape %q", t.Shape)
		}
		if !t.Category.Valid() {
			e("invalid category %q", t.Category)
		}
		if !oneOf(t.ValueClass, ValueOperational, ValueGovernance, ValueStrategic) {
			e("invalid value_class %q", t.ValueClass)
		}
		if !oneOf(t.DefaultRigor, RigorQuick, RigorStandard, RigorThorough) {
			e("invalid default_rigor %q", t.DefaultRigor)
		}
		if strings.TrimSpace(t.Capability) == "" {
			e("empty capability")
		}
		if strings.TrimSpace(t.Description) == "" {
			e("empty description")
		}
		if n := len(t.Keywords); n < 8 || n > 20 {
			e("has %d keywords, want 8-20", n)
		}
		seen := map[string]bool{}
		for _, k := range t.Keywords {
			if k == "" || k != strings.ToLower(strings.TrimSpace(k)) {
				e("keyword %q is not trimmed lower case", k)
			}
			if seen[k] {
				e("duplicate keyword %q", k)
			}
			seen[k] = true
		}
		if n := len(t.Examples); n < 6 {
			e("has %d examples, want at least 6", n)
		}
		for _, x := range t.Examples {
			if n := len(strings.Fields(x)); n < 6 || n > 25 {
				e("example %q has %d words, want 6-25", x, n)
			}
		}
		c.checkTaskFrameworks(t, e)
	}
}

func (c *Catalog) checkTaskFrameworks(t TaskType, e func(string, ...any)) {
	switch t.Shape {
	case ShapeWorkflow:
		if n := len(t.Frameworks); n < 3 || n > 7 {
			e("workflow lists %d frameworks, want 3-7", n)
		}
	case ShapeAtomic:
		if n := len(t.Frameworks); n < 1 || n > 2 {
			e("atomic type lists %d frameworks, want 1-2", n)
		}
	}
	pos := map[string]int{}
	mandatory := 0
	for i, name := range t.Frameworks {
		fi, ok := c.fwIdx[name]
		if !ok {
			e("unknown framework %q", name)
			continue
		}
		if _, dup := pos[name]; dup {
			e("lists framework %q twice", name)
			continue
		}
		pos[name] = i
		f := c.frameworks[fi]
		if f.Tier == TierMandatory {
			mandatory++
		}
		if t.Shape == ShapeAtomic && f.Kind != KindContent {
			e("atomic type uses framework %q of kind %q, want %q", name, f.Kind, KindContent)
		}
	}
	if t.Shape == ShapeWorkflow && mandatory < 2 {
		e("lists %d frameworks of tier %q, want at least 2", mandatory, TierMandatory)
	}
	if t.Shape == ShapeAtomic && mandatory < 1 && len(pos) > 0 {
		e("lists no framework of tier %q", TierMandatory)
	}
	for name, i := range pos {
		for _, p := range c.frameworks[c.fwIdx[name]].Prerequisites {
			if j, ok := pos[p]; ok && j > i {
				e("lists %q before its prerequisite %q", name, p)
			}
		}
	}
}

var (
	tokenRE  = regexp.MustCompile(`\{\{([^{}]*)\}\}`)
	keyRE    = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// promptKeys returns the distinct {{KEY}} tokens of a prompt in order of
// first appearance, and reports malformed tokens through e.
func promptKeys(prompt string, e func(string, ...any)) []string {
	var keys []string
	for _, m := range tokenRE.FindAllStringSubmatch(prompt, -1) {
		if !keyRE.MatchString(m[1]) {
			e("malformed placeholder token %q (want {{UPPER_SNAKE_CASE}})", m[0])
			continue
		}
		if !slices.Contains(keys, m[1]) {
			keys = append(keys, m[1])
		}
	}
	if rest := tokenRE.ReplaceAllString(prompt, ""); strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
		e("unbalanced placeholder braces in template_prompt")
	}
	return keys
}

func checkI18n(field string, m map[string]string, e func(string, ...any)) {
	for code, s := range m {
		if _, err := language.Parse(code); err != nil || strings.TrimSpace(code) != code || code == "" {
			e("%s: invalid BCP 47 language code %q", field, code)
		}
		if strings.TrimSpace(s) == "" {
			e("%s: empty text for %q", field, code)
		}
	}
}

func (c *Catalog) checkTemplates(v *validator) {
	ids := map[string]bool{}
	orders := map[int]string{}
	for i, t := range c.templates {
		name := t.TemplateName
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		e := func(format string, args ...any) {
			v.add("template %q: "+format, append([]any{name}, args...)...)
		}
		if _, err := uuid.Parse(t.ID); err != nil || !uuidForm.MatchString(t.ID) {
			e("id %q is not a lower-case UUID", t.ID)
		} else if ids[t.ID] {
			e("duplicate id %q", t.ID)
		}
		ids[t.ID] = true
		if strings.TrimSpace(t.TemplateName) == "" {
			e("empty template_name")
		}
		if ti, ok := c.taskTypeIdx[t.TaskType]; !ok {
			e("unknown task_type %q", t.TaskType)
		} else if c.taskTypes[ti].Shape != ShapeWorkflow {
			e("task_type %q is not a workflow type", t.TaskType)
		}
		if strings.TrimSpace(t.Description) == "" {
			e("empty description")
		}
		checkI18n("template_name_i18n", t.TemplateNameI18n, e)
		checkI18n("description_i18n", t.DescriptionI18n, e)

		keys := promptKeys(t.TemplatePrompt, e)
		var fields []string
		for _, f := range t.PlaceholderFields {
			fields = append(fields, f.Key)
			if strings.TrimSpace(f.Label) == "" {
				e("placeholder %q: empty label", f.Key)
			}
		}
		if !slices.Equal(keys, fields) {
			e("placeholder_fields %v do not match the prompt's tokens %v (same keys, order of first appearance)", fields, keys)
		}
		if strings.TrimSpace(t.ExampleFilled) == "" {
			e("empty example_filled")
		} else if strings.Contains(t.ExampleFilled, "{{") {
			e("example_filled still contains \"{{\"")
		}

		if t.Version < 1 {
			e("version %d, want at least 1", t.Version)
		}
		if other, dup := orders[t.DisplayOrder]; dup {
			e("display_order %d already used by %q", t.DisplayOrder, other)
		}
		orders[t.DisplayOrder] = name
		if !t.Category.Valid() {
			e("invalid category %q", t.Category)
		}
		if len(t.Categories) == 0 || t.Categories[0] != t.Category {
			e("categories %q do not start with category %q", t.Categories, t.Category)
		}
		seen := map[Category]bool{}
		for _, cat := range t.Categories {
			if !cat.Valid() {
				e("invalid category %q in categories", cat)
			}
			if seen[cat] {
				e("duplicate category %q in categories", cat)
			}
			seen[cat] = true
		}
	}
}
