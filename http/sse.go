package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"svc/domain/workflow"
	"svc/eventstore/event"
)

// sseEvent is one server-sent event: its name, the marker of its id
// (Last-Event-ID is "<workflow_id>:<marker>") and its data, one of the
// sse* payload types.
type sseEvent struct {
	name   string
	marker string
	data   any
}

// sseProcessing is the heartbeat's data.
type sseProcessing struct {
	WorkflowID  string `json:"workflow_id"`
	Status      string `json:"status"`
	CurrentStep int    `json:"current_step"`
}

// sseTimeout is the data of the last event of a stream that timed out.
type sseTimeout struct {
	WorkflowID string `json:"workflow_id"`
	Message    string `json:"message"`
	PollURL    string `json:"poll_url"`
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
		feed    = &sseFeed{}
		version = event.NewStream
		last    = id + ":" + marker
		replay  = marker != ""
		started = time.Now()
		beat    = time.NewTicker(s.cfg.SSEHeartbeat)
		poll    = time.NewTicker(s.cfg.SSEPoll)
		// woken by appends to this workflow's stream, in any instance
		changed, unsubscribe = s.queries.WorkflowChanged(id)
	)
	defer unsubscribe()
	defer beat.Stop()
	defer poll.Stop()
	write := func(e sseEvent) error {
		data, _ := marshal(e.data)
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
		events, err := s.queries.WorkflowEvents(r.Context(), id, version)
		if err != nil {
			return nil // the status line went out: nothing to answer but closing
		}
		for _, e := range events {
			outs, err := feed.add(e)
			if err != nil {
				return nil
			}
			version = e.Version
			for _, out := range outs {
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
		wf := feed.wf
		if replay && wf != nil { // an unknown marker: send everything
			replay, version, feed = false, event.NewStream, &sseFeed{}
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
		case <-changed:
		case <-poll.C: // the safety net of a lost wake-up
		case <-beat.C:
			status, step := "queued", 0
			if wf != nil {
				status, step = wf.Status(), wf.View(false).CurrentStep
			}
			if err := write(sseEvent{name: "processing", data: sseProcessing{WorkflowID: id, Status: status, CurrentStep: step}}); err != nil {
				return nil
			}
		}
		if time.Since(started) >= s.cfg.SSETimeout {
			_ = write(sseEvent{name: "stream_timeout", data: sseTimeout{WorkflowID: id,
				Message: fmt.Sprintf("The stream closes after %d seconds; the workflow goes on. Poll its status, or reconnect with Last-Event-ID.", int(s.cfg.SSETimeout.Seconds())),
				PollURL: s.pollURL(id)}})
			return nil
		}
	}
}

// sseFeed turns a workflow's events, read in order from the start of its
// stream, into the stream's events, every id unique in the stream: the
// same ids on every connection and instance, so Last-Event-ID resumes
// after the right event.
type sseFeed struct {
	wf   *workflow.Workflow
	seen map[string]bool // markers given so far
}

// add folds e and returns the stream's events for it.
func (f *sseFeed) add(e event.Event) ([]sseEvent, error) {
	if f.wf == nil {
		wf, err := workflow.Load([]event.Event{e})
		if err != nil {
			return nil, fmt.Errorf("sse: %s: %w", e.StreamID, err)
		}
		f.wf, f.seen = wf, map[string]bool{}
	} else if err := f.wf.Apply(e); err != nil {
		return nil, fmt.Errorf("sse: %w", err)
	}
	out := sseOf(f.wf, e)
	for i := range out {
		m := out[i].marker
		if m == "" {
			continue
		}
		// a step started again after a takeover is a new attempt
		// (decision 129), so markers do not repeat; a stream recorded
		// before that repeated the attempt, and the event's version
		// keeps its id unique (decision 75)
		if f.seen[m] {
			m = fmt.Sprintf("%s.v%d", m, e.Version)
			out[i].marker = m
		}
		f.seen[m] = true
	}
	return out, nil
}
