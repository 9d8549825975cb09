package server

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// methodOrder is the order an Allow header lists methods in.
var methodOrder = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete}

// apiMethods maps each API route pattern (/api/v1/runs/:id) to the methods
// it takes, from the router's table.
func apiMethods(e *echo.Echo) map[string][]string {
	out := map[string][]string{}
	for _, r := range e.Routes() {
		if strings.HasPrefix(r.Path, "/api/") && !slices.Contains(out[r.Path], r.Method) {
			out[r.Path] = append(out[r.Path], r.Method)
		}
	}
	for p := range out {
		slices.SortFunc(out[p], func(a, b string) int { return slices.Index(methodOrder, a) - slices.Index(methodOrder, b) })
	}
	return out
}

// allowed returns the methods of the API route that path names, or nil
// when no route has that path.
func (s *Server) allowed(path string) []string {
	segs := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for pattern, methods := range s.methods {
		ps := strings.Split(pattern, "/")
		if len(ps) != len(segs) {
			continue
		}
		match := true
		for i := range ps {
			if ps[i] != segs[i] && !(strings.HasPrefix(ps[i], ":") && segs[i] != "") {
				match = false
				break
			}
		}
		if match {
			return methods
		}
	}
	return nil
}

// methodNotAllowed answers 405, with the methods the route takes, a request
// for an API path that only the playground's catch-all matched because the
// path's route does not take its method (GET /api/v1/validate).
func (s *Server) methodNotAllowed(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Path() == "/*" && strings.HasPrefix(c.Request().URL.Path, "/api/") {
			if methods := s.allowed(c.Request().URL.Path); methods != nil {
				return s.notAllowed(c, methods)
			}
		}
		return next(c)
	}
}

// notAllowed is the 405 problem, its Allow header set.
func (s *Server) notAllowed(c echo.Context, methods []string) *Problem {
	c.Response().Header().Set(echo.HeaderAllow, strings.Join(methods, ", "))
	return problemf(http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed",
		"%s is not a method of this resource: it takes %s", capText(c.Request().Method), strings.Join(methods, ", "))
}
