package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/llm"
	"svc/domain/contract"
	"svc/domain/credit"
	"svc/domain/workflow"
	"svc/eventstore"
)

// chunks is how many parts a step run in chunked mode is split into.
const chunks = 2

// result is what a step's call (or calls, when chunked) produced.
type result struct {
	summary     string
	sections    []workflow.Section
	deliverable *workflow.Deliverable
	calls       []workflow.Call
	validation  *contract.Result // the output_contract's verdict (direct.go)
}

// step runs one planned step and records its outcome.
func (r *run) step(ctx context.Context, next workflow.Next) error {
	step := next.Step
	if next.Strategy == workflow.StrategySalvage {
		return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepIncomplete, Data: workflow.StepIncomplete{
			Step: step.Step, Name: step.Name, Reason: workflow.ReasonBudgetExhausted, Salvaged: true, Deliverable: r.wf.Salvage()}})
	}
	if batch := r.wf.Composable(step); len(batch) > 1 {
		return r.compose(ctx, next, batch) // direct execution: one call (direct.go)
	}
	if step.NeedsContext && !r.probed {
		r.probed = true // once per run: later steps read the same servers
		if issues := r.probe(ctx); len(issues) > 0 {
			return r.halt(ctx, step.Step, "connection_failure", issues)
		}
	}
	if err := r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepStarted, Data: workflow.StepStarted{
		Step: step.Step, Name: step.Name, Attempt: next.Attempt, Strategy: next.Strategy}}); err != nil {
		return err
	}
	var (
		res result
		err error
	)
	if _, contracted := r.contractFor(step); next.Strategy == workflow.StrategyChunked && !contracted {
		res, err = r.chunked(ctx, step, next.Attempt)
	} else {
		res, err = r.call(ctx, step, next.Strategy, 0, 0)
	}
	if err == nil {
		return r.complete(ctx, step, next.Strategy, res)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return r.failed(ctx, step, next, err)
}

// failed decides what a step failure does to the run.
func (r *run) failed(ctx context.Context, step workflow.PlannedStep, next workflow.Next, err error) error {
	p := r.wf.Planned()
	switch {
	case step.Kind == workflow.KindSynthesis:
		// the terminal step's retry ladder: compressed, chunked, salvage
		attempt := next.Attempt + 1
		strategy := []string{workflow.StrategyCompressed, workflow.StrategyChunked, workflow.StrategySalvage}[min(next.Attempt, 3)-1]
		return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventTerminalRetrying, Data: workflow.TerminalRetrying{
			StepIndex: step.Step - 1, StepName: step.Name, Attempt: attempt, MaxAttempts: workflow.TerminalMaxAttempts, Strategy: strategy,
			Message: fmt.Sprintf("%s could not finish (%s); attempt %d of %d uses the %s strategy.", step.Name, failure(err), attempt, workflow.TerminalMaxAttempts, strategy)}})
	case errors.Is(err, llm.ErrTimeout) && next.Strategy == "":
		// a content step over its time budget: try it in parts
		res, cerr := r.chunked(ctx, step, next.Attempt+1)
		if cerr == nil {
			return r.complete(ctx, step, workflow.StrategyChunked, res)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if step.Kind == workflow.KindResearch && step.PriorityClass == "must" {
			return r.lost(ctx, step, cerr) // a lost research step, not a lost run
		}
		return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepIncomplete, Data: workflow.StepIncomplete{
			Step: step.Step, Name: step.Name, Reason: workflow.ReasonChunksAbandoned, Error: cause(cerr), Abandoned: true}})
	case step.Kind == workflow.KindResearch && step.PriorityClass == "must":
		return r.lost(ctx, step, err)
	case step.NeedsContext && p.ContextLess:
		return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepIncomplete, Data: workflow.StepIncomplete{
			Step: step.Step, Name: step.Name, Error: cause(err),
			Reason: fmt.Sprintf("%s needs material nobody supplied (no connection, no additional context), as the plan warned; it is absent from the deliverable.", step.Name)}})
	}
	return r.fail(ctx, step.Step, "provider_exhausted", err)
}

// lost records a required research step lost: the run goes on without it.
func (r *run) lost(ctx context.Context, step workflow.PlannedStep, err error) error {
	return r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepIncomplete, Data: workflow.StepIncomplete{
		Step: step.Step, Name: step.Name, Error: cause(err),
		Reason: fmt.Sprintf("The required research step %s was lost (%s); the later steps ran without its findings.", step.Name, failure(err))}})
}

