// Package dashboard is the web dashboard: server-rendered pages under
// /dashboard (html/template, embedded with their CSS and one small script),
// served by svc serve. It is a client of the JSON API: every page calls
// the API's routes through API as the signed-in user, so validation, role
// floors, limits and error codes are the routes' own (docs/decisions.md
// 256-270). Forms carry a CSRF token bound to the session (csrf.go); pages
// are never cached, never framed and run no inline script.
package dashboard

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"

	"svc/domain/apikey"
	"svc/domain/org"
)

// Errors of API.Identity.
var (
	// ErrSignedOut: the request has no live session.
	ErrSignedOut = errors.New("dashboard: signed out")
	// ErrNoWorkspace: the user may not act in the workspace named.
	ErrNoWorkspace = errors.New("dashboard: no such workspace")
)

// Identity is the signed-in user acting in a workspace: its organization,
// the user's role there and the organization's tier.
type Identity struct {
	UserID, OrgID, WorkspaceID string
	Role                       apikey.Role
	Tier                       org.Tier
}

// api is the path of the API's route more under the identity's workspace
// (/api/workspaces/{id}more).
func (id Identity) api(more string) string {
	return "/api/workspaces/" + url.PathEscape(id.WorkspaceID) + more
}

// Can reports whether the user's role reaches floor.
func (id Identity) Can(floor apikey.Role) bool { return id.Role.AtLeast(floor) }

// Reply is an API route's answer.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// API is what the dashboard needs of the service: the JSON API's routes,
// served as the user of the browser's request r (its session cookie)
// acting in workspace ws ("" for their default workspace).
type API interface {
	// Identity is r's user acting in ws: ErrSignedOut without a live
	// session, ErrNoWorkspace when they may not act in ws.
	Identity(r *http.Request, ws string) (Identity, error)
	// Call serves the route method path with body (JSON-encoded; nil
	// for none) and returns its answer.
	Call(r *http.Request, ws, method, path string, body any) Reply
	// Stream serves the route path's event stream to w.
	Stream(w http.ResponseWriter, r *http.Request, ws, path string)
}

// Handler serves the dashboard.
type Handler struct {
	api API
	log *slog.Logger
	mux *http.ServeMux
}

// New returns the dashboard over api.
func New(api API, log *slog.Logger) *Handler {
	h := &Handler{api: api, log: log, mux: http.NewServeMux()}
	h.routes()
	return h
}

func (h *Handler) routes() {
	m := h.mux
	m.HandleFunc("GET /dashboard", h.home)
	m.HandleFunc("GET /dashboard/{$}", h.home)
	m.HandleFunc("GET /dashboard/assets/{name}", serveAsset)
	m.HandleFunc("GET /dashboard/login", h.loginPage)
	m.HandleFunc("POST /dashboard/login", h.login)
	m.HandleFunc("GET /dashboard/signup", h.signupPage)
	m.HandleFunc("POST /dashboard/signup", h.signup)
	m.HandleFunc("POST /dashboard/logout", h.logout)
	m.HandleFunc("GET /dashboard/workflows", h.signedIn(h.workflows))
	m.HandleFunc("POST /dashboard/folders", h.signedIn(h.createFolder))
	m.HandleFunc("POST /dashboard/folders/{id}/rename", h.signedIn(h.renameFolder))
	m.HandleFunc("POST /dashboard/folders/{id}/delete", h.signedIn(h.deleteFolder))
	m.HandleFunc("GET /dashboard/new", h.signedIn(h.newTask))
	m.HandleFunc("POST /dashboard/plan", h.signedIn(h.plan))
	m.HandleFunc("POST /dashboard/run", h.signedIn(h.run))
	m.HandleFunc("GET /dashboard/workflows/{id}", h.signedIn(h.workflow))
	m.HandleFunc("GET /dashboard/workflows/{id}/events", h.signedIn(h.events))
	m.HandleFunc("POST /dashboard/workflows/{id}/{action}", h.signedIn(h.control))
	m.HandleFunc("GET /dashboard/connections", h.signedIn(h.connections))
	m.HandleFunc("POST /dashboard/connections", h.signedIn(h.addConnection))
	m.HandleFunc("POST /dashboard/connections/connect", h.signedIn(h.connectProvider))
	m.HandleFunc("POST /dashboard/connections/{id}/{action}", h.signedIn(h.connectionAction))
	m.HandleFunc("GET /dashboard/notifications", h.signedIn(h.notifications))
	m.HandleFunc("POST /dashboard/notifications/read", h.signedIn(h.markRead))
	h.moneyPages(m)
	h.teamPages(m)
	h.adminPages(m)
	m.HandleFunc("/dashboard/", h.notFound)
}

