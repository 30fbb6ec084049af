package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"svc/domain/org"
)

// The workspace page: the workspace the page acts in (its name, rename,
// archive with a confirmation step), links to its members and settings,
// the user's other workspaces and a new workspace.

// teamWorkspace is a workspace as GET /api/workspaces/{id} answers it.
type teamWorkspace struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Slug       string     `json:"slug"`
	IsDefault  bool       `json:"is_default"`
	ArchivedAt *time.Time `json:"archived_at"`
	CreatedAt  time.Time  `json:"created_at"`
	Tier       org.Tier   `json:"account_tier"`
	LLMPolicy  *struct {
		AllowedModels []string `json:"allowed_models"`
	} `json:"llm_policy"`
	Budget *struct {
		Monthly   int64 `json:"monthly_credit_budget"`
		Used      int64 `json:"monthly_credits_used"`
		Remaining int64 `json:"budget_remaining"`
	} `json:"budget"`
}

// teamWorkspaceData is the workspace page's.
type teamWorkspaceData struct {
	W       teamWorkspace
	Members int
	Others  []wsOption
	// CanCreate: the user's own organization's plan has room for more
	// workspaces than the default one.
	CanCreate, CanRename, CanArchive bool
	// CanRestore: this workspace is archived and the user may restore it;
	// Archived: the archived workspaces they may restore
	CanRestore bool
	Archived   []teamWorkspace
	// a refused name (Rename) or new workspace's name (NewName), shown back
	Rename, NewName string
}

// teamWorkspaceNotices are the notices of done= after a form.
var teamWorkspaceNotices = map[string]string{
	"renamed":  "The workspace was renamed.",
	"created":  "The workspace was created. You are its owner.",
	"archived": "The workspace was archived. Its members no longer see it.",
	"restored": "The workspace was restored.",
}

// teamLoadWorkspace reads the workspace of id: false, having shown the
// refusal, when the API refuses it.
func (h *Handler) teamLoadWorkspace(w http.ResponseWriter, r *http.Request, id Identity, me *chrome) (teamWorkspace, bool) {
	var ws teamWorkspace
	rep := h.api.Call(r, "", http.MethodGet, id.api(""), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, me, p)
		return ws, false
	}
	if !decode(rep, &ws) {
		h.errorPage(w, r, me, http.StatusBadGateway, sentence("internal_error"))
		return ws, false
	}
	return ws, true
}

// teamWorkspaceView is the workspace page's view, status and all, or false
// when it could not be read (and was answered).
func (h *Handler) teamWorkspaceView(w http.ResponseWriter, r *http.Request, id Identity) (view, *teamWorkspaceData, bool) {
	me := h.loadChrome(r, id)
	ws, ok := h.teamLoadWorkspace(w, r, id, me)
	if !ok {
		return view{}, nil, false
	}
	d := &teamWorkspaceData{W: ws, CanRename: id.may("workspaces.rename") && ws.ArchivedAt == nil,
		CanArchive: id.may("workspaces.archive") && !ws.IsDefault && ws.ArchivedAt == nil}
	for _, o := range me.Workspaces {
		if o.ID != ws.ID {
			d.Others = append(d.Others, o)
		}
	}
	if own, err := h.api.Identity(r, ""); err == nil {
		d.CanCreate = teamManyWorkspaces(own.Tier)
	}
	d.CanRestore = ws.ArchivedAt != nil && teamMayRestore(id)
	d.Archived = h.teamArchived(r)
	var members struct {
		Members []teamMember `json:"members"`
	}
	if decode(h.api.Call(r, "", http.MethodGet, id.api("/members"), nil), &members) {
		d.Members = len(members.Members)
	}
	v := view{Title: "Workspace " + ws.Name, Me: me, Data: d, Notice: teamWorkspaceNotices[r.URL.Query().Get("done")]}
	if r.URL.Query().Get("done") == "joined" {
		v.Notice = "Welcome! You joined " + ws.Name + " as " + string(id.Role) + "."
	}
	return v, d, true
}

// teamMayRestore reports whether the user may restore a workspace where
// they act as id: owner, on the Team or Enterprise plan.
func teamMayRestore(id Identity) bool {
	return id.may("workspaces.restore") && teamManyWorkspaces(id.Tier)
}

// teamArchived lists the archived workspaces the user may restore.
func (h *Handler) teamArchived(r *http.Request) []teamWorkspace {
	var list struct {
		Workspaces []teamWorkspace `json:"workspaces"`
	}
	if !decode(h.api.Call(r, "", http.MethodGet, "/api/workspaces?include_archived=true", nil), &list) {
		return nil
	}
	var out []teamWorkspace
	for _, w := range list.Workspaces {
		if w.ArchivedAt == nil {
			continue
		}
		if id, err := h.api.Identity(r, w.ID); err == nil && teamMayRestore(id) {
			out = append(out, w)
		}
	}
	return out
}

