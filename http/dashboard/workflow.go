package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"svc/domain/workflow"
)

// A workflow's page: its status from GET /api/rigor/status/{id}, followed
// live over that route's event stream while it runs (the page's script),
// then its deliverable, quality review and step outputs; and the actions
// the caller's role may take in its status (approve, step, resume,
// cancel, file into a folder).

// wfView is the part of spec A's Workflow resource the page shows.
type wfView struct {
	WorkflowID             string `json:"workflow_id"`
	Status                 string `json:"status"`
	TaskType               string `json:"task_type"`
	Title                  string `json:"title"`
	RigorLevel             string `json:"rigor_level"`
	ExecutionMode          string `json:"execution_mode"`
	Mode                   string `json:"mode"`
	CurrentStep            int    `json:"current_step"`
	TotalSteps             int    `json:"total_steps"`
	ActualStepsExecuted    int    `json:"actual_steps_executed"`
	CompletedStepSummaries []struct {
		Step      int    `json:"step"`
		Framework string `json:"framework"`
		Summary   string `json:"summary"`
		Model     string `json:"model"`
	} `json:"completed_step_summaries"`
	QualityScore  *int `json:"quality_score"`
	QualityReview *struct {
		Summary   string   `json:"summary"`
		PathTo100 []string `json:"path_to_100"`
	} `json:"quality_review"`
	Deliverable *struct {
		Title    string `json:"title"`
		Sections []struct {
			Heading string `json:"heading"`
			Content string `json:"content"`
		} `json:"sections"`
	} `json:"deliverable"`
	CreditsUsed      int64   `json:"credits_used"`
	CreditsLive      int64   `json:"credits_live"`
	EstimatedCredits int64   `json:"estimated_credits"`
	Error            *string `json:"error"`
	IncompleteSteps  []struct {
		StepIndex int    `json:"step_index"`
		Framework string `json:"framework"`
		Reason    string `json:"reason"`
	} `json:"incomplete_steps"`
	StepOutputs []struct {
		Step                   int             `json:"step"`
		Framework              string          `json:"framework"`
		OutputValidationStatus string          `json:"output_validation_status"`
		OutputFindings         json.RawMessage `json:"output_findings"`
	} `json:"step_outputs"`
	PendingApprovalStep *int       `json:"pending_approval_step"`
	HaltReason          string     `json:"halt_reason"`
	BlockingIssues      []string   `json:"blocking_issues"`
	ResolutionOptions   []string   `json:"resolution_options"`
	CreatedAt           time.Time  `json:"created_at"`
	CompletedAt         *time.Time `json:"completed_at"`
}

// wfPage is the workflow page's data: the workflow and what the caller
// may do with it now.
type wfPage struct {
	W         wfView
	Live      bool   // running: the page follows its event stream
	EventsURL string // that stream

	// What the caller may do now, by role and status.
	Interactive, CanApprove, CanStep, CanResume, CanFile bool
	// Cancel is "cancel" or "force_cancel" when the caller may cancel.
	Cancel string
	// ResumeApproves: resuming approves a pending human review.
	ResumeApproves bool
	Folders        []folder
}

// resumable are the statuses the page offers resume in: those of spec A
// in which no worker is running the workflow.
var resumable = []string{workflow.StatusFailed, workflow.StatusBlocked, workflow.StatusTimedOut, workflow.StatusPendingHumanReview}

// workflow is GET /dashboard/workflows/{id}.
func (h *Handler) workflow(w http.ResponseWriter, r *http.Request, id Identity) {
	ws, wid := workspaceParam(r), r.PathValue("id")
	me := h.loadChrome(r, id)
	var out struct {
		Workflow wfView `json:"workflow"`
	}
	rep := h.api.Call(r, ws, http.MethodGet, "/api/rigor/status/"+url.PathEscape(wid), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, me, p)
		return
	}
	if !decode(rep, &out) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	v := out.Workflow
	st := v.Status
	p := wfPage{W: v, Live: slices.Contains(workflow.RunnableStatuses, st),
		EventsURL:   wsQuery("/dashboard/workflows/"+url.PathEscape(wid)+"/events", ws),
		Interactive: v.Mode == workflow.ModeInteractive,
		CanApprove:  st == workflow.StatusPendingApproval && id.may("rigor.approve"),
		CanStep:     st == workflow.StatusInteractiveWaiting && id.may("rigor.step"),
		CanResume:   slices.Contains(resumable, st) && id.may("rigor.resume"),
		CanFile:     id.may("workspaces.folders.workflows.add"), ResumeApproves: st == workflow.StatusPendingHumanReview}
	if id.may("rigor.workflows.actions") {
		p.Cancel = workflow.CancelAction(st)
	}
	if p.CanFile {
		p.Folders = h.folders(r, id)
	}
	title := v.Title
	if title == "" {
		title = v.WorkflowID
	}
	h.render(w, r, http.StatusOK, "workflow", view{Title: title, Me: me, Data: p, Notice: noticeOf(r.URL.Query().Get("done"))})
}

