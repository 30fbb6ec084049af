package planning

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"svc/domain/catalog"
)

// Errors of a description that cannot be planned.
var (
	// ErrInvalidDescription is an empty or one-word description.
	ErrInvalidDescription = errors.New("task description needs at least 2 words")
)

// VagueError is a description the classifier cannot place confidently.
type VagueError struct {
	Classification Classification
}

func (e *VagueError) Error() string {
	return fmt.Sprintf("task description too vague: best guess %s at confidence %.2f", e.Classification.TaskType, e.Classification.Confidence)
}

// IntentGroup is one workflow of a multi-intent plan.
type IntentGroup struct {
	WorkflowID      string   `json:"workflow_id"`
	Intents         []Intent `json:"intents"`
	PrimaryTaskType string   `json:"primary_task_type"`
	Reason          string   `json:"reason"`
	// Description is what the group's workflow is asked: its intent's
	// phrase and the description's context.
	Description string `json:"-"`
}

// Result is a planned request: one plan, or several for a multi-intent
// description (Groups then says which intent each plan serves).
type Result struct {
	Plans          []Plan
	Groups         []IntentGroup
	Title          string
	Classification Classification // of the whole description (zero with a task_type hint)
	Tier           string         // the classification tier that decided (Tier* constants)
}

// Planner classifies and builds plans over one catalogue.
type Planner struct {
	cat    *catalog.Catalog
	cl     *Classifier
	models Models

	fallback        Fallback
	fallbackTimeout time.Duration
}

// FallbackBelow is the confidence under which the LLM tier is asked.
const FallbackBelow = 0.6

// Fallback is the LLM tier: it names the catalogue type of a description
// (a strict JSON answer checked against the catalogue by the caller).
type Fallback interface {
	ClassifyTask(ctx context.Context, description string, types []catalog.TaskType) (taskType string, confidence float64, err error)
}

// WithFallback adds the LLM tier, asked below FallbackBelow and given up
// after timeout (the lexical answer then stands).
func WithFallback(f Fallback, timeout time.Duration) Option {
	return func(p *Planner) { p.fallback, p.fallbackTimeout = f, timeout }
}

// Option configures a Planner.
type Option func(*Planner)

// WithModels names the models the service routes to (default: none
// known, so no llm policy can be set).
func WithModels(m Models) Option { return func(p *Planner) { p.models = m } }

// NewPlanner indexes cat.
func NewPlanner(cat *catalog.Catalog, opts ...Option) *Planner {
	p := &Planner{cat: cat, cl: NewClassifier(cat)}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Models are the models the planner routes steps to.
func (p *Planner) Models() Models { return p.models }

// Catalog is the planner's catalogue.
func (p *Planner) Catalog() *catalog.Catalog { return p.cat }

// Classifier is the planner's classifier.
func (p *Planner) Classifier() *Classifier { return p.cl }

// Plan classifies req (unless it names a task type) and builds its plans,
// without the LLM tier's deadline (see PlanContext).
func (p *Planner) Plan(req Request) (Result, error) { return p.PlanContext(context.Background(), req) }

// PlanContext classifies req (unless it names a task type) and builds its
// plans. The description is read by Analyze (lexical, then embedding);
// below the confidence threshold the LLM tier, when one is configured,
// may decide instead, within its own deadline.
func (p *Planner) PlanContext(ctx context.Context, req Request) (Result, error) {
	desc := strings.TrimSpace(req.Description)
	if wordCount(desc) < 2 {
		return Result{}, ErrInvalidDescription
	}
	res := Result{Title: Title(desc)}
	if req.TaskType != "" {
		if _, ok := p.cat.TaskType(req.TaskType); !ok {
			return Result{}, fieldErr("task_type", "unknown task type %q (see GET /api/rigor/task-types)", req.TaskType)
		}
		plan, err := Build(p.cat, req)
		if err != nil {
			return Result{}, err
		}
		plan.Info = append(plan.Info, "Classification skipped: task_type given.")
		res.Plans = []Plan{plan}
		res.Tier = TierGiven
		return res, nil
	}
	a := p.analyze(ctx, desc)
	res.Tier = a.Tier
	if len(a.Intents) > 1 && !req.SingleIntent {
		for _, in := range a.Intents {
			sub := req
			sub.TaskType = in.TaskType
			sub.Description = in.SourcePhrase
			if a.Context != "" {
				sub.Description += "\n\n" + a.Context
			}
			plan, err := Build(p.cat, sub)
			if err != nil {
				return Result{}, err
			}
			res.Plans = append(res.Plans, plan)
			res.Groups = append(res.Groups, IntentGroup{Intents: []Intent{in}, PrimaryTaskType: in.TaskType,
				Reason: a.Reason, Description: sub.Description})
		}
		return res, nil
	}
	c := a.Classification
	res.Classification = c
	if a.Vague {
		return Result{}, &VagueError{Classification: c}
	}
	req.TaskType = c.TaskType
	plan, err := Build(p.cat, req)
	if err != nil {
		return Result{}, err
	}
	how := fmt.Sprintf("Classified as %s with confidence %.2f (runner-up: %s", c.TaskType, c.Confidence, c.Runner)
	if len(c.Evidence) > 0 {
		how += "; on: " + strings.Join(c.Evidence, ", ")
	}
	how += "; tier: " + a.Tier + ")."
	if a.Language != "en" {
		how += " Read as " + languageNames[a.Language] + "."
	}
	plan.Info = append(plan.Info, how)
	res.Plans = []Plan{plan}
	return res, nil
}

var languageNames = map[string]string{"de": "German", "fr": "French", "es": "Spanish"}

// analyze runs the classifier's tiers, then the LLM tier below the
// confidence threshold when the planner has one.
func (p *Planner) analyze(ctx context.Context, desc string) Analysis {
	a := p.cl.Analyze(desc)
	if p.fallback == nil || len(a.Intents) > 1 || a.Vague || a.Classification.Confidence >= FallbackBelow {
		return a
	}
	ctx, cancel := context.WithTimeout(ctx, p.fallbackTimeout)
	defer cancel()
	tt, conf, err := p.fallback.ClassifyTask(ctx, desc, p.cat.TaskTypes())
	if err != nil {
		return a // the tier falls back rather than fails
	}
	if _, ok := p.cat.TaskType(tt); !ok {
		return a
	}
	c := a.Classification
	if c.TaskType != tt {
		c = Classification{TaskType: tt, Runner: c.TaskType}
	}
	c.Confidence = round3(max(conf, c.Confidence))
	a.Classification, a.Tier = c, TierLLM
	return a
}
