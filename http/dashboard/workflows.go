package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The workflow listing: GET /api/rigor/workflows with the page's search
// and filters, the workspace's folders, and a folder's creation.

// summary is a row of the listing.
type summary struct {
	WorkflowID     string     `json:"workflow_id"`
	Status         string     `json:"status"`
	TaskType       string     `json:"task_type"`
	CurrentStep    int        `json:"current_step"`
	TotalSteps     int        `json:"total_steps"`
	CreditsCharged int64      `json:"credits_charged"`
	CreatedAt      time.Time  `json:"created_at"`
	CompletedAt    *time.Time `json:"completed_at"`
	GeneratedTitle *string    `json:"generated_title"`
	TaskExcerpt    *string    `json:"task_excerpt"`
	HistoryLocked  bool       `json:"history_locked"`
}

// Title is the row's title: the generated one, else the excerpt.
func (s summary) Title() string {
	switch {
	case s.GeneratedTitle != nil && *s.GeneratedTitle != "":
		return *s.GeneratedTitle
	case s.TaskExcerpt != nil && *s.TaskExcerpt != "":
		return *s.TaskExcerpt
	}
	return s.WorkflowID
}

type folder struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// option is an entry of a filter's list.
type option struct {
	Value, Label string
}

// statusFilters group spec A's statuses as the listing filters them.
var statusFilters = []option{
	{"", "Any status"},
	{"queued,executing,step_executing,resuming,quality_review,approved", "Running"},
	{"interactive_waiting,pending_approval,pending_human_review", "Waiting for you"},
	{"completed", "Completed"},
	{"completed_partial", "Partly completed"},
	{"failed,halted,blocked,timed_out", "Failed or stopped"},
	{"cancelled,aborted", "Cancelled"},
}

type listing struct {
	Q, Status, TaskType, Folder string
	Statuses, TaskTypes         []option
	Folders                     []folder
	Rows                        []summary
	Total                       int
	Next                        string // the next page's URL, "" on the last
	Active                      int
	Limit                       *int
	Welcome                     bool
}

// workflows is GET /dashboard/workflows.
func (h *Handler) workflows(w http.ResponseWriter, r *http.Request, id Identity) {
	ws, q := workspaceParam(r), r.URL.Query()
	l := listing{Q: q.Get("q"), Status: q.Get("status"), TaskType: q.Get("task_type"), Folder: q.Get("folder"),
		Statuses: statusFilters, TaskTypes: h.taskTypes(r, ws), Folders: h.folders(r, id), Welcome: q.Get("welcome") != ""}
	query := url.Values{"limit": {"25"}}
	for k, v := range map[string]string{"q": l.Q, "status": l.Status, "task_type": l.TaskType, "folder_id": l.Folder, "cursor": q.Get("cursor")} {
		if v != "" {
			query.Set(k, v)
		}
	}
	me := h.loadChrome(r, id)
	v := view{Title: "Workflows", Me: me, Data: &l}
	if q.Get("folder_deleted") != "" {
		v.Notice = "The folder is deleted; its workflows are now in no folder."
	}
	if l.Welcome {
		v.Notice = "Welcome! We sent a link to " + me.Email + ": open it to confirm your email and receive 2,500 more credits."
	}
	var page struct {
		Workflows  []summary `json:"workflows"`
		Pagination struct {
			Cursor     *string `json:"cursor"`
			TotalCount int     `json:"total_count"`
		} `json:"pagination"`
		Concurrent struct {
			Active int  `json:"active"`
			Limit  *int `json:"limit"`
		} `json:"concurrent_summary"`
	}
	rep := h.api.Call(r, ws, http.MethodGet, "/api/rigor/workflows?"+query.Encode(), nil)
	if p, bad := failed(rep); bad {
		v.Problem = p
		h.render(w, r, p.Status, "workflows", v)
		return
	}
	if !decode(rep, &page) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	l.Rows, l.Total, l.Active, l.Limit = page.Workflows, page.Pagination.TotalCount, page.Concurrent.Active, page.Concurrent.Limit
	if c := page.Pagination.Cursor; c != nil {
		next := r.URL.Query()
		next.Set("cursor", *c)
		l.Next = "/dashboard/workflows?" + next.Encode()
	}
	h.render(w, r, http.StatusOK, "workflows", v)
}

// taskTypes lists the planner's task types, first "any".
func (h *Handler) taskTypes(r *http.Request, ws string) []option {
	var list struct {
		TaskTypes []struct {
			ID    string `json:"id"`
			Label string `json:"label"`
		} `json:"task_types"`
	}
	out := []option{{"", "Any type"}}
	if decode(h.api.Call(r, ws, http.MethodGet, "/api/rigor/task-types", nil), &list) {
		for _, t := range list.TaskTypes {
			out = append(out, option{t.ID, t.Label})
		}
	}
	return out
}

// folders lists the workspace's folders.
func (h *Handler) folders(r *http.Request, id Identity) []folder {
	var list struct {
		Folders []folder `json:"folders"`
	}
	decode(h.api.Call(r, "", http.MethodGet, id.api("/folders"), nil), &list)
	return list.Folders
}

// createFolder is POST /dashboard/folders (member and above).
func (h *Handler) createFolder(w http.ResponseWriter, r *http.Request, id Identity) {
	back := wsQuery("/dashboard/workflows", workspaceParam(r))
	rep := h.api.Call(r, "", http.MethodPost, id.api("/folders"),
		map[string]string{"name": strings.TrimSpace(r.PostFormValue("name"))})
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	var f folder
	decode(rep, &f)
	http.Redirect(w, r, back+sepOf(back)+"folder="+url.QueryEscape(f.ID), http.StatusSeeOther)
}

// Current is the folder the listing is filtered by: nil for none, for
// "not in a folder" and for an id that is no folder of the workspace.
func (l *listing) Current() *folder {
	for i := range l.Folders {
		if l.Folders[i].ID == l.Folder {
			return &l.Folders[i]
		}
	}
	return nil
}

// renameFolder is POST /dashboard/folders/{id}/rename (member and above):
// the listing of the renamed folder.
func (h *Handler) renameFolder(w http.ResponseWriter, r *http.Request, id Identity) {
	fid := r.PathValue("id")
	rep := h.api.Call(r, "", http.MethodPatch, id.api("/folders/"+url.PathEscape(fid)),
		map[string]string{"name": strings.TrimSpace(r.PostFormValue("name"))})
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	back := wsQuery("/dashboard/workflows", workspaceParam(r))
	http.Redirect(w, r, back+sepOf(back)+"folder="+url.QueryEscape(fid), http.StatusSeeOther)
}

// deleteFolder is POST /dashboard/folders/{id}/delete (member and above):
// its workflows stay, in no folder; the whole listing again.
func (h *Handler) deleteFolder(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, "", http.MethodDelete, id.api("/folders/"+url.PathEscape(r.PathValue("id"))), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	back := wsQuery("/dashboard/workflows", workspaceParam(r))
	http.Redirect(w, r, back+sepOf(back)+"folder_deleted=1", http.StatusSeeOther)
}

func sepOf(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}
