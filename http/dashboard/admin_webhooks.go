package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"svc/domain/hook"
)

// The webhooks page: the workspace's event webhooks (list: member;
// create, change, enable or disable, test, rotate the secret, delete:
// admin; Pro and above), the secret shown once like a key, each
// webhook's latest deliveries (admin_webhook_deliveries.go), and the
// delivery log of a run whose results went to a webhook
// (GET /api/rigor/webhooks/deliveries?workflow_id=).

// hookRow is a workspace webhook as spec B shows it.
type hookRow struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	Events      []string  `json:"events"`
	Active      bool      `json:"active"`
	CreatedAt   time.Time `json:"created_at"`
	Secret      string    `json:"secret"`
	// Recent are its latest deliveries (the page's, not the API's);
	// Older continues past them (next_cursor; "" when none);
	// RecentProblem says why they could not be read.
	Recent        []deliveryRow `json:"-"`
	Older         string        `json:"-"`
	RecentProblem *problem      `json:"-"`
}

// Has reports whether the webhook receives event e.
func (w hookRow) Has(e string) bool { return slices.Contains(w.Events, e) }

// deliveryRow is a delivery of a workflow's result webhook, or of a
// workspace webhook.
type deliveryRow struct {
	DeliveryID string `json:"delivery_id"`
	// WorkflowID is the run whose event a workspace webhook's delivery
	// carries ("" in a run's own log).
	WorkflowID     string     `json:"workflow_id"`
	EventType      string     `json:"event_type"`
	URL            string     `json:"url"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	LastStatusCode *int       `json:"last_status_code"`
	LastError      *string    `json:"last_error"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	CreatedAt      time.Time  `json:"created_at"`
	DeliveredAt    *time.Time `json:"delivered_at"`
	Log            []struct {
		Attempt     int       `json:"attempt"`
		AttemptedAt time.Time `json:"attempted_at"`
		StatusCode  *int      `json:"status_code"`
		Error       *string   `json:"error"`
		Delivered   bool      `json:"delivered"`
		DurationMS  int64     `json:"duration_ms"`
	} `json:"log"`
}

// hookEventLabels name the events a webhook may receive (domain/hook).
var hookEventLabels = map[string]string{
	"step_completed": "A step completed", "step_failed": "A step failed", "workflow_completed": "A workflow completed",
	"workflow_failed": "A workflow failed", "approval_requested": "A workflow waits for approval", "timed_out": "A workflow timed out",
}

// noSuchHook is not_found on the webhooks pages.
const noSuchHook = "This webhook does not exist in this workspace: it may have been deleted already."

// hooksView is the webhooks page's data.
type hooksView struct {
	Hooks     []hookRow
	Events    []string // every event a webhook may receive
	CanManage bool
	// Unavailable: the workspace's plan has no webhooks (tier_required).
	Unavailable bool
	// Form is the creation form shown back after a refusal.
	Form hookRow
	// WorkflowID is the delivery log's workflow; Deliveries its log.
	WorkflowID      string
	Deliveries      []deliveryRow
	DeliveryProblem *problem
}

// webhooksPage is GET /dashboard/webhooks.
func (h *Handler) webhooksPage(w http.ResponseWriter, r *http.Request, id Identity) {
	hv := &hooksView{Form: hookRow{Active: true}}
	var notice string
	q := r.URL.Query()
	switch q.Get("done") {
	case "updated":
		notice = "The webhook was changed."
	case "enabled":
		notice = "The webhook is on: it receives its events again."
	case "disabled":
		notice = "The webhook is off: it receives nothing until it is turned on."
	case "deleted":
		notice = "The webhook was deleted."
	case "tested":
		if code := q.Get("code"); q.Get("delivered") == "1" {
			notice = "The test event was delivered: the receiver answered " + code + "."
		} else if code != "" && code != "0" {
			notice = "The test event was not accepted: the receiver answered " + code + "."
		} else {
			notice = "The test event was not delivered: the receiver did not answer."
		}
	}
	h.renderHooks(w, r, id, hv, notice, nil)
}