// complete records a step's result and charges it, in one transaction. A
// balance spent elsewhere meanwhile halts the run instead.
func (r *run) complete(ctx context.Context, step workflow.PlannedStep, strategy string, res result) error {
	if v := res.validation; v != nil && !v.OK() {
		return r.violated(ctx, step, res) // the output violates the output_contract
	}
	charge := r.wf.StepCharge(step)
	err := r.append(ctx, []also{r.charge(charge, "workflow_step", step.Step)}, eventstore.NewEvent{Type: workflow.EventStepCompleted,
		Data: res.completed(step, strategy, charge)})
	if errors.Is(err, credit.ErrInsufficient) {
		return r.halt(ctx, step.Step, "insufficient_credits", []string{fmt.Sprintf(
			"The balance no longer covers step %d (%s, %d credits): credits were spent elsewhere while the workflow ran.", step.Step, step.Name, charge)})
	}
	return err
}

// chunked runs a step in parts, each part tried twice.
func (r *run) chunked(ctx context.Context, step workflow.PlannedStep, attempt int) (result, error) {
	var out result
	for i := 0; i < chunks; i++ {
		var (
			part result
			err  error
		)
		for try := 0; try < 2; try++ {
			if err = r.append(ctx, nil, eventstore.NewEvent{Type: workflow.EventStepStarted, Data: workflow.StepStarted{
				Step: step.Step, Name: step.Name, Attempt: attempt, Retry: try, Strategy: workflow.StrategyChunked, Chunk: &workflow.Chunk{Index: i, Total: chunks}}}); err != nil {
				return result{}, err
			}
			if part, err = r.call(ctx, step, workflow.StrategyChunked, i, chunks); err == nil || ctx.Err() != nil {
				break
			}
		}
		if err != nil {
			return result{}, fmt.Errorf("chunk %d of %d: %w", i+1, chunks, err)
		}
		if out.summary == "" {
			out.summary = part.summary
		}
		out.sections = append(out.sections, part.sections...)
		out.calls = append(out.calls, part.calls...)
		if part.deliverable != nil {
			if out.deliverable == nil {
				out.deliverable = &workflow.Deliverable{Title: part.deliverable.Title}
			}
			out.deliverable.Sections = append(out.deliverable.Sections, part.deliverable.Sections...)
		}
	}
	return out, nil
}

// call makes the LLM call of a step and parses its answer.
func (r *run) call(ctx context.Context, step workflow.PlannedStep, strategy string, chunk, of int) (result, error) {
	req := r.request(llm.KindStep, step)
	if step.Kind == workflow.KindSynthesis {
		req.Kind = llm.KindSynthesis
	}
	req.Strategy, req.Chunk, req.Chunks = strategy, chunk, of
	c, contracted := r.contractFor(step)
	if contracted {
		req.Contract = &c
		if strategy == workflow.StrategyChunked { // one JSON answer cannot be split: the shorter input instead
			req.Strategy, req.Chunk, req.Chunks = llm.StrategyCompressed, 0, 0
		}
	}
	start := time.Now()
	resp, err := r.w.llm.Complete(ctx, req)
	if err != nil {
		return result{}, err
	}
	out := result{calls: []workflow.Call{callOf(resp, start)}}
	if contracted {
		return r.validated(c, resp.Text, out), nil
	}
	if req.Kind == llm.KindSynthesis {
		d, err := llm.ParseDeliverable(resp.Text)
		if err != nil {
			return result{}, err
		}
		wd := workflow.Deliverable{Title: d.Title, Sections: sections(d.Sections)}
		out.deliverable = &wd
		out.summary = fmt.Sprintf("Deliverable assembled: %d sections.", len(d.Sections))
		return out, nil
	}
	s, err := llm.ParseStep(resp.Text)
	if err != nil {
		return result{}, err
	}
	out.summary, out.sections = s.Summary, sections(s.Sections)
	return out, nil
}

func callOf(resp llm.Response, start time.Time) workflow.Call {
	return workflow.Call{Model: resp.Model, Provider: resp.Provider, PromptTokens: resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens, CostUSD: resp.CostUSD, Attempts: resp.Attempts,
		Fallback: resp.Fallback, LatencyMS: since(start)}
}

func sections(in []llm.Section) []workflow.Section {
	out := make([]workflow.Section, len(in))
	for i, s := range in {
		out[i] = workflow.Section{Heading: s.Heading, Content: s.Content}
	}
	return out
}

// failure says what went wrong with a call in words fit for the customer:
// never the providers' hosts, status codes or answers (those stay in the
// event's error fields and the log).
func failure(err error) string {
	if errors.Is(err, llm.ErrTimeout) {
		return "it ran out of its time budget"
	}
	return "every LLM provider failed"
}

// cause is an error's message, for events' error fields and the log.
func cause(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
