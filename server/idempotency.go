package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/tuxlb/tuxlb/core/diag"
)

// An Idempotency-Key header on POST /runs, /scenarios or /sweeps makes a
// retry safe: the first successful answer is stored under the key for 24 h
// (storage.IdempotencyTTL), and a request with the same key and the same
// request (query and body) gets that answer again, with
// Idempotent-Replayed: true, and starts nothing. The same key with another
// request is 422. Only successes are kept: a retry after an error runs
// again. Requests with the same key on one server wait for each other;
// on two replicas at once both may run, and the first answer stored stands.

// maxIdempotencyKey bounds a key's length.
const maxIdempotencyKey = 255

// validIdempotencyKey: 1 to 255 visible ASCII characters.
func validIdempotencyKey(k string) bool {
	if k == "" || len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// idempotent wraps the POST handler h with Idempotency-Key handling.
func (s *Server) idempotent(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		key := req.Header.Get("Idempotency-Key")
		if _, given := req.Header["Idempotency-Key"]; !given {
			return h(c)
		}
		if n := len(req.Header.Values("Idempotency-Key")); n > 1 { // which one would the retry mean?
			p := problemf(http.StatusBadRequest, "malformed-idempotency-key", "Malformed Idempotency-Key",
				"the Idempotency-Key header is given %d times: send it once", n)
			p.Errors = []ProblemItem{{Field: "Idempotency-Key", Message: fmt.Sprintf("given %d times; send one key", n)}}
			return p
		}
		if !validIdempotencyKey(key) {
			return problemf(http.StatusBadRequest, "malformed-idempotency-key", "Malformed Idempotency-Key",
				"the Idempotency-Key header must be 1 to %d visible ASCII characters (a UUID will do)", maxIdempotencyKey)
		}
		body, err := s.readBody(c)
		if err != nil {
			return err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		scope := c.Path()
		sum := sha256.New()
		io.WriteString(sum, req.URL.RawQuery+"\n"+req.Header.Get(echo.HeaderContentType)+"\n")
		sum.Write(body)
		hash := hex.EncodeToString(sum.Sum(nil))

		unlock := s.keys.lock(scope + "\n" + key)
		defer unlock()
		ctx := req.Context()
		stored, status, location, answer, err := s.cfg.Store.Idempotent(ctx, scope, key)
		switch {
		case err == nil && stored != hash:
			return problemf(http.StatusUnprocessableEntity, "idempotency-key-reused", "Idempotency-Key reused",
				"the Idempotency-Key %q was used in the last 24 hours for another request to %s (another body or query); "+
					"use a new key for a new request", key, scope)
		case err == nil:
			hdr := c.Response().Header()
			if location != "" {
				hdr.Set(echo.HeaderLocation, location)
			}
			hdr.Set("Idempotent-Replayed", "true")
			return c.Blob(status, echo.MIMEApplicationJSON, answer)
		case diag.ErrorCode(err) != diag.ENOTFOUND:
			return err
		}

		rec := &recordingWriter{ResponseWriter: c.Response().Writer}
		c.Response().Writer = rec
		err = h(c)
		c.Response().Writer = rec.ResponseWriter
		status = c.Response().Status
		if err != nil || status < 200 || status >= 300 {
			return err
		}
		// Stored even if the caller went away: its retry is what this is for.
		save := context.WithoutCancel(ctx)
		if err := s.cfg.Store.SaveIdempotent(save, scope, key, hash, status, c.Response().Header().Get(echo.HeaderLocation), rec.buf.Bytes()); err != nil {
			s.log.Error("idempotency key: store", "key", key, "route", scope, "err", err, "request_id", requestIDOf(c))
		}
		return nil
	}
}

// recordingWriter keeps a copy of what passes through it.
type recordingWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// keyLocks serializes the requests with the same key on this server.
type keyLocks struct {
	mu   sync.Mutex
	held map[string]*keyLock
}

type keyLock struct {
	mu    sync.Mutex
	users int
}

func (k *keyLocks) lock(name string) (unlock func()) {
	k.mu.Lock()
	if k.held == nil {
		k.held = map[string]*keyLock{}
	}
	l := k.held[name]
	if l == nil {
		l = &keyLock{}
		k.held[name] = l
	}
	l.users++
	k.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.held, name)
		}
		k.mu.Unlock()
	}
}
