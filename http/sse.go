package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	name   string
	marker string
	data   any
}

// stream answers a workflow's progress as server-sent events, from the
// event after marker (empty: from the start) until the workflow ends, the
// stream times out, the client goes away or the server stops.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, id, marker string) error {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	h.Set("Connection", "keep-alive")
	h.Set("X-Svc-Workflow-Id", id)
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	_ = rc.SetWriteDeadline(time.Time{})

	var (
		wf      *workflow.Workflow
		version = event.NewStream
		last    = id + ":" + marker
		replay  = marker != ""
		started = time.Now()
		beat    = time.NewTicker(s.cfg.SSEHeartbeat)
		poll    = time.NewTicker(s.cfg.SSEPoll)
	)
	defer beat.Stop()
	defer poll.Stop()
	write := func(e sseEvent) error {
		data, _ := json.Marshal(e.data)
		if e.marker != "" {
			last = id + ":" + e.marker
		}
		idLine := "id: " + last + "\n"
		if strings.HasSuffix(last, ":") { // nothing sent yet: a heartbeat carries no id
			idLine = ""
		}
		if _, err := fmt.Fprintf(w, "%sevent: %s\ndata: %s\n\n", idLine, e.name, data); err != nil {
			return err
		}
		return rc.Flush()
	}
	for {
		events, err := s.store.LoadFrom(r.Context(), s.store.Pool(), workflow.Stream(id), version+1)
		if err != nil {
			return nil // the status line went out: nothing to answer but closing
		}
		for _, e := range events {
			if wf == nil {
				if wf, err = workflow.Load([]event.Event{e}); err != nil {
					return nil
				}
			} else if err := wf.Apply(e); err != nil {
				return nil
			}
			version = e.Version
			for _, out := range sseOf(wf, e) {
				if replay { // skip up to and including the client's last event
					if out.marker == marker {
						replay = false
					}
					continue
				}
				if err := write(out); err != nil {
					return nil
				}
			}
		}
		if replay && wf != nil { // an unknown marker: send everything
			replay, version, wf = false, event.NewStream, nil
			continue
		}
		if wf != nil && (workflow.Terminal(wf.Status()) || wf.Status() == workflow.StatusPendingApproval) {
			return nil // pending_approval ends the stream: approve, then poll or reconnect
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil
		case <-poll.C: // not woken by appends: those of every workflow would wake every stream
		case <-beat.C:
			status, step := "queued", 0
			if wf != nil {
				status, step = wf.Status(), wf.View(false).CurrentStep
			}
			if err := write(sseEvent{name: "processing", data: map[string]any{"workflow_id": id, "status": status, "current_step": step}}); err != nil {
				return nil
			}
		}
		if time.Since(started) >= s.cfg.SSETimeout {
			_ = write(sseEvent{name: "stream_timeout", data: map[string]any{"workflow_id": id,
				"message":  fmt.Sprintf("The stream closes after %d seconds; the workflow goes on. Poll its status, or reconnect with Last-Event-ID.", int(s.cfg.SSETimeout.Seconds())),
				"poll_url": s.cfg.BaseURL + "/api/rigor/status/" + id}})
			return nil
		}
	}
}

