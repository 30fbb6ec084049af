package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// A new task: the form, then its plan and cost (POST /api/rigor/plan,
// free), then the run (POST /api/rigor/execute of the stored plan,
// delivered by polling: the workflow page follows it live).

// taskForm is the new-task form's values.
type taskForm struct {
	Description, TaskType, Rigor string
	RequireApproval              bool
	TaskTypes                    []option
	Rigors                       []option
	// Plans is the plan of the description (several for a description of
	// several intents); empty before planning.
	Plans     []plan
	Title     string
	Total     int64
	Info      []string
	Warnings  []warning
	CanRun    bool // member and above
	CanStepBy bool // interactive runs: a paid tier
}

type plan struct {
	WorkflowID     string `json:"workflow_id"`
	Classification struct {
		TaskType   string `json:"task_type"`
		ValueClass string `json:"value_class"`
	} `json:"classification"`
	Sequence []struct {
		Step             int    `json:"step"`
		Name             string `json:"name"`
		EstimatedCredits int64  `json:"estimated_credits"`
		PriorityClass    string `json:"priority_class"`
	} `json:"sequence"`
	Cost struct {
		Credits int64 `json:"credits"`
		Range   *struct {
			Min int64 `json:"estimated_min"`
			Max int64 `json:"estimated_max"`
		} `json:"range"`
	} `json:"cost"`
	Alternatives map[string]struct {
		Steps int `json:"steps"`
		Cost  struct {
			Credits int64 `json:"credits"`
		} `json:"cost"`
		Tradeoff string `json:"tradeoff"`
	} `json:"alternatives"`
	Info       []string  `json:"info"`
	Warnings   []warning `json:"warnings"`
	RigorLevel string    `json:"rigor_level"`
}

type warning struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion"`
}

var rigors = []option{{"", "Chosen for the task"}, {"quick", "Quick"}, {"standard", "Standard"}, {"thorough", "Thorough"}}

func (h *Handler) taskForm(r *http.Request, id Identity) *taskForm {
	return &taskForm{TaskTypes: h.taskTypes(r, workspaceParam(r)), Rigors: rigors,
		CanRun: id.may("rigor.execute"), CanStepBy: id.Tier.IsPaid()}
}

// newTask is GET /dashboard/new.
func (h *Handler) newTask(w http.ResponseWriter, r *http.Request, id Identity) {
	f := h.taskForm(r, id)
	f.TaskTypes[0].Label = "Let the service decide"
	h.render(w, r, http.StatusOK, "new", view{Title: "New task", Me: h.loadChrome(r, id), Data: f})
}

// plan is POST /dashboard/plan: the form again, with the plan and its cost.
func (h *Handler) plan(w http.ResponseWriter, r *http.Request, id Identity) {
	f := h.taskForm(r, id)
	f.TaskTypes[0].Label = "Let the service decide"
	f.Description, f.TaskType, f.Rigor = strings.TrimSpace(r.PostFormValue("task_description")), r.PostFormValue("task_type"), r.PostFormValue("rigor_level")
	f.RequireApproval = r.PostFormValue("require_approval") != ""
	body := map[string]any{"task_description": f.Description}
	if f.TaskType != "" {
		body["task_type"] = f.TaskType
	}
	prefs := map[string]any{}
	if f.Rigor != "" {
		prefs["rigor_level"] = f.Rigor
	}
	if f.RequireApproval {
		prefs["require_approval"] = true
	}
	if len(prefs) > 0 {
		body["preferences"] = prefs
	}
	v := view{Title: "New task", Me: h.loadChrome(r, id), Data: f}
	rep := h.api.Call(r, workspaceParam(r), http.MethodPost, "/api/rigor/plan", body)
	if p, bad := failed(rep); bad {
		v.Problem = p
		h.render(w, r, p.Status, "new", v)
		return
	}
	if !readPlans(rep, f) {
		h.errorPage(w, r, v.Me, http.StatusBadGateway, sentence("plan_error"))
		return
	}
	v.Title = "Plan: " + f.Title
	h.render(w, r, http.StatusOK, "new", v)
}

// readPlans reads plan's answer, one plan or several, into f.
func readPlans(rep Reply, f *taskForm) bool {
	var out struct {
		Title string          `json:"generated_title"`
		Plan  json.RawMessage `json:"plan"`
	}
	if !decode(rep, &out) {
		return false
	}
	var multi struct {
		Plans     []plan `json:"plans"`
		TotalCost struct {
			Credits int64 `json:"credits"`
		} `json:"total_cost"`
		Info     []string  `json:"info"`
		Warnings []warning `json:"warnings"`
	}
	if json.Unmarshal(out.Plan, &multi) != nil {
		return false
	}
	f.Title = out.Title
	if len(multi.Plans) > 0 {
		f.Plans, f.Total, f.Info, f.Warnings = multi.Plans, multi.TotalCost.Credits, multi.Info, multi.Warnings
		return true
	}
	var one plan
	if json.Unmarshal(out.Plan, &one) != nil || one.WorkflowID == "" {
		return false
	}
	f.Plans, f.Total, f.Info, f.Warnings = []plan{one}, one.Cost.Credits, one.Info, one.Warnings
	return true
}

// run is POST /dashboard/run: execute a stored plan, then its page.
func (h *Handler) run(w http.ResponseWriter, r *http.Request, id Identity) {
	ws, wf := workspaceParam(r), r.PostFormValue("workflow_id")
	body := map[string]any{"workflow_id": wf, "delivery": map[string]string{"method": "polling"}}
	if r.PostFormValue("mode") == "interactive" {
		body["mode"] = "interactive"
	}
	rep := h.api.Call(r, ws, http.MethodPost, "/api/rigor/execute", body)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	http.Redirect(w, r, wsQuery("/dashboard/workflows/"+url.PathEscape(wf), ws), http.StatusSeeOther)
}
