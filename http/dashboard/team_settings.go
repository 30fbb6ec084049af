package dashboard

import (
	"net/http"
	"strings"
	"time"

	"svc/domain/workspace"
)

// The workspace's settings page: its monthly credit budget and its LLM
// model policy (both Team and Enterprise; edited by admins).

// teamBudget is GET /api/workspaces/{id}/budget's answer.
type teamBudget struct {
	Monthly *int64    `json:"monthly_credit_budget"`
	Spent   int64     `json:"current_month_spend"`
	Pct     float64   `json:"budget_utilization_pct"`
	ResetAt time.Time `json:"reset_at"`
}

// teamPolicy is GET /api/workspaces/{id}/llm-policy's answer.
type teamPolicy struct {
	Allowed     []string   `json:"allowed_models"`
	Enforcement *string    `json:"enforcement_status"`
	UpdatedAt   *time.Time `json:"updated_at"`
	Available   []string   `json:"available_models"`
}

// teamSettingsData is the settings page's.
type teamSettingsData struct {
	WorkspaceName string
	Budget        *teamBudget // nil: the API refused it (the problem says why)
	Policy        *teamPolicy // nil below the Team plan
	// Team: the plan has budgets and policies; Can*: and the role may
	// change them
	Team, CanBudget, CanPolicy bool
	BudgetValue                string // a refused budget, shown back
}

// teamSettingsView reads the settings page: false when the workspace could not
// be read (the refusal is shown).
func (h *Handler) teamSettingsView(w http.ResponseWriter, r *http.Request, id Identity) (view, *teamSettingsData, bool) {
	me := h.loadChrome(r, id)
	ws, ok := h.teamLoadWorkspace(w, r, id, me)
	if !ok {
		return view{}, nil, false
	}
	team := workspace.BudgetsAllowed(id.Tier) && workspace.PoliciesAllowed(id.Tier)
	d := &teamSettingsData{WorkspaceName: ws.Name, Team: team,
		CanBudget: team && id.may("workspaces.budget.set"), CanPolicy: team && id.may("workspaces.llm_policy.set")}
	v := view{Title: "Settings of " + ws.Name, Me: me, Data: d}
	switch r.URL.Query().Get("done") {
	case "budget":
		v.Notice = "The budget was saved."
	case "policy":
		v.Notice = "The model policy was saved."
	}
	var b teamBudget
	rep := h.api.Call(r, "", http.MethodGet, id.api("/budget"), nil)
	if p, bad := failed(rep); bad {
		v.Problem = p
	} else if decode(rep, &b) {
		d.Budget = &b
		if b.Monthly != nil {
			d.BudgetValue = teamPlain(*b.Monthly)
		}
	}
	if team {
		var pol teamPolicy
		rep := h.api.Call(r, "", http.MethodGet, id.api("/llm-policy"), nil)
		if p, bad := failed(rep); bad {
			v.Problem = p
		} else if decode(rep, &pol) {
			d.Policy = &pol
		}
	}
	return v, d, true
}

func teamPlain(n int64) string { return strings.ReplaceAll(formatInt(n), ",", "") }

// teamSettingsPage is GET /dashboard/workspace/settings.
func (h *Handler) teamSettingsPage(w http.ResponseWriter, r *http.Request, id Identity) {
	if v, _, ok := h.teamSettingsView(w, r, id); ok {
		h.render(w, r, http.StatusOK, "team_settings", v)
	}
}

const teamSettingsPath = "/dashboard/workspace/settings"

// teamSetBudget is POST /dashboard/workspace/budget (admin): PUT .../budget
// with the number entered, or null (no limit) when it is empty.
func (h *Handler) teamSetBudget(w http.ResponseWriter, r *http.Request, id Identity) {
	raw := strings.ReplaceAll(strings.TrimSpace(r.PostFormValue("monthly_credit_budget")), ",", "")
	var budget any
	if raw != "" {
		budget = teamNumber(raw)
	}
	rep := h.api.Call(r, "", http.MethodPut, id.api("/budget"), map[string]any{"monthly_credit_budget": budget})
	if p, bad := failed(rep); bad {
		if v, d, ok := h.teamSettingsView(w, r, id); ok {
			d.BudgetValue = raw
			h.teamRefused(w, r, "team_settings", v, p)
		}
		return
	}
	teamBack(w, r, teamSettingsPath, "budget")
}

// teamSetPolicy is POST /dashboard/workspace/llm-policy (admin): PUT
// .../llm-policy with the models checked, or null (no policy) for the
// remove button.
func (h *Handler) teamSetPolicy(w http.ResponseWriter, r *http.Request, id Identity) {
	var allowed any
	if r.PostFormValue("remove") == "" {
		models := r.PostForm["allowed_models"]
		if models == nil {
			models = []string{}
		}
		allowed = models
	}
	rep := h.api.Call(r, "", http.MethodPut, id.api("/llm-policy"), map[string]any{"allowed_models": allowed})
	if p, bad := failed(rep); bad {
		if v, _, ok := h.teamSettingsView(w, r, id); ok {
			h.teamRefused(w, r, "team_settings", v, p)
		}
		return
	}
	teamBack(w, r, teamSettingsPath, "policy")
}
