package httpapi

import (
	"fmt"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// sseOf maps a workflow event (already folded into wf) to the stream's
// events; most map to one, bookkeeping events to none.
func sseOf(wf *workflow.Workflow, e event.Event) []sseEvent {
	id := wf.ID()
	step := func(n int) string { return fmt.Sprintf("step-%d", n) }
	switch e.Type {
	case workflow.EventQueued:
		return []sseEvent{{"workflow_started", "started", started(wf)}}
	case workflow.EventStepStarted:
		var d workflow.StepStarted
		_ = e.Decode(&d)
		m := fmt.Sprintf("%s.started.a%d", step(d.Step), d.Attempt)
		if d.Chunk != nil {
			m += fmt.Sprintf(".c%d", d.Chunk.Index)
		}
		if d.Retry > 0 {
			m += fmt.Sprintf(".r%d", d.Retry)
		}
		return []sseEvent{{"step_started", m, sseStepStarted{WorkflowID: id, Step: d.Step, Name: d.Name, Attempt: d.Attempt,
			Strategy: d.Strategy, Chunk: d.Chunk}}}
	case workflow.EventStepCompleted:
		var d workflow.StepCompleted
		_ = e.Decode(&d)
		return []sseEvent{{"step_completed", step(d.Step) + ".completed", sseStepCompleted{WorkflowID: id, Step: d.Step, Name: d.Name,
			Summary: d.Summary, Credits: d.Credits, CreditsLive: wf.CreditsLive()}}}
	case workflow.EventStepIncomplete:
		var d workflow.StepIncomplete
		_ = e.Decode(&d)
		return []sseEvent{{"step_skipped", step(d.Step) + ".skipped", sseStepSkipped{WorkflowID: id, Step: d.Step, Name: d.Name, Reason: d.Reason}}}
	case workflow.EventTerminalRetrying:
		var d workflow.TerminalRetrying
		_ = e.Decode(&d)
		return []sseEvent{{"terminal_step_retrying", fmt.Sprintf("%s.retry.a%d", step(d.StepIndex+1), d.Attempt), sseRetrying{WorkflowID: id, TerminalRetrying: d}}}
	case workflow.EventReviewed:
		v := wf.View(false)
		return []sseEvent{{"quality_review", "review", sseReview{WorkflowID: id, Score: v.QualityScore, Summary: v.QualityReview.Summary,
			PathTo100: orEmpty(v.QualityReview.PathTo100)}}}
	case workflow.EventCompleted:
		v := wf.View(false)
		data := sseCompleted{WorkflowID: id, Status: v.Status, QualityScore: v.QualityScore, Deliverable: v.Deliverable,
			CreditsUsed: v.CreditsUsed, ActualStepsExecuted: v.ActualStepsExecuted, TotalSteps: v.TotalSteps}
		if v.Status == workflow.StatusCompletedPartial {
			data.ssePartial = &ssePartial{Partial: true, IncompleteSteps: orEmpty(v.IncompleteSteps), Error: v.Error}
		}
		return []sseEvent{{"workflow_completed", "completed", data}}
	case workflow.EventFailed, workflow.EventHalted:
		return []sseEvent{{"workflow_error", "error", failed(wf, e)}}
	case workflow.EventExecutionFellBack:
		var d workflow.ExecutionFellBack
		_ = e.Decode(&d)
		return []sseEvent{{"execution_fallback", "execution_fallback", sseFallback{WorkflowID: id, ExecutionMode: wf.ExecutionMode(),
			ExecutionFallback: wf.ExecutionFallback(), Reason: d.Reason, Message: d.Message}}}
	case workflow.EventStepSkipped:
		var d workflow.StepSkipped
		_ = e.Decode(&d)
		return []sseEvent{{"step_skipped", step(d.Step) + ".skipped", sseStepSkipped{WorkflowID: id, Step: d.Step, Name: d.Name, Reason: "skipped by the caller"}}}
	case workflow.EventApprovalRequested:
		var d workflow.ApprovalRequested
		_ = e.Decode(&d)
		return []sseEvent{{"workflow_pending_approval", fmt.Sprintf("approval.g%d", d.Gate), ssePendingApproval{WorkflowID: id,
			Status: workflow.StatusPendingApproval, ApprovalBeforeStep: d.Gate, Step: d.Step, Deliverable: d.Deliverable,
			CreditsUsed: wf.View(false).CreditsUsed}}}
	case workflow.EventCancelled, workflow.EventRejected, workflow.EventAborted, workflow.EventTimedOut:
		v := wf.View(false)
		data := sseError{WorkflowID: id, Status: v.Status, Error: v.Error, CreditsUsed: v.CreditsUsed}
		if v.HaltReason != "" {
			data.HaltReason = &v.HaltReason
		}
		return []sseEvent{{"workflow_error", v.Status, data}}
	}
	return nil
}

// started is the data of workflow_started.
func started(wf *workflow.Workflow) sseStarted {
	p, q := wf.Planned(), wf.Queued()
	steps := make([]sseStep, len(p.Steps))
	for i, st := range p.Steps {
		steps[i] = sseStep{Step: st.Step, Name: st.Name, EstimatedCredits: st.Credits}
	}
	return sseStarted{WorkflowID: wf.ID(), Status: wf.Status(), TaskType: p.TaskType, ValueClass: p.ValueClass, Title: p.Title,
		TotalSteps: p.TotalSteps, EstimatedCredits: p.Credits, Steps: steps, DeliveryMode: q.Delivery.Method, Free: q.Free,
		ExecutionMode: wf.ExecutionMode(), Warnings: q.Warnings}
}

// failed is the workflow_error data of a failed or halted workflow.
func failed(wf *workflow.Workflow, e event.Event) sseError {
	v := wf.View(false)
	data := sseError{WorkflowID: wf.ID(), Status: v.Status, Error: v.Error, CreditsUsed: v.CreditsUsed}
	if v.Status == workflow.StatusHalted {
		data.HaltReason = &v.HaltReason
		data.sseHalt = &sseHalt{HaltedAtStep: v.HaltedAtStep, BlockingIssues: orEmpty(v.BlockingIssues),
			CreditsSavedByHalt: v.CreditsSavedByHalt, ResolutionOptions: orEmpty(v.ResolutionOptions)}
		return data
	}
	var d workflow.Failed
	_ = e.Decode(&d)
	data.Code = &d.Code
	return data
}
