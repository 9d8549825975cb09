package server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// checkOrigin refuses, with 403, a state-changing request (anything but
// GET, HEAD and OPTIONS) that a browser sent on behalf of a page of another
// origin: one whose Origin is neither this server's own (the Host it was
// reached by) nor one of --cors-origins, or that the browser marks
// Sec-Fetch-Site cross-site or same-site without such an Origin. A page can
// make the browser post a form (multipart/form-data, text/plain) anywhere
// without asking first; the content type is no defence, the origin is.
// Clients that send neither header (curl, scripts) are not browsers acting
// for a page, and are served.
func (s *Server) checkOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		origin := req.Header.Get(echo.HeaderOrigin)
		site := strings.ToLower(req.Header.Get("Sec-Fetch-Site"))
		switch {
		case origin != "" && !s.ownOrigin(origin, req.Host) && !slices.Contains(s.cfg.CORSOrigins, origin):
		case origin == "" && (site == "cross-site" || site == "same-site"):
			origin = "(none, Sec-Fetch-Site " + site + ")"
		default:
			return next(c)
		}
		return problemf(http.StatusForbidden, "cross-origin", "Request from another site",
			"Origin %s is not this server's: a %s from a page of another site is refused (start the server with --cors-origins ORIGIN to allow one)",
			quoteCapped(origin), req.Method)
	}
}

// ownOrigin says whether origin (scheme://host[:port]) names the host the
// request was sent to: the page that sent it was served by this server.
func (s *Server) ownOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (a sandboxed frame, a file) among them
	}
	return strings.EqualFold(u.Host, host)
}