// renderHooks shows the webhooks page with hv's form and p (nil: none).
func (h *Handler) renderHooks(w http.ResponseWriter, r *http.Request, id Identity, hv *hooksView, notice string, p *problem) {
	me := h.loadChrome(r, id)
	if !id.may("workspaces.webhooks.list") {
		h.errorPage(w, r, me, http.StatusForbidden, "Webhooks are shown to the members, admins and owners of a workspace; your role here does not include them.")
		return
	}
	hv.Events, hv.CanManage = hook.Events, id.may("workspaces.webhooks.create")
	status := http.StatusOK
	rep := h.api.Call(r, "", http.MethodGet, id.api("/webhooks"), nil)
	var list struct {
		Webhooks []hookRow `json:"webhooks"`
	}
	switch q, bad := failed(rep); {
	case bad && q.Code == "tier_required":
		hv.Unavailable = true
	case bad:
		h.problemPage(w, r, me, q)
		return
	case !decode(rep, &list):
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	hv.Hooks = list.Webhooks
	if id.may("workspaces.webhooks.deliveries") {
		for i := range hv.Hooks {
			h.recentDeliveries(r, id, &hv.Hooks[i])
		}
	}
	if p != nil {
		status = p.Status
	}
	hv.WorkflowID = strings.TrimSpace(r.URL.Query().Get("workflow_id"))
	if hv.WorkflowID != "" {
		var out struct {
			Deliveries []deliveryRow `json:"deliveries"`
		}
		rep := h.api.Call(r, workspaceParam(r), http.MethodGet, "/api/rigor/webhooks/deliveries?workflow_id="+url.QueryEscape(hv.WorkflowID), nil)
		if q, bad := failed(rep); bad {
			hv.DeliveryProblem = notFoundAs(q, "No workflow with this id exists in your organization. Check the id (it starts with wr_).")
		} else if !decode(rep, &out) {
			hv.DeliveryProblem = &problem{Status: http.StatusBadGateway, Sentence: sentence("internal_error")}
		}
		hv.Deliveries = out.Deliveries
	}
	h.render(w, r, status, "admin_webhooks", view{Title: "Webhooks", Me: me, Notice: notice, Problem: p, Data: hv})
}

// hookForm reads a webhook's settings from the form: url, description,
// the events checked, active.
func hookForm(r *http.Request) hookRow {
	_ = r.ParseForm()
	return hookRow{URL: strings.TrimSpace(r.PostFormValue("url")), Description: strings.TrimSpace(r.PostFormValue("description")),
		Events: r.PostForm["events"], Active: r.PostFormValue("active") != ""}
}

// createWebhook is POST /dashboard/webhooks: POST .../webhooks; the
// answer page shows the signing secret, this once.
func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request, id Identity) {
	f := hookForm(r)
	events := f.Events
	if events == nil {
		events = []string{}
	}
	rep := h.api.Call(r, "", http.MethodPost, id.api("/webhooks"),
		map[string]any{"url": f.URL, "description": f.Description, "events": events, "active": f.Active})
	if p, bad := failed(rep); bad {
		h.renderHooks(w, r, id, &hooksView{Form: f}, "", p)
		return
	}
	var out hookRow
	me := h.loadChrome(r, id)
	if !decode(rep, &out) || out.Secret == "" {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	h.render(w, r, http.StatusCreated, "admin_webhook_secret", view{Title: "Your webhook's secret", Me: me,
		Data: hookSecret{Hook: out, Secret: out.Secret, Created: true}})
}

// hookSecret is the page that shows a signing secret once.
type hookSecret struct {
	Hook    hookRow
	Secret  string
	Created bool
	// PreviousUntil is when the previous secret stops signing (a rotation).
	PreviousUntil *time.Time
}

// hookOf is the workspace's webhook hookID, false when it has none.
func (h *Handler) hookOf(r *http.Request, id Identity, hookID string) (hookRow, bool) {
	var list struct {
		Webhooks []hookRow `json:"webhooks"`
	}
	decode(h.api.Call(r, "", http.MethodGet, id.api("/webhooks"), nil), &list)
	for _, w := range list.Webhooks {
		if w.ID == hookID {
			return w, true
		}
	}
	return hookRow{}, false
}

// webhookConfirm is GET /dashboard/webhooks/{hook}/{action}: the
// confirmation of delete or rotate.
func (h *Handler) webhookConfirm(w http.ResponseWriter, r *http.Request, id Identity) {
	action := r.PathValue("action")
	if action != "delete" && action != "rotate" {
		h.notFound(w, r)
		return
	}
	me := h.loadChrome(r, id)
	if !id.may("workspaces.webhooks.delete") {
		h.errorPage(w, r, me, http.StatusForbidden, "Only the admins and owners of a workspace may change its webhooks.")
		return
	}
	hk, ok := h.hookOf(r, id, r.PathValue("hook"))
	if !ok {
		h.errorPage(w, r, me, http.StatusNotFound, noSuchHook)
		return
	}
	h.render(w, r, http.StatusOK, "admin_webhook_confirm", view{Title: "Confirm", Me: me,
		Data: struct {
			Hook   hookRow
			Action string
		}{hk, action}})
}

// webhookAction is POST /dashboard/webhooks/{hook}/{action}: update,
// enable, disable, test, rotate or delete, through its route.
func (h *Handler) webhookAction(w http.ResponseWriter, r *http.Request, id Identity) {
	path := id.api("/webhooks/" + url.PathEscape(r.PathValue("hook")))
	q := url.Values{}
	var rep Reply
	switch action := r.PathValue("action"); action {
	case "update":
		f := hookForm(r)
		events := f.Events
		if events == nil {
			events = []string{}
		}
		rep = h.api.Call(r, "", http.MethodPatch, path, map[string]any{"url": f.URL, "description": f.Description, "events": events, "active": f.Active})
		q.Set("done", "updated")
	case "enable", "disable":
		rep = h.api.Call(r, "", http.MethodPatch, path, map[string]any{"active": action == "enable"})
		q.Set("done", action+"d")
	case "test":
		rep = h.api.Call(r, "", http.MethodPost, path+"/test", nil)
		var out struct {
			Delivered  bool `json:"delivered"`
			StatusCode int  `json:"status_code"`
		}
		decode(rep, &out)
		q.Set("done", "tested")
		q.Set("code", strconv.Itoa(out.StatusCode))
		if out.Delivered {
			q.Set("delivered", "1")
		}
	case "rotate":
		h.rotateSecret(w, r, id, path)
		return
	case "delete":
		rep = h.api.Call(r, "", http.MethodDelete, path, nil)
		q.Set("done", "deleted")
	default:
		h.notFound(w, r)
		return
	}
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), notFoundAs(p, noSuchHook))
		return
	}
	adminBack(w, r, "/dashboard/webhooks", q)
}