// sseOf maps a workflow event (already folded into wf) to the stream's
// events; most map to one, bookkeeping events to none.
func sseOf(wf *workflow.Workflow, e event.Event) []sseEvent {
	id := wf.ID()
	step := func(n int) string { return fmt.Sprintf("step-%d", n) }
	switch e.Type {
	case workflow.EventQueued:
		p, q := wf.Planned(), wf.Queued()
		steps := make([]map[string]any, len(p.Steps))
		for i, st := range p.Steps {
			steps[i] = map[string]any{"step": st.Step, "name": st.Name, "estimated_credits": st.Credits}
		}
		data := map[string]any{"workflow_id": id, "status": wf.Status(), "task_type": p.TaskType, "value_class": p.ValueClass,
			"title": p.Title, "total_steps": p.TotalSteps, "estimated_credits": p.Credits, "steps": steps, "delivery_mode": q.Delivery.Method, "free": q.Free,
			"execution_mode": wf.ExecutionMode()}
		if len(q.Warnings) > 0 {
			data["warnings"] = q.Warnings
		}
		return []sseEvent{{"workflow_started", "started", data}}
	case workflow.EventStepStarted:
		var d workflow.StepStarted
		_ = e.Decode(&d)
		m := fmt.Sprintf("%s.started.a%d", step(d.Step), d.Attempt)
		data := map[string]any{"workflow_id": id, "step": d.Step, "name": d.Name, "attempt": d.Attempt}
		if d.Strategy != "" {
			data["strategy"] = d.Strategy
		}
		if d.Chunk != nil {
			m += fmt.Sprintf(".c%d", d.Chunk.Index)
			data["chunk"] = d.Chunk
		}
		if d.Retry > 0 {
			m += fmt.Sprintf(".r%d", d.Retry)
		}
		return []sseEvent{{"step_started", m, data}}
	case workflow.EventStepCompleted:
		var d workflow.StepCompleted
		_ = e.Decode(&d)
		return []sseEvent{{"step_completed", step(d.Step) + ".completed", map[string]any{"workflow_id": id, "step": d.Step, "name": d.Name,
			"summary": d.Summary, "credits": d.Credits, "credits_live": wf.CreditsLive()}}}
	case workflow.EventStepIncomplete:
		var d workflow.StepIncomplete
		_ = e.Decode(&d)
		return []sseEvent{{"step_skipped", step(d.Step) + ".skipped", map[string]any{"workflow_id": id, "step": d.Step, "name": d.Name, "reason": d.Reason}}}
	case workflow.EventTerminalRetrying:
		var d workflow.TerminalRetrying
		_ = e.Decode(&d)
		return []sseEvent{{"terminal_step_retrying", fmt.Sprintf("%s.retry.a%d", step(d.StepIndex+1), d.Attempt), map[string]any{"workflow_id": id,
			"step_index": d.StepIndex, "step_name": d.StepName, "attempt": d.Attempt, "max_attempts": d.MaxAttempts, "strategy": d.Strategy, "message": d.Message}}}
	case workflow.EventReviewed:
		v := wf.View(false)
		return []sseEvent{{"quality_review", "review", map[string]any{"workflow_id": id, "score": v.QualityScore, "summary": v.QualityReview.Summary,
			"path_to_100": v.QualityReview.PathTo100}}}
	case workflow.EventCompleted:
		v := wf.View(false)
		data := map[string]any{"workflow_id": id, "status": v.Status, "quality_score": v.QualityScore, "deliverable": v.Deliverable,
			"credits_used": v.CreditsUsed, "actual_steps_executed": v.ActualStepsExecuted, "total_steps": v.TotalSteps}
		if v.Status == workflow.StatusCompletedPartial {
			data["partial"] = true
			data["incomplete_steps"] = v.IncompleteSteps
			data["error"] = v.Error
		}
		return []sseEvent{{"workflow_completed", "completed", data}}
	case workflow.EventFailed, workflow.EventHalted:
		v := wf.View(false)
		data := map[string]any{"workflow_id": id, "status": v.Status, "error": v.Error, "credits_used": v.CreditsUsed}
		if v.Status == workflow.StatusHalted {
			data["halted_at_step"], data["halt_reason"], data["blocking_issues"] = v.HaltedAtStep, v.HaltReason, v.BlockingIssues
			data["credits_saved_by_halt"], data["resolution_options"] = v.CreditsSavedByHalt, v.ResolutionOptions
		} else {
			var d workflow.Failed
			_ = e.Decode(&d)
			data["code"] = d.Code
		}
		return []sseEvent{{"workflow_error", "error", data}}
	case workflow.EventExecutionFellBack:
		var d workflow.ExecutionFellBack
		_ = e.Decode(&d)
		return []sseEvent{{"execution_fallback", "execution_fallback", map[string]any{"workflow_id": id, "execution_mode": wf.ExecutionMode(),
			"execution_fallback": wf.ExecutionFallback(), "reason": d.Reason, "message": d.Message}}}
	case workflow.EventStepSkipped:
		var d workflow.StepSkipped
		_ = e.Decode(&d)
		return []sseEvent{{"step_skipped", step(d.Step) + ".skipped", map[string]any{"workflow_id": id, "step": d.Step, "name": d.Name, "reason": "skipped by the caller"}}}
	case workflow.EventApprovalRequested:
		var d workflow.ApprovalRequested
		_ = e.Decode(&d)
		return []sseEvent{{"workflow_pending_approval", fmt.Sprintf("approval.g%d", d.Gate), map[string]any{"workflow_id": id,
			"status": workflow.StatusPendingApproval, "approval_before_step": d.Gate, "step": d.Step, "deliverable": d.Deliverable,
			"credits_used": wf.View(false).CreditsUsed}}}
	case workflow.EventCancelled, workflow.EventRejected, workflow.EventAborted, workflow.EventTimedOut:
		v := wf.View(false)
		data := map[string]any{"workflow_id": id, "status": v.Status, "error": v.Error, "credits_used": v.CreditsUsed}
		if v.HaltReason != "" {
			data["halt_reason"] = v.HaltReason
		}
		return []sseEvent{{"workflow_error", v.Status, data}}
	}
	return nil
}
