package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svc/adapters/llm"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// chunks is how many parts a step run in chunked mode is split into.
const chunks = 2

// step runs one planned step and hands its outcome to the aggregate;
// started: its StepStarted is recorded already (complete, start).
func (r *run) step(ctx context.Context, next workflow.Next, started bool) error {
	step := next.Step
	if next.Strategy == workflow.StrategySalvage {
		return r.record(ctx, r.wf.SalvageStep(step))
	}
	if batch := r.wf.Composable(step); len(batch) > 1 {
		return r.compose(ctx, next, batch) // direct execution: one call (direct.go)
	}
	if step.NeedsContext && !r.probed {
		if halted, err := r.probeOnce(ctx, step); halted || err != nil {
			return err
		}
	}
	if !started {
		if err := r.record(ctx, r.wf.StartStep(next)); err != nil {
			return err
		}
	}
	var (
		res workflow.Result
		err error
	)
	if _, contracted := r.contractFor(step); next.Strategy == workflow.StrategyChunked && !contracted {
		res, err = r.chunked(ctx, step, next.Attempt)
	} else {
		res, err = r.call(ctx, step, next.Strategy, 0, 0)
	}
	if err == nil {
		return r.succeeded(ctx, step, next.Strategy, res)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return r.failed(ctx, step, next, err)
}

// succeeded records a step's result, charged in the same transaction.
func (r *run) succeeded(ctx context.Context, step workflow.PlannedStep, strategy string, res workflow.Result) error {
	if v := res.Validation; v != nil && !v.OK() {
		r.w.log.Info("output violates the output_contract", "workflow_id", r.wf.ID(), "step", step.Step, "status", v.Status, "violations", len(v.Violations))
	}
	return r.complete(ctx, []event.Data{r.wf.StepSucceeded(step, strategy, res)}, step, step)
}

// failed hands a step failure to the aggregate and does what it decides.
func (r *run) failed(ctx context.Context, step workflow.PlannedStep, next workflow.Next, err error) error {
	f := failure(err)
	out := r.wf.StepFailed(next, f)
	switch {
	case out.RetryChunked:
		// a content step over its time budget: try it in parts
		res, cerr := r.chunked(ctx, step, next.Attempt+1)
		if cerr == nil {
			return r.succeeded(ctx, step, workflow.StrategyChunked, res)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.record(ctx, r.wf.ChunkedFailed(step, failure(cerr)))
	case out.FailRun:
		return r.fail(ctx, step.Step, f)
	}
	return r.record(ctx, out.Events...)
}

// chunked runs a step in parts, each part tried twice.
func (r *run) chunked(ctx context.Context, step workflow.PlannedStep, attempt int) (workflow.Result, error) {
	var out workflow.Result
	for i := 0; i < chunks; i++ {
		var (
			part workflow.Result
			err  error
		)
		for try := 0; try < 2; try++ {
			if err = r.record(ctx, r.wf.StartChunk(step, attempt, i, chunks, try)); err != nil {
				return workflow.Result{}, err
			}
			if part, err = r.call(ctx, step, workflow.StrategyChunked, i, chunks); err == nil || ctx.Err() != nil {
				break
			}
		}
		if err != nil {
			return workflow.Result{}, fmt.Errorf("chunk %d of %d: %w", i+1, chunks, err)
		}
		if out.Summary == "" {
			out.Summary = part.Summary
		}
		out.Sections = append(out.Sections, part.Sections...)
		out.Calls = append(out.Calls, part.Calls...)
		if part.Deliverable != nil {
			if out.Deliverable == nil {
				out.Deliverable = &workflow.Deliverable{Title: part.Deliverable.Title}
			}
			out.Deliverable.Sections = append(out.Deliverable.Sections, part.Deliverable.Sections...)
		}
	}
	return out, nil
}

// call makes the LLM call of a step and parses its answer.
func (r *run) call(ctx context.Context, step workflow.PlannedStep, strategy string, chunk, of int) (workflow.Result, error) {
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
		return workflow.Result{}, err
	}
	out := workflow.Result{Calls: []workflow.Call{callOf(resp, start)}}
	if contracted {
		return r.validated(c, resp.Text, out), nil
	}
	if req.Kind == llm.KindSynthesis {
		d, err := llm.ParseDeliverable(resp.Text)
		if err != nil {
			return workflow.Result{}, err
		}
		out.Deliverable = &d
		out.Summary = fmt.Sprintf("Deliverable assembled: %d sections.", len(d.Sections))
		return out, nil
	}
	s, err := llm.ParseStep(resp.Text)
	if err != nil {
		return workflow.Result{}, err
	}
	out.Summary, out.Sections = s.Summary, s.Sections
	return out, nil
}

func callOf(resp llm.Response, start time.Time) workflow.Call {
	return workflow.Call{Model: resp.Model, Provider: resp.Provider, PromptTokens: resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens, CostUSD: resp.CostUSD, Attempts: resp.Attempts,
		Fallback: resp.Fallback, LatencyMS: since(start)}
}

// failure is what a failed call tells the aggregate.
func failure(err error) workflow.Failure {
	return workflow.Failure{Cause: err.Error(), TimedOut: errors.Is(err, llm.ErrTimeout)}
}
