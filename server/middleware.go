package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// requestIDKey is where the request id is kept in the echo context.
const requestIDKey = "tuxlb.request_id"

// validRequestID accepts a caller's X-Request-ID only when it is short and
// plain, so that it can go into logs and headers as it is.
var validRequestID = lazyRegexp(`^[A-Za-z0-9._-]{1,64}$`)

// requestID gives each request an id: the caller's X-Request-ID when it is
// acceptable, else a new random one. It is echoed in the response header.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !validRequestID().MatchString(id) {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		c.Set(requestIDKey, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

// requestIDOf returns the id requestID gave c.
func requestIDOf(c echo.Context) string {
	id, _ := c.Get(requestIDKey).(string)
	return id
}

// logRequests writes one log line per request, with its id, after it is answered.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // answer now, so that the status logged is the real one
		}
		req, res := c.Request(), c.Response()
		s.log.Info("request", "request_id", requestIDOf(c), "method", req.Method, "path", req.URL.Path,
			"status", res.Status, "bytes", res.Size, "duration_ms", float64(time.Since(start).Microseconds())/1000,
			"remote", c.RealIP())
		return nil
	}
}

// recoverPanics turns a panic in a handler into a logged 500 problem that
// names the request id, and keeps the server up.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.Error("panic", "request_id", requestIDOf(c), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = &Problem{Type: ProblemTypeBase + "internal", Title: "Internal error", Status: http.StatusInternalServerError,
					Detail: "an internal error occurred; quote request id " + requestIDOf(c)}
			}
		}()
		return next(c)
	}
}

// contentSecurityPolicy lets the playground load its own scripts and
// WebAssembly and nothing else; no inline scripts, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
	"worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the security headers on every response.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		return next(c)
	}
}

// cors allows cross-origin calls from the configured origins only.
func (s *Server) cors() echo.MiddlewareFunc {
	return middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOrigins:  s.cfg.CORSOrigins,
		AllowMethods:  []string{http.MethodGet, http.MethodPost},
		AllowHeaders:  []string{echo.HeaderContentType, echo.HeaderXRequestID, "If-None-Match", "Idempotency-Key"},
		ExposeHeaders: []string{echo.HeaderXRequestID, echo.HeaderLocation, "ETag", "Idempotent-Replayed"},
	})
}

// limitBody refuses bodies over the limit: at once when Content-Length says
// so, else when the handler reads past it. Either way the 413 is written
// first and the rest of the body drained (bounded), so that a client that
// writes its whole body before reading gets the answer.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		body := req.Body
		var err error
		if req.ContentLength > s.cfg.MaxBodyBytes {
			err = s.bodyTooLarge()
		} else {
			stall := &stallReader{r: body, rc: http.NewResponseController(c.Response().Writer),
				stall: s.cfg.BodyStallTimeout, end: time.Now().Add(s.cfg.BodyTimeout)}
			req.Body = http.MaxBytesReader(c.Response(), stall, s.cfg.MaxBodyBytes)
			err = next(c)
			if stall.stalled && !c.Response().Committed {
				c.Response().Header().Set("Connection", "close")
			}
		}
		if !isBodyTooLarge(err) || c.Response().Committed {
			return err
		}
		c.Response().Header().Set("Connection", "close")
		c.Error(err)
		drainBody(c, body)
		return nil
	}
}

// bodyTooLarge is the 413 problem for a body over the limit.
func (s *Server) bodyTooLarge() *Problem {
	p := problemf(http.StatusRequestEntityTooLarge, "body-too-large", "Body too large",
		"the request body is over the limit of %d bytes (flag --max-body, env TUXLB_MAX_BODY)", s.cfg.MaxBodyBytes)
	p.Limit = s.cfg.MaxBodyBytes
	return p
}

// stallReader is a request body that must keep arriving: before each read
// it moves the connection's read deadline to stall from now (never past
// end, the whole request's deadline), so that a client that stops sending
// its body is cut after stall rather than at the end.
type stallReader struct {
	r       io.ReadCloser
	rc      *http.ResponseController
	stall   time.Duration
	end     time.Time
	stalled bool
}

// errBodyStalled is a body whose bytes stopped arriving.
var errBodyStalled = errors.New("the body stopped arriving")

func (b *stallReader) Read(p []byte) (int, error) {
	deadline := time.Now().Add(b.stall)
	if deadline.After(b.end) {
		deadline = b.end
	}
	set := b.rc.SetReadDeadline(deadline) == nil
	n, err := b.r.Read(p)
	var ne net.Error
	if set && err != nil && errors.As(err, &ne) && ne.Timeout() {
		b.stalled = true
		return n, errBodyStalled
	}
	return n, err
}

func (b *stallReader) Close() error { return b.r.Close() }

// bodyStalled is the 408 problem of a body that stopped arriving.
func (s *Server) bodyStalled() *Problem {
	p := problemf(http.StatusRequestTimeout, "body-stalled", "Body stopped arriving",
		"no byte of the request body arrived for %s (or the whole request took over %s): the connection is closed",
		s.cfg.BodyStallTimeout, s.cfg.BodyTimeout)
	p.Limit = s.cfg.BodyStallTimeout.String()
	return p
}

// readBody reads the whole request body, within the limit.
func (s *Server) readBody(c echo.Context) ([]byte, error) {
	body, err := io.ReadAll(c.Request().Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, s.bodyTooLarge()
	}
	if errors.Is(err, errBodyStalled) {
		return nil, s.bodyStalled()
	}
	if err != nil {
		return nil, problemf(http.StatusBadRequest, "unreadable-body", "Unreadable body", "reading the body: %v", err)
	}
	return body, nil
}
