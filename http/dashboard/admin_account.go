package dashboard

import (
	"net/http"
	"strings"
	"time"

	"svc/domain/apikey"
)

// The account page: the erasure of all of an organization's data (spec
// B's data deletion, owner only). It lists the organization's deletion
// requests; a request (POST /api/data/delete-request) answers a page
// that says what is deleted and carries the confirmation token in its
// form (never in a URL); confirming needs a ticked box and the word
// DELETE typed, then DELETE /api/data/confirm-deletion. The routes act
// in the organization of the user's default workspace, so the page does
// too, whatever workspace the header shows.

// confirmWord is what the owner types to confirm the deletion.
const confirmWord = "DELETE"

// deletionRow is a deletion request as spec B shows it.
type deletionRow struct {
	ID            string     `json:"id"`
	Status        string     `json:"status"`
	RequestedAt   time.Time  `json:"requested_at"`
	ExpiresAt     *time.Time `json:"expires_at"`
	CompletedAt   *time.Time `json:"completed_at"`
	Error         *string    `json:"error"`
	SoftDeletedAt *time.Time `json:"soft_deleted_at"`
}

// accountView is the account page's data.
type accountView struct {
	// OrgName is the name of the organization's default workspace.
	OrgName  string
	Requests []deletionRow
	Pending  bool
}

// deletionConfirm is the confirmation page's data: the request, its
// token (posted back, never in a URL), and what it erases.
type deletionConfirm struct {
	OrgName           string
	RequestID         string   `json:"request_id"`
	ConfirmationToken string   `json:"confirmation_token"`
	ExpiresAt         string   `json:"-"`
	Warning           string   `json:"warning"`
	AffectedData      []string `json:"affected_data"`
	Word              string
}

// owner is the user's identity in their default workspace, whose
// organization the data routes act in; false (after a refusal page)
// unless they own the organization of the workspace the page shows and
// it is that of their default workspace.
func (h *Handler) owner(w http.ResponseWriter, r *http.Request, id Identity) (Identity, *chrome, bool) {
	me := h.loadChrome(r, id)
	if !id.Can(apikey.Owner) {
		h.errorPage(w, r, me, http.StatusForbidden, "Only an owner of the organization can delete its data. "+
			"Ask an owner if the organization's data should be deleted.")
		return id, me, false
	}
	def, err := h.api.Identity(r, "")
	if err != nil || def.OrgID != id.OrgID || !def.Can(apikey.Owner) {
		h.errorPage(w, r, me, http.StatusForbidden, "Data deletion acts on the organization of your default workspace, "+
			"not on the workspace open here. Switch to your default workspace to open this page.")
		return def, me, false
	}
	return def, me, true
}

// orgName is the name of def's workspace among the user's workspaces.
func orgName(me *chrome, def Identity) string {
	for _, w := range me.Workspaces {
		if w.ID == def.WorkspaceID {
			return w.Name
		}
	}
	return "your organization"
}

// accountPage is GET /dashboard/account.
func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request, id Identity) {
	def, me, ok := h.owner(w, r, id)
	if !ok {
		return
	}
	h.renderAccount(w, r, me, def, nil)
}

func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, me *chrome, def Identity, p *problem) {
	av := accountView{OrgName: orgName(me, def)}
	rep := h.api.Call(r, "", http.MethodGet, "/api/data/delete-request", nil)
	var out struct {
		Requests []deletionRow `json:"requests"`
	}
	if q, bad := failed(rep); bad {
		h.problemPage(w, r, me, q)
		return
	}
	if !decode(rep, &out) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	av.Requests = out.Requests
	for _, d := range av.Requests {
		av.Pending = av.Pending || d.Status == "pending"
	}
	status := http.StatusOK
	if p != nil {
		status = p.Status
	}
	h.render(w, r, status, "admin_account", view{Title: "Account", Me: me, Problem: p, Data: av})
}

// requestDeletion is POST /dashboard/account/delete-request: POST
// /api/data/delete-request; its answer page says what would be deleted
// and asks for the confirmation.
func (h *Handler) requestDeletion(w http.ResponseWriter, r *http.Request, id Identity) {
	def, me, ok := h.owner(w, r, id)
	if !ok {
		return
	}
	rep := h.api.Call(r, "", http.MethodPost, "/api/data/delete-request", nil)
	if p, bad := failed(rep); bad {
		h.renderAccount(w, r, me, def, p)
		return
	}
	var c deletionConfirm
	var at struct {
		ExpiresAt *time.Time `json:"expires_at"`
	}
	if !decode(rep, &c) || c.ConfirmationToken == "" {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return
	}
	decode(rep, &at)
	c.ExpiresAt = formatTime(at.ExpiresAt)
	c.OrgName, c.Word = orgName(me, def), confirmWord
	h.render(w, r, http.StatusOK, "admin_account_confirm", view{Title: "Confirm the deletion", Me: me, Data: c})
}

// confirmDeletion is POST /dashboard/account/confirm-deletion: with the
// box ticked and the word typed, DELETE /api/data/confirm-deletion; then
// a page saying it is done (signed out: the session has ended with the
// organization).
func (h *Handler) confirmDeletion(w http.ResponseWriter, r *http.Request, id Identity) {
	def, me, ok := h.owner(w, r, id)
	if !ok {
		return
	}
	_ = r.ParseForm()
	c := deletionConfirm{OrgName: orgName(me, def), RequestID: r.PostFormValue("request_id"),
		ConfirmationToken: r.PostFormValue("confirmation_token"), ExpiresAt: r.PostFormValue("expires_at"),
		Warning: r.PostFormValue("warning"), AffectedData: r.PostForm["affected_data"], Word: confirmWord}
	if r.PostFormValue("understand") == "" || strings.TrimSpace(r.PostFormValue("confirm_word")) != confirmWord {
		h.render(w, r, http.StatusBadRequest, "admin_account_confirm", view{Title: "Confirm the deletion", Me: me, Data: c,
			Problem: &problem{Status: http.StatusBadRequest, Sentence: "Nothing was deleted: tick the box and type " + confirmWord +
				" (in capitals) to confirm."}})
		return
	}
	rep := h.api.Call(r, "", http.MethodDelete, "/api/data/confirm-deletion",
		map[string]string{"request_id": c.RequestID, "confirmation_token": c.ConfirmationToken})
	if p, bad := failed(rep); bad {
		if p.Code == "invalid_deletion_request" {
			h.renderAccount(w, r, me, def, p)
			return
		}
		h.problemPage(w, r, me, p)
		return
	}
	var out struct {
		Message string `json:"message"`
		Status  string `json:"status"`
	}
	decode(rep, &out)
	h.render(w, r, http.StatusOK, "admin_account_deleted", view{Title: "Your data is deleted", Data: out})
}