// teamWorkspacePage is GET /dashboard/workspace.
func (h *Handler) teamWorkspacePage(w http.ResponseWriter, r *http.Request, id Identity) {
	if v, _, ok := h.teamWorkspaceView(w, r, id); ok {
		h.render(w, r, http.StatusOK, "team_workspace", v)
	}
}

// teamRename is POST /dashboard/workspace/rename (admin): PUT
// /api/workspaces/{id}.
func (h *Handler) teamRename(w http.ResponseWriter, r *http.Request, id Identity) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	rep := h.api.Call(r, "", http.MethodPut, id.api(""), map[string]string{"name": name})
	if p, bad := failed(rep); bad {
		if v, d, ok := h.teamWorkspaceView(w, r, id); ok {
			d.Rename = name
			h.teamRefused(w, r, "team_workspace", v, p)
		}
		return
	}
	teamBack(w, r, "/dashboard/workspace", "renamed")
}

// teamCreate is POST /dashboard/workspace/create: POST
// /api/workspaces in the user's own organization, then the new
// workspace's page.
func (h *Handler) teamCreate(w http.ResponseWriter, r *http.Request, id Identity) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	rep := h.api.Call(r, "", http.MethodPost, "/api/workspaces", map[string]string{"name": name})
	if p, bad := failed(rep); bad {
		if v, d, ok := h.teamWorkspaceView(w, r, id); ok {
			d.NewName = name
			h.teamRefused(w, r, "team_workspace", v, p)
		}
		return
	}
	var ws teamWorkspace
	if !decode(rep, &ws) || ws.ID == "" {
		h.errorPage(w, r, h.loadChrome(r, id), http.StatusBadGateway, sentence("internal_error"))
		return
	}
	http.Redirect(w, r, "/dashboard/workspace?ws="+url.QueryEscape(ws.ID)+"&done=created", http.StatusSeeOther)
}

// teamArchiveConfirm is GET /dashboard/workspace/archive: the confirmation
// step before archiving.
func (h *Handler) teamArchiveConfirm(w http.ResponseWriter, r *http.Request, id Identity) {
	me := h.loadChrome(r, id)
	ws, ok := h.teamLoadWorkspace(w, r, id, me)
	if !ok {
		return
	}
	if !id.may("workspaces.archive") {
		h.errorPage(w, r, me, http.StatusForbidden, sentence("forbidden"))
		return
	}
	h.render(w, r, http.StatusOK, "team_confirm", view{Title: "Archive " + ws.Name, Me: me, Data: teamArchiveQuestion(ws)})
}

// teamConfirm is a destructive action's confirmation page.
type teamConfirm struct {
	Heading, Text, Action, Button, Cancel string
}

func teamArchiveQuestion(ws teamWorkspace) teamConfirm {
	return teamConfirm{Heading: "Archive the workspace " + ws.Name + "?",
		Text: "Its members and API keys lose access to it, and it is no longer listed. Its workflows, " +
			"members and settings are kept: an owner on the Team or Enterprise plan can restore it.",
		Action: "/dashboard/workspace/archive", Button: "Archive the workspace", Cancel: "/dashboard/workspace"}
}

// teamArchive is POST /dashboard/workspace/archive (admin): DELETE
// /api/workspaces/{id}, then the default workspace's page.
func (h *Handler) teamArchive(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, "", http.MethodDelete, id.api(""), nil)
	if p, bad := failed(rep); bad {
		if p.Code == "forbidden" && id.may("workspaces.archive") {
			p.Sentence = "The default workspace cannot be archived."
		}
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	http.Redirect(w, r, "/dashboard/workspace?done=archived", http.StatusSeeOther)
}

// teamRestore is POST /dashboard/workspace/restore?ws=... (owner; Team
// and Enterprise): POST /api/workspaces/{id}/restore, then its page. The
// workspace is in the action's query, so a form on another workspace's
// page acts on it.
func (h *Handler) teamRestore(w http.ResponseWriter, r *http.Request, id Identity) {
	rep := h.api.Call(r, "", http.MethodPost, id.api("/restore"), nil)
	if p, bad := failed(rep); bad {
		h.problemPage(w, r, h.loadChrome(r, id), p)
		return
	}
	http.Redirect(w, r, "/dashboard/workspace?ws="+url.QueryEscape(id.WorkspaceID)+"&done=restored", http.StatusSeeOther)
}
