package server

import (
	_ "embed"
	"net/http"
	"regexp"

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
var echoParam = regexp.MustCompile(`:([A-Za-z_]+)`)

// openAPIPath writes an echo route path the OpenAPI way: ":id" as "{id}",
// and the catch-all "*" of the playground's files as "{asset}".
func openAPIPath(p string) string {
	p = echoParam.ReplaceAllString(p, "{$1}")
	if len(p) > 0 && p[len(p)-1] == '*' {
		p = p[:len(p)-1] + "{asset}"
	}
	return p
}