// ServeHTTP sets the headers of every dashboard answer, refuses a
// state-changing request without a valid CSRF token, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := checkCSRF(r); err != nil {
			h.log.InfoContext(r.Context(), "dashboard: refused a form", "reason", err.Error(), "path", r.URL.Path)
			h.errorPage(w, r, nil, http.StatusForbidden, csrfSentence)
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// maxForm bounds a form's body (a task description is at most 10,000
// characters; the rest is small).
const maxForm = 256 << 10

// csp lets a page load its own stylesheet and script, open its own event
// stream and post its own forms, and nothing else: no inline script or
// style, no frames, no other origin.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// signedInFunc is a page of a signed-in user acting in a workspace.
type signedInFunc func(w http.ResponseWriter, r *http.Request, id Identity)

// signedIn resolves the user and the workspace of r (its ws parameter):
// signed out, a page is sent to the login page (and back afterwards).
func (h *Handler) signedIn(next signedInFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := h.api.Identity(r, workspaceParam(r))
		switch {
		case errors.Is(err, ErrSignedOut):
			if h.renew(w, r) {
				return
			}
			if r.Method == http.MethodGet && r.PathValue("action") == "" && !isStream(r) {
				http.Redirect(w, r, "/dashboard/login?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			h.errorPage(w, r, nil, http.StatusUnauthorized, sentence("unauthorized"))
			return
		case errors.Is(err, ErrNoWorkspace):
			h.errorPage(w, r, nil, http.StatusNotFound, "You are not a member of that workspace, or it does not exist.")
			return
		case err != nil:
			h.log.ErrorContext(r.Context(), "dashboard: identity", "error", err)
			h.errorPage(w, r, nil, http.StatusInternalServerError, sentence("internal_error"))
			return
		}
		next(w, r, id)
	}
}

// renew renews r's lapsed session when r carries a refresh cookie and is a
// GET (a page or an event stream): POST /api/auth/refresh, whose new
// cookies the browser gets with a redirect to the same URL. A form posted
// after its session lapsed is refused by its CSRF token all the same (the
// token is derived from the session), so it is not renewed here: the
// user reloads the page, which renews. false when nothing was renewed.
func (h *Handler) renew(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	if c, err := r.Cookie(refreshCookie); err != nil || c.Value == "" {
		return false
	}
	rep := h.api.Call(r, "", http.MethodPost, "/api/auth/refresh", map[string]any{})
	passCookies(w, rep) // a refused token clears the cookies
	if _, bad := failed(rep); bad {
		return false
	}
	http.Redirect(w, r, r.URL.RequestURI(), http.StatusSeeOther)
	return true
}

// home sends a signed-in user to their workflows, anyone else to log in.
func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	_, err := h.api.Identity(r, "")
	switch {
	case err == nil:
		http.Redirect(w, r, "/dashboard/workflows", http.StatusSeeOther)
	case errors.Is(err, ErrSignedOut) && h.renew(w, r):
	default:
		http.Redirect(w, r, "/dashboard/login", http.StatusSeeOther)
	}
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.errorPage(w, r, nil, http.StatusNotFound, "There is no such page.")
}
