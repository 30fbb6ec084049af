package worker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"svc/adapters/llm"
	"svc/adapters/outbound"
	"svc/domain/catalog"
	"svc/domain/workflow"
	"svc/eventstore/event"
)

// request describes a call about the workflow to the LLM port.
func (r *run) request(kind string, step workflow.PlannedStep) llm.Request {
	p, q := r.wf.Planned(), r.wf.Queued()
	label := p.TaskType
	if tt, ok := catalog.Default().TaskType(p.TaskType); ok {
		label = tt.Label
	}
	tier, model := max(step.Tier, 1), step.Model
	if step.Kind == workflow.KindContent && r.wf.Direct() {
		tier, model = 2, "" // direct execution routes content cost-first
	}
	if model == "" { // the llm policy's model for the tier, if one applied
		model = p.ModelFor(tier)
	}
	req := llm.Request{Kind: kind, Tier: tier, Model: model, Description: p.Description, TaskType: p.TaskType, TaskLabel: label,
		Title: p.Title, Framework: step.Name, Step: step.Step, TotalSteps: p.TotalSteps}
	if q != nil {
		req.Language, req.Context, req.Inherited = q.Language, q.Context, q.Inherited
	}
	req.External = p.External // framed as data by the prompts
	if kind != llm.KindReview {
		req.Guidance = strings.Join(r.wf.Guidance(), "\n")
	}
	for _, c := range r.wf.Prior(step.Step) {
		req.Prior = append(req.Prior, llm.PriorStep{Step: c.Step, Name: c.Name, Summary: c.Summary, Sections: c.Sections})
	}
	return req
}

// review runs the independent quality review of the deliverable, or
// records the one a conforming contract output gets instead (no call). A
// review that cannot run leaves the score null (never 0) and says why.
func (r *run) review(ctx context.Context) error {
	if events, ok := r.wf.ReviewByValidation(); ok {
		return r.reviewed(ctx, events...)
	}
	if err := r.record(ctx, r.wf.StartReview()...); err != nil {
		return err
	}
	req := r.request(llm.KindReview, workflow.PlannedStep{Tier: 1})
	req.Framework, req.Step, req.Prior = "", 0, nil
	req.Deliverable = r.wf.Deliverable()
	start := time.Now()
	resp, err := r.w.llm.Complete(ctx, req)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var rev workflow.Review
	if err == nil {
		var parsed llm.Review
		if parsed, err = llm.ParseReview(resp.Text); err == nil {
			score := parsed.Score
			rev = workflow.Review{Score: &score, Summary: parsed.Summary, PathTo100: parsed.PathTo100, Calls: []workflow.Call{callOf(resp, start)}}
		}
	}
	if err != nil {
		r.w.log.Warn("quality review failed", "workflow_id", r.wf.ID(), "error", err)
		f := failure(err)
		rev = workflow.Review{Failure: &f}
	}
	return r.reviewed(ctx, r.wf.Reviewed(rev))
}

// reviewed records the review's events, with the run's terminal event when
// that is what follows (finish), else on their own.
func (r *run) reviewed(ctx context.Context, events ...event.Data) error {
	if after, err := r.wf.After(time.Now(), events...); err == nil && after.Next().Action == workflow.ActFinish {
		return r.finishAfter(ctx, after, events)
	}
	return r.record(ctx, events...)
}

// probeOnce checks, once per run, that the plan's context connections
// answer before step (later steps read the same servers); when one does
// not, it halts the run (halted true).
func (r *run) probeOnce(ctx context.Context, step workflow.PlannedStep) (halted bool, err error) {
	r.probed = true
	issues := r.probe(ctx)
	if len(issues) == 0 {
		return false, nil
	}
	return true, r.halt(ctx, r.wf.HaltOn(step.Step, "connection_failure", issues))
}

// probe checks that the plan's context connections answer; it returns one
// blocking issue per connection that does not (no answer, or a 5xx).
func (r *run) probe(ctx context.Context) []string {
	var issues []string
	for _, c := range r.wf.Planned().Connections {
		if c.ServerURL == "" {
			continue
		}
		code, err := outbound.Probe(ctx, r.w.outbound, c.ServerURL, r.w.cfg.ProbeTimeout)
		if err == nil && code >= 500 {
			err = fmt.Errorf("HTTP %d", code)
		}
		if err != nil && ctx.Err() == nil {
			issues = append(issues, fmt.Sprintf("Connection %s (%s) failed to respond: %v", c.Name, c.ServerURL, err))
		}
	}
	return issues
}