// rotateSecret is the rotate action: POST .../rotate-secret with the
// form's overlap_hours; the answer page shows the new secret, this once.
func (h *Handler) rotateSecret(w http.ResponseWriter, r *http.Request, id Identity, path string) {
	body := map[string]any{}
	if v := strings.TrimSpace(r.PostFormValue("overlap_hours")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			h.problemPage(w, r, h.loadChrome(r, id), &problem{Status: http.StatusBadRequest, Sentence: sentence("invalid_field"),
				Field: "overlap_hours", Detail: "Give a whole number of hours from 0 to 168."})
			return
		}
		body["overlap_hours"] = n
	}
	rep := h.api.Call(r, "", http.MethodPost, path+"/rotate-secret", body)
	me := h.loadChrome(r, id)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, me, notFoundAs(p, noSuchHook))
		return
	}
	var out struct {
		Secret                  string     `json:"secret"`
		PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
	}
	if !decode(rep, &out) || out.Secret == "" {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	hk, _ := h.hookOf(r, id, r.PathValue("hook"))
	h.render(w, r, http.StatusOK, "admin_webhook_secret", view{Title: "Your webhook's new secret", Me: me,
		Data: hookSecret{Hook: hk, Secret: out.Secret, PreviousUntil: out.PreviousSecretExpiresAt}})
}
