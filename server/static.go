package server

import (
	"bytes"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// pageHead is what the server's own pages carry in their head: a phone's
// width (not a desktop page shrunk to fit), the reader's colour scheme, and
// the playground's inline icon (no request for /favicon.ico, a 404).
const pageHead = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
	`<meta name="color-scheme" content="light dark"><style>body{font-family:system-ui,sans-serif;margin:1rem}</style>` +
	`<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%232563eb'/%3E%3Cpath d='M3.5 4.5h9M8 4.5v8' stroke='%23fff' stroke-width='2.2'/%3E%3C/svg%3E">`

// notBuiltPage is "/" when the binary was built without the playground.
const notBuiltPage = `<!doctype html>
<html lang="en"><head>` + pageHead + `<title>tuxlb</title></head>
<body><h1>tuxlb</h1>
<p>The playground is not built into this binary. Run <code>go tool task build</code>
(or <code>go tool task run</code>) and start <code>bin/tuxlb serve</code> again.</p>
<p>The REST API works without it: see <a href="/api/openapi.json">/api/openapi.json</a>.</p>
</body></html>
`

// notFoundPageHTML is the page for unknown paths and unknown share links.
const notFoundPageHTML = `<!doctype html>
<html lang="en"><head>` + pageHead + `<title>Not found - tuxlb</title></head>
<body><h1>Not found</h1><p>There is nothing here. <a href="/">Open the playground</a>.</p></body></html>
`

// contentTypes fixes the types that matter for the playground, whatever the
// host's mime tables say.
var contentTypes = map[string]string{
	".wasm": "application/wasm",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
}

// static serves the playground's files. Paths under /api/ never reach it.
func (s *Server) static(c echo.Context) error {
	p := c.Request().URL.Path
	if strings.HasPrefix(p, "/api/") {
		return echo.ErrNotFound
	}
	if p == "/" || p == "/index.html" {
		return s.indexPage(c)
	}
	if s.cfg.Assets == nil {
		return s.notFoundPage(c)
	}
	name := strings.TrimPrefix(path.Clean(p), "/")
	data, err := fs.ReadFile(s.cfg.Assets, name)
	if err != nil || !fs.ValidPath(name) || s.isPrecompressed(name) {
		return s.notFoundPage(c)
	}
	return s.serveFile(c, name, data)
}

// serveFile sends one asset with its content type and ETag (304 to an
// If-None-Match that names it, by http.ServeContent), brotli- or
// gzip-compressed when the client accepts it (assets.go), cached for a year
// when its name is content-hashed and revalidated every time otherwise
// (index.html: a new build shows at once).
func (s *Server) serveFile(c echo.Context, name string, data []byte) error {
	ext := path.Ext(name)
	ctype, ok := contentTypes[ext]
	if !ok {
		ctype = mime.TypeByExtension(ext)
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, ctype)
	a := s.assetOf(name, data)
	body, encoding, etag := a.negotiate(c.Request(), data)
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl(name))
	if a.compress {
		h.Set(echo.HeaderVary, echo.HeaderAcceptEncoding)
	}
	if encoding != "" {
		h.Set(echo.HeaderContentEncoding, encoding)
	}
	w := &errorCatcher{ResponseWriter: c.Response()}
	http.ServeContent(w, c.Request(), name, time.Time{}, bytes.NewReader(body))
	if w.status >= 400 { // a Range that fits no byte, a failed precondition: a problem, not net/http's text
		for _, k := range []string{"Content-Length", echo.HeaderContentEncoding, "ETag", "Cache-Control"} {
			c.Response().Header().Del(k)
		}
		return problemf(w.status, "range-not-satisfiable", http.StatusText(w.status),
			"%s: the request's Range or precondition headers select nothing of the file's %d bytes", name, len(data))
	}
	return nil
}

// errorCatcher passes an answer through unless its status is an error,
// which it keeps (with net/http's plain-text body dropped) for the caller
// to answer as a problem.
type errorCatcher struct {
	http.ResponseWriter
	status int
}

func (w *errorCatcher) WriteHeader(code int) {
	if code >= 400 {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *errorCatcher) Write(p []byte) (int, error) {
	if w.status >= 400 {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// indexPage serves the playground's index.html, or the page that says how to
// build it.
func (s *Server) indexPage(c echo.Context) error {
	if s.cfg.Assets != nil {
		if data, err := fs.ReadFile(s.cfg.Assets, "index.html"); err == nil {
			return s.serveFile(c, "index.html", data)
		}
	}
	return c.HTML(http.StatusOK, notBuiltPage)
}

// notFoundPage is the 404 page.
func (s *Server) notFoundPage(c echo.Context) error {
	return c.HTML(http.StatusNotFound, notFoundPageHTML)
}

// isPrecompressed says whether name is the build's brotli or gzip form of
// another asset (NAME.br, NAME.gz): those are sent for NAME by content
// negotiation, never under their own names.
func (s *Server) isPrecompressed(name string) bool {
	for _, ext := range []string{".br", ".gz"} {
		if base, ok := strings.CutSuffix(name, ext); ok {
			if _, err := fs.Stat(s.cfg.Assets, base); err == nil {
				return true
			}
		}
	}
	return false
}
