package dashboard

import (
	"net/http"
	"net/url"
	"strings"
)

// Signing up, in and out: the forms post here, and the pages call spec
// B's routes (POST /api/auth/signup, login, logout), which set or clear
// the session cookie: the dashboard passes their Set-Cookie on.

// authForm is what the login and signup pages show back.
type authForm struct {
	Email, Name, Next string
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, err := h.api.Identity(r, ""); err == nil {
		http.Redirect(w, r, nextPath(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	r = ensureNonce(w, r)
	v := view{Title: "Log in", Data: authForm{Next: r.URL.Query().Get("next")}}
	if r.URL.Query().Get("signed_out") != "" {
		v.Notice = "You are signed out."
	}
	h.render(w, r, http.StatusOK, "login", v)
}

func (h *Handler) signupPage(w http.ResponseWriter, r *http.Request) {
	if _, err := h.api.Identity(r, ""); err == nil {
		http.Redirect(w, r, "/dashboard/workflows", http.StatusSeeOther)
		return
	}
	r = ensureNonce(w, r)
	h.render(w, r, http.StatusOK, "signup", view{Title: "Sign up", Data: authForm{}})
}

// login is POST /dashboard/login: POST /api/auth/login, then next.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	f := authForm{Email: strings.TrimSpace(r.PostFormValue("email")), Next: r.PostFormValue("next")}
	rep := h.api.Call(r, "", http.MethodPost, "/api/auth/login",
		map[string]string{"email": f.Email, "password": r.PostFormValue("password")})
	if p, bad := failed(rep); bad {
		h.render(w, r, p.Status, "login", view{Title: "Log in", Problem: p, Data: f})
		return
	}
	passCookies(w, rep)
	http.Redirect(w, r, nextPath(f.Next), http.StatusSeeOther)
}

// signup is POST /dashboard/signup: POST /api/auth/signup (which mails
// the confirmation link), then the workflows with a welcome.
func (h *Handler) signup(w http.ResponseWriter, r *http.Request) {
	f := authForm{Email: strings.TrimSpace(r.PostFormValue("email")), Name: strings.TrimSpace(r.PostFormValue("name"))}
	body := map[string]string{"email": f.Email, "password": r.PostFormValue("password")}
	if f.Name != "" {
		body["name"] = f.Name
	}
	rep := h.api.Call(r, "", http.MethodPost, "/api/auth/signup", body)
	if p, bad := failed(rep); bad {
		h.render(w, r, p.Status, "signup", view{Title: "Sign up", Problem: p, Data: f})
		return
	}
	passCookies(w, rep)
	http.Redirect(w, r, "/dashboard/workflows?welcome=1", http.StatusSeeOther)
}

// logout is POST /dashboard/logout: POST /api/auth/logout, then the login
// page. A session that had already ended is signed out all the same.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	rep := h.api.Call(r, "", http.MethodPost, "/api/auth/logout", nil)
	if p, bad := failed(rep); bad && p.Status != http.StatusUnauthorized {
		h.problemPage(w, r, nil, p)
		return
	}
	passCookies(w, rep)
	http.Redirect(w, r, "/dashboard/login?signed_out=1", http.StatusSeeOther)
}

// passCookies copies the cookies an API answer sets to the browser.
func passCookies(w http.ResponseWriter, rep Reply) {
	for _, c := range rep.Header.Values("Set-Cookie") {
		w.Header().Add("Set-Cookie", c)
	}
}

// nextPath is where to go after signing in: a dashboard path, else the
// workflows.
func nextPath(p string) string {
	const fallback = "/dashboard/workflows"
	if !strings.HasPrefix(p, "/dashboard") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n\t") {
		return fallback
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || (u.Path != "/dashboard" && !strings.HasPrefix(u.Path, "/dashboard/")) {
		return fallback
	}
	return p
}
