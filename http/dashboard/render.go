package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the templates by name (templates/NAME.html), each parsed
// with the layout.
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(path.Base(file), ".html")
		if name == "layout" {
			continue
		}
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFS, "templates/layout.html", file))
	}
	return out
}()

// funcs are the templates' functions: each page area may declare its own.
var funcs = func() template.FuncMap {
	out := template.FuncMap{}
	for _, m := range []template.FuncMap{coreFuncs, moneyFuncs, teamFuncs, adminFuncs} {
		for k, f := range m {
			if _, dup := out[k]; dup {
				panic("dashboard: two page areas declare the template function " + k)
			}
			out[k] = f
		}
	}
	return out
}()

var coreFuncs = template.FuncMap{
	"credits": func(n any) string { return formatInt(toInt(n)) },
	"usd":     func(n any) string { return "$" + strconv.FormatFloat(float64(toInt(n))/1000, 'f', 2, 64) },
	"asset":   assetURL,
	"prose":   prose,
	"when":    formatTime,
	"label":   label,
	"human":   func(s string) string { return strings.ReplaceAll(s, "_", " ") },
	"typeName": func(s string) string { // blog_post: Blog post
		s = strings.ReplaceAll(s, "_", " ")
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + s[1:]
	},
	"wsq": wsQuery,
}

// view is what every page's layout shows.
type view struct {
	Title string
	CSRF  string
	// WS is the workspace the page acts in, as its links carry it ("" the
	// user's default).
	WS      string
	Me      *chrome // nil signed out
	Notice  string
	Problem *problem
	Data    any
}

// chrome is the signed-in user's header: who, where, with which role and
// balance.
type chrome struct {
	Identity
	Email, Name   string
	WorkspaceName string
	Workspaces    []wsOption
	Balance       *int64
	Unread        int // unread notifications
}

type wsOption struct {
	ID, Name string
	Current  bool
}

// May reports whether the user's role reaches the floor of API route
// (templates: .Me.May "workspaces.folders.create").
func (c *chrome) May(route string) bool { return c != nil && c.may(route) }

// loadChrome reads the header's facts from the API: the user, their
// workspaces, the balance and the unread notifications. A part the API
// refuses is left out.
func (h *Handler) loadChrome(r *http.Request, id Identity) *chrome {
	c := &chrome{Identity: id}
	var me struct {
		Email       *string `json:"email"`
		DisplayName string  `json:"display_name"`
	}
	if decode(h.api.Call(r, "", http.MethodGet, "/api/user/me", nil), &me) {
		c.Name = me.DisplayName
		if me.Email != nil {
			c.Email = *me.Email
		}
	}
	var list struct {
		Workspaces []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"workspaces"`
	}
	if decode(h.api.Call(r, "", http.MethodGet, "/api/workspaces", nil), &list) {
		for _, w := range list.Workspaces {
			c.Workspaces = append(c.Workspaces, wsOption{ID: w.ID, Name: w.Name, Current: w.ID == id.WorkspaceID})
			if w.ID == id.WorkspaceID {
				c.WorkspaceName = w.Name
			}
		}
	}
	var bal struct {
		Balance int64 `json:"balance"`
	}
	if decode(h.api.Call(r, workspaceParam(r), http.MethodGet, "/api/billing/balance", nil), &bal) {
		c.Balance = &bal.Balance
	}
	var count struct {
		Unread int `json:"unread_count"`
	}
	if decode(h.api.Call(r, workspaceParam(r), http.MethodGet, "/api/notifications/count", nil), &count) {
		c.Unread = count.Unread
	}
	return c
}

// decode reads a successful reply into v; false for a refusal or a body
// it cannot read.
func decode(rep Reply, v any) bool {
	return rep.Status < http.StatusBadRequest && json.Unmarshal(rep.Body, v) == nil
}

// render writes page name with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	if v.CSRF == "" {
		v.CSRF = csrfToken(r)
	}
	if v.WS == "" {
		v.WS = workspaceParam(r)
	}
	var b bytes.Buffer
	if err := pages[name].Execute(&b, v); err != nil {
		h.log.ErrorContext(r.Context(), "dashboard: render", "page", name, "error", err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// errorPage shows a sentence (or p) with status; me is the header, when
// the user is known.
func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, me *chrome, status int, sentence string) {
	h.problemPage(w, r, me, &problem{Status: status, Sentence: sentence})
}

func (h *Handler) problemPage(w http.ResponseWriter, r *http.Request, me *chrome, p *problem) {
	h.render(w, r, p.Status, "error", view{Title: "Something is wrong", Me: me, Problem: p})
}

// workspaceParam is the workspace a request names (ws in the query or
// the form): "" for the user's default.
func workspaceParam(r *http.Request) string {
	if v := r.URL.Query().Get("ws"); v != "" {
		return v
	}
	if r.Method == http.MethodPost {
		return r.PostFormValue("ws")
	}
	return ""
}

// wsQuery is path with the workspace a page acts in.
func wsQuery(path, ws string) string {
	if ws == "" {
		return path
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "ws=" + url.QueryEscape(ws)
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

func isStream(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/events") }

// formatInt writes n with thousands separators (12,345).
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// toInt is a template's number as an int64 (0 for anything else).
func toInt(n any) int64 {
	switch v := n.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case *int64:
		if v != nil {
			return *v
		}
	case float64:
		return int64(v)
	}
	return 0
}

// formatTime is t in UTC, to the minute; "" for the zero time or nil.
func formatTime(t any) string {
	var v time.Time
	switch x := t.(type) {
	case time.Time:
		v = x
	case *time.Time:
		if x == nil {
			return ""
		}
		v = *x
	}
	if v.IsZero() {
		return ""
	}
	return v.UTC().Format("2 Jan 2006 15:04 UTC")
}
