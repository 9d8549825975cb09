package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Runs, scenarios and finished sweeps never change once written, nor do the
// playground's files in one binary: their answers carry an ETag, a hash of
// the bytes sent, and a GET or HEAD whose If-None-Match names it is 304
// with no body.

// etagOf is the strong entity tag of body: 128 bits of its SHA-256.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// etagMatches says whether an If-None-Match header value names etag (RFC
// 9110: a list of tags, weak ones compared weakly, or "*").
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// blobTagged writes body with its ETag, or 304 when the request already has it.
func blobTagged(c echo.Context, status int, contentType string, body []byte) error {
	if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
		return c.Blob(status, contentType, body)
	}
	etag := etagOf(body)
	c.Response().Header().Set("ETag", etag)
	if inm := c.Request().Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(status, contentType, body)
}
