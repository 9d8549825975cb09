package server

import (
	_ "embed"
	"net/http"
	"regexp"
	"sync"

	"github.com/labstack/echo/v4"
)

// openAPIDocument is the OpenAPI 3.1 description of every route.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns the embedded OpenAPI document.
func OpenAPI() []byte { return openAPIDocument }

// openAPI serves the OpenAPI document.
func (s *Server) openAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}

// echoParam matches echo's ":name" path parameters.
var echoParam = lazyRegexp(`:([A-Za-z_]+)`)

// openAPIPath writes an echo route path the OpenAPI way: ":id" as "{id}",
// and the catch-all "*" of the playground's files as "{asset}".
func openAPIPath(p string) string {
	p = echoParam().ReplaceAllString(p, "{$1}")
	if len(p) > 0 && p[len(p)-1] == '*' {
		p = p[:len(p)-1] + "{asset}"
	}
	return p
}

// lazyRegexp compiles expr on first use: every tuxlb command links this
// package, and only serve needs its expressions, so `tuxlb run` should not
// compile them at start-up.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