// events is GET /dashboard/workflows/{id}/events: the workflow's event
// stream (spec A's, through GET /api/rigor/status/{id}).
func (h *Handler) events(w http.ResponseWriter, r *http.Request, _ Identity) {
	h.api.Stream(w, r, workspaceParam(r), "/api/rigor/status/"+url.PathEscape(r.PathValue("id")))
}

// control is POST /dashboard/workflows/{id}/{action}: one of the actions
// the page offers, through its route; then the page again.
func (h *Handler) control(w http.ResponseWriter, r *http.Request, id Identity) {
	ws, wid, action := workspaceParam(r), r.PathValue("id"), r.PathValue("action")
	var rep Reply
	switch action {
	case "approve", "reject":
		body := map[string]any{"workflow_id": wid, "decision": map[string]string{"approve": "approved", "reject": "rejected"}[action]}
		if n := strings.TrimSpace(r.PostFormValue("notes")); n != "" {
			body["notes"] = n
		}
		rep = h.api.Call(r, ws, http.MethodPost, "/api/rigor/approve", body)
	case "next", "skip", "abort":
		body := map[string]any{"workflow_id": wid, "action": action}
		if f := strings.TrimSpace(r.PostFormValue("feedback")); f != "" && action == "next" {
			body["feedback"] = f
		}
		rep = h.api.Call(r, ws, http.MethodPost, "/api/rigor/step", body)
	case "resume":
		body := map[string]any{"workflow_id": wid}
		if g := strings.TrimSpace(r.PostFormValue("revision_guidance")); g != "" {
			body["revision_guidance"] = g
		}
		path := "/api/rigor/resume"
		if r.PostFormValue("approve") == "true" {
			path += "?approve=true"
		}
		rep = h.api.Call(r, ws, http.MethodPost, path, body)
	case "cancel":
		rep = h.cancel(r, ws, wid)
	case "file":
		rep = h.api.Call(r, "", http.MethodPost, id.api("/folders/"+url.PathEscape(r.PostFormValue("folder_id"))+"/workflows"),
			map[string]any{"workflow_ids": []string{wid}})
	default:
		h.notFound(w, r)
		return
	}
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	http.Redirect(w, r, wsQuery("/dashboard/workflows/"+url.PathEscape(wid)+"?done="+action, ws), http.StatusSeeOther)
}

// cancel cancels one workflow with the bulk route, confirmed and forced:
// the person confirmed it on the page, and a queued run the worker starts
// meanwhile is cancelled all the same. A workflow the route skips is
// refused as invalid_status.
func (h *Handler) cancel(r *http.Request, ws, wid string) Reply {
	rep := h.api.Call(r, ws, http.MethodPost, "/api/rigor/workflows/actions", map[string]any{
		"action": "cancel", "workflow_ids": []string{wid}, "confirm": true, "force": true})
	var out struct {
		Results struct {
			Succeeded []any `json:"succeeded"`
		} `json:"results"`
	}
	if rep.Status < http.StatusBadRequest && decode(rep, &out) && len(out.Results.Succeeded) == 0 {
		return Reply{Status: http.StatusConflict, Body: []byte(`{"error":{"code":"invalid_status"}}`)}
	}
	return rep
}

// noticeOf is the sentence shown after an action succeeded.
func noticeOf(action string) string {
	return map[string]string{
		"approve": "Approved: the run goes on.", "reject": "Rejected: the run stops here.",
		"next": "The next step is running.", "skip": "The step was skipped.", "abort": "The session was ended.",
		"resume": "The workflow resumes.", "cancel": "The workflow was cancelled.", "file": "The workflow was filed.",
	}[action]
}
