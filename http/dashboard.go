package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"svc/http/dashboard"
	"svc/projections"
)

// The web dashboard (package dashboard, docs/decisions.md 256-270) is
// served under /dashboard. It is a client of this API: each page calls
// the routes it shows through the router, as the signed-in user, so
// validation, role floors, limits and error codes are the routes' own.
// Its sub-requests carry the browser's session cookie; a key route
// (x-api-key) accepts that session only for them (dashboardCaller), acting
// in the workspace the page names with the user's role there.

// dashboardKey marks a sub-request of the dashboard; its value is the
// workspace it acts in ("" for the user's default workspace).
type dashboardKey struct{}

// dashboardRoutes mounts the dashboard: one route, not part of the JSON
// API (no OpenAPI operation; its pages route themselves).
func (s *Server) dashboardRoutes(r *mux.Router) {
	r.PathPrefix("/dashboard").Handler(dashboard.New(dashboardAPI{s}, s.log)).Name("dashboard")
}

// dashboardCaller is the principal of a dashboard sub-request to a key
// route: ok false for any other request. Signed out, it is 401
// unauthorized.
func (s *Server) dashboardCaller(r *http.Request) (p *projections.Principal, ok bool, err error) {
	ws, ok := r.Context().Value(dashboardKey{}).(string)
	if !ok {
		return nil, false, nil
	}
	p, err = s.dashboardPrincipal(r, ws)
	if err == nil && p == nil {
		err = newError(http.StatusUnauthorized, "unauthorized", "Sign in to continue.")
	}
	return p, true, err
}

// dashboardPrincipal is r's session principal acting in workspace ws
// ("" or their default: as it is): the workspace's organization, the
// user's role in it (roleIn, as the workspace routes decide) and its
// tier. nil when signed out; 404 not_found for a workspace they may not
// act in.
func (s *Server) dashboardPrincipal(r *http.Request, ws string) (*projections.Principal, error) {
	p, err := s.sessionPrincipal(r)
	if err != nil || p == nil || ws == "" || ws == p.WorkspaceID {
		return p, err
	}
	ctx := r.Context()
	if uuid.Validate(ws) != nil {
		return nil, errWorkspaceNotFound()
	}
	row, err := s.queries.Workspace(ctx, ws)
	if errors.Is(err, projections.ErrNotFound) {
		return nil, errWorkspaceNotFound()
	}
	if err != nil {
		return nil, err
	}
	role, err := s.roleIn(ctx, *p, row)
	if err != nil {
		return nil, err
	}
	if role == "" {
		return nil, errWorkspaceNotFound()
	}
	moved := *p
	moved.OrgID, moved.WorkspaceID, moved.Role, moved.Tier = row.OrgID, row.ID, role, row.Tier
	return &moved, nil
}

// dashboardAPI is the API as the dashboard sees it.
type dashboardAPI struct{ s *Server }

// Identity implements dashboard.API.
func (a dashboardAPI) Identity(r *http.Request, ws string) (dashboard.Identity, error) {
	p, err := a.s.dashboardPrincipal(r, ws)
	var ae *apiError
	switch {
	case errors.As(err, &ae) && ae.Status == http.StatusNotFound:
		return dashboard.Identity{}, dashboard.ErrNoWorkspace
	case err != nil:
		return dashboard.Identity{}, err
	case p == nil:
		return dashboard.Identity{}, dashboard.ErrSignedOut
	}
	return dashboard.Identity{UserID: p.UserID, OrgID: p.OrgID, WorkspaceID: p.WorkspaceID, Role: p.Role, Tier: p.Tier}, nil
}

// Call implements dashboard.API: the route answers into a recorder.
func (a dashboardAPI) Call(r *http.Request, ws, method, path string, body any) dashboard.Reply {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return dashboard.Reply{Status: http.StatusInternalServerError}
		}
	}
	sub := dashboardRequest(r, ws, method, path, raw)
	rec := httptest.NewRecorder()
	a.s.router.ServeHTTP(rec, sub)
	return dashboard.Reply{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// Stream implements dashboard.API: the route writes its event stream to w.
func (a dashboardAPI) Stream(w http.ResponseWriter, r *http.Request, ws, path string) {
	sub := dashboardRequest(r, ws, http.MethodGet, path, nil)
	sub.Header.Set("Accept", "text/event-stream")
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		sub.Header.Set("Last-Event-ID", id)
	}
	a.s.router.ServeHTTP(w, sub)
}

// dashboardRequest is the sub-request of the browser's request r for the
// route method path with a JSON body (nil: none). It keeps r's context
// (request id, client address), peer and TLS state (secure cookies), and
// of its headers only the session cookie and the proxy's.
func dashboardRequest(r *http.Request, ws, method, path string, body []byte) *http.Request {
	sub := r.Clone(context.WithValue(r.Context(), dashboardKey{}, ws))
	u, err := url.Parse(path)
	if err != nil {
		u = &url.URL{Path: "/"}
	}
	sub.Method, sub.URL, sub.RequestURI = method, u, u.RequestURI()
	sub.Form, sub.PostForm, sub.MultipartForm, sub.Pattern = nil, nil, nil, "" // the page's form is not the route's
	sub.Header = http.Header{}
	for _, h := range []string{"Cookie", "X-Forwarded-For", "X-Forwarded-Proto", "User-Agent"} {
		if v := r.Header.Values(h); len(v) > 0 {
			sub.Header[h] = v
		}
	}
	sub.Header.Set("Accept", "application/json")
	sub.Body, sub.ContentLength = http.NoBody, 0
	if body != nil {
		sub.Header.Set("Content-Type", "application/json")
		sub.Body, sub.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	return sub
}
