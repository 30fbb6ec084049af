package planning

import (
	"errors"
	"fmt"
	"strings"

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
}

// Result is a planned request: one plan, or several for a multi-intent
// description (Groups then says which intent each plan serves).
type Result struct {
	Plans          []Plan
	Groups         []IntentGroup
	Title          string
	Classification Classification // of the whole description (zero with a task_type hint)
}

// Planner classifies and builds plans over one catalogue.
type Planner struct {
	cat    *catalog.Catalog
	cl     *Classifier
	models Models
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

// Plan classifies req (unless it names a task type) and builds its plans.
func (p *Planner) Plan(req Request) (Result, error) {
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
		return res, nil
	}
	if intents := p.cl.Intents(desc); len(intents) > 1 && !req.SingleIntent {
		for _, in := range intents {
			sub := req
			sub.TaskType = in.TaskType
			sub.Description = in.SourcePhrase
			plan, err := Build(p.cat, sub)
			if err != nil {
				return Result{}, err
			}
			res.Plans = append(res.Plans, plan)
			res.Groups = append(res.Groups, IntentGroup{Intents: []Intent{in}, PrimaryTaskType: in.TaskType,
				Reason: fmt.Sprintf("Independent intent (%s): %q", in.TaskType, in.SourcePhrase)})
		}
		return res, nil
	}
	c := p.cl.Classify(desc)
	res.Classification = c
	if c.Confidence < MinConfidence {
		return Result{}, &VagueError{Classification: c}
	}
	req.TaskType = c.TaskType
	plan, err := Build(p.cat, req)
	if err != nil {
		return Result{}, err
	}
	plan.Info = append(plan.Info, fmt.Sprintf("Classified with confidence %.2f (runner-up: %s) on: %s.", c.Confidence, c.Runner, strings.Join(c.Evidence, ", ")))
	res.Plans = []Plan{plan}
	return res, nil
}
