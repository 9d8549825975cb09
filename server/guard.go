package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/tuxlb/tuxlb/core/diag"
)

// queryParams lists, per route, the query parameters it reads. Any other
// parameter is a 400: a misspelt ?polcy=jsq must not silently run the
// default policy.
var queryParams = map[string][]string{
	"POST /api/v1/runs":            {"policy", "seed", "dispatch", "series", "indent"},
	"GET /api/v1/runs/:id":         {"series"},
	"GET /api/v1/runs":             {"limit", "cursor"},
	"POST /api/v1/runs/:id/rerun":  {"dispatch", "series"},
	"GET /api/v1/compare":          {"runs", "variant", "figure", "objective"},
	"GET /api/v1/runs/:id/explain": {"request"},
}

// repeatableParams lists, per route, the query parameters that may be
// given more than once, each time one more item. Every other parameter
// takes one value: given twice it is a 400, not its first value silently
// (?seed=1&seed=2, ?runs=A&runs=B for runs=A,B).
var repeatableParams = map[string][]string{
	"GET /api/v1/compare": {"variant", "figure", "objective"},
}

// checkQuery refuses query parameters the route does not read, and a
// parameter of one value given more than once.
func (s *Server) checkQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		// URL.Query drops what it cannot decode (?policy=%zz): a
		// parameter lost that way would run the default silently
		q, err := url.ParseQuery(c.Request().URL.RawQuery)
		if err != nil {
			p := problemf(http.StatusBadRequest, "malformed-query", "Malformed query parameter",
				"the query string cannot be decoded: %s (escape %% as %%25)", capText(strings.TrimPrefix(err.Error(), "invalid URL escape ")))
			if e, ok := err.(url.EscapeError); ok {
				p.Detail = fmt.Sprintf("the query string cannot be decoded: %s is not a %%XX escape (write %% as %%25)", quoteCapped(string(e)))
			}
			return p
		}
		if len(q) == 0 {
			return next(c)
		}
		for name, values := range q {
			for _, v := range append([]string{name}, values...) {
				if !utf8.ValidString(v) {
					p := problemf(http.StatusBadRequest, "malformed-query", "Malformed query parameter",
						"%s: not valid UTF-8", quoteCapped(strings.ToValidUTF8(name, "\uFFFD")))
					p.Errors = []ProblemItem{queryItem(strings.ToValidUTF8(name, "\uFFFD"), "not valid UTF-8")}
					return p
				}
			}
		}
		method := c.Request().Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		known := queryParams[method+" "+c.Path()]
		var unknown []string
		for name := range q {
			if !slices.Contains(known, name) {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) == 0 {
			if p := repeatedParams(q, repeatableParams[method+" "+c.Path()]); p != nil {
				return p
			}
			if p := emptyParams(q); p != nil {
				return p
			}
			return next(c)
		}
		sort.Strings(unknown)
		want := "no query parameters"
		if len(known) > 0 {
			want = "only " + strings.Join(known, ", ")
		}
		p := problemf(http.StatusBadRequest, "malformed-query", "Malformed query parameter",
			"%s: not a parameter of this resource (it takes %s)", quoteCapped(strings.Join(unknown, ", ")), want)
		for _, name := range unknown {
			p.Errors = append(p.Errors, queryItem(name, "unknown query parameter"))
		}
		return p
	}
}

// queryItem is a problem item about query parameter name: its source is
// the options, as a query option's (?policy=) is.
func queryItem(name, msg string) ProblemItem {
	return ProblemItem{Source: diag.SourceOptions, Field: capText(name), Severity: diag.SeverityError, Message: msg}
}

