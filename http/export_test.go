package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"
)

// ClientIPOf exposes clientIPOf to the external tests.
func (s *Server) ClientIPOf(r *http.Request) string { return s.clientIPOf(r) }

// Routes lists the API's routes as "METHOD name" (one per method a route
// accepts), for the tests that must cover every one.
func (s *Server) Routes() []string {
	var out []string
	_ = s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		methods, err := route.GetMethods()
		if err != nil {
			return nil // a route matching any method (the profiler)
		}
		for _, m := range methods {
			out = append(out, m+" "+route.GetName())
		}
		return nil
	})
	return out
}

// UndocumentedRoutes lists the routes GET /docs has no description of.
func (s *Server) UndocumentedRoutes() []string {
	var out []string
	_ = s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if _, err := route.GetMethods(); err != nil {
			return nil
		}
		if _, ok := routeDocOf(route.GetName()); !ok {
			out = append(out, route.GetName())
		}
		return nil
	})
	return out
}

// SuiteRoute is a suite operation's route, for the tests that cover every
// route.
type SuiteRoute struct {
	Name, Method, Path string
	Floor              Role
}

// SuiteRoutes lists the suite's operations' routes.
func (s *Server) SuiteRoutes() []SuiteRoute {
	var out []SuiteRoute
	for _, o := range s.suiteOps() {
		out = append(out, SuiteRoute{Name: o.action, Method: o.method, Path: o.path, Floor: o.floor})
	}
	return out
}