// emptyParams is the 400 problem of the parameters of q given with no
// value (?seed=, as a form or a template leaves one), naming each; nil
// when there is none. Taken as absent, ?seed= would run the scenario's
// seed where the client meant one of its own. An empty cursor is the
// first page, as a client paging from "" writes it.
func emptyParams(q url.Values) *Problem {
	var names []string
	for name, values := range q {
		if name != "cursor" && slices.Contains(values, "") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	const why = "given with no value; leave it out for its default"
	p := problemf(http.StatusBadRequest, "malformed-query", "Malformed query parameter",
		"%s: %s", quoteCapped(strings.Join(names, ", ")), why)
	for _, name := range names {
		p.Errors = append(p.Errors, queryItem(name, why))
	}
	return p
}

// repeatedParams is the 400 problem of the parameters of q given more than
// once that are not repeatable, naming each; nil when there is none.
func repeatedParams(q url.Values, repeatable []string) *Problem {
	var names []string
	for name, values := range q {
		if len(values) > 1 && !slices.Contains(repeatable, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	var said []string
	p := problemf(http.StatusBadRequest, "malformed-query", "Malformed query parameter", "")
	for _, name := range names {
		why := fmt.Sprintf("given %d times; it takes one value", len(q[name]))
		if name == "runs" {
			why += " (the run ids as one list separated by commas: runs=ID,ID)"
		}
		said = append(said, quoteCapped(name)+": "+why)
		p.Errors = append(p.Errors, queryItem(name, why))
	}
	p.Detail = strings.Join(said, "; ")
	return p
}

// bodyTypes lists, per route that stores what it reads, the media types it
// accepts, each read as what it says it is. Anything else is a 415 before
// the body is read. (POST /validate stores nothing and reads text/plain
// too; it checks its types itself.)
var bodyTypes = map[string][]string{
	"POST /api/v1/runs":      {"application/json", "multipart/form-data"},
	"POST /api/v1/scenarios": {"application/json"},
	"POST /api/v1/sweeps":    {"application/json"},
	"POST /api/v1/optimize":  {"application/json"},
}

// checkBody refuses compressed bodies and bodies of a type the route does
// not read, with 415.
func (s *Server) checkBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if enc := req.Header.Get(echo.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
			return problemf(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
				"Content-Encoding %s: send the body uncompressed", quoteCapped(enc))
		}
		types, ok := bodyTypes[req.Method+" "+c.Path()]
		if !ok {
			return next(c)
		}
		ctype := req.Header.Get(echo.HeaderContentType)
		media, _, err := mime.ParseMediaType(ctype)
		if err != nil || !slices.Contains(types, media) {
			hint := ""
			if strings.HasPrefix(ctype, "application/x-www-form-urlencoded") {
				hint = " (curl -d sends this type unless told: add -H 'Content-Type: application/json')"
			}
			return problemf(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
				"Content-Type %s%s: send %s%s", quoteCapped(ctype), paramsUnread(ctype, types...), strings.Join(types, " or "), hint)
		}
		return next(c)
	}
}

// paramsUnread says why ctype, which names a type the path reads, was
// refused all the same: its parameters do not parse (a boundary= without
// a value, a stray ;), which "send multipart/form-data" alone does not
// tell. "" when ctype parses or names another type.
func paramsUnread(ctype string, accepted ...string) string {
	media, _, _ := strings.Cut(ctype, ";")
	if !slices.Contains(accepted, strings.ToLower(strings.TrimSpace(media))) {
		return ""
	}
	if _, _, err := mime.ParseMediaType(ctype); err != nil {
		return " (its parameters cannot be read: " + strings.TrimPrefix(err.Error(), "mime: ") + ")"
	}
	return ""
}

// checkHost refuses a Host header that names neither an IP address, nor
// localhost, nor a name given by --allowed-hosts, with 421. A DNS-rebinding
// page reaches a local server under its own domain name, so it is refused;
// an address typed as an IP cannot be rebound.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		host := c.Request().Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
		if host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") || net.ParseIP(host) != nil ||
			slices.Contains(s.allowedHosts, host) {
			return next(c)
		}
		return problemf(http.StatusMisdirectedRequest, "unknown-host", "Unknown host",
			"Host %s is not this server's: use its IP address or localhost, or start it with --allowed-hosts %s",
			quoteCapped(host), capText(host))
	}
}

// Limits of the drain that lets a client read its 413 (see drainBody).
const (
	drainMaxBytes = 64 << 20
	drainMaxTime  = 10 * time.Second
)

// drainBody reads and discards what is left of a refused body, at most
// drainMaxBytes within drainMaxTime. A client that writes its whole body
// before reading the answer would otherwise find the connection reset (the
// kernel resets a socket closed with unread data), and its 413 lost.
func drainBody(c echo.Context, body io.Reader) {
	rc := http.NewResponseController(c.Response().Writer)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(drainMaxTime))
	_, _ = io.CopyN(io.Discard, body, drainMaxBytes)
}

// isBodyTooLarge reports whether err is the 413 of limitBody.
func isBodyTooLarge(err error) bool {
	var p *Problem
	return errors.As(err, &p) && p.Type == ProblemTypeBase+"body-too-large"
}

// capText cuts a caller's input for a problem document (see diag.CapText).
func capText(s string) string { return diag.CapText(s) }

// quoteCapped quotes s for a message, cut by capText.
func quoteCapped(s string) string {
	return `"` + strings.ReplaceAll(capText(s), `"`, `\"`) + `"`
}
