package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// getDispatch serves the dispatch log of a run created with ?dispatch=true
// as CSV. It is stored gzip-compressed and sent that way to clients that
// accept gzip; others get it decompressed.
func (s *Server) getDispatch(c echo.Context) error {
	run, err := s.storedRun(c)
	if err != nil {
		return err
	}
	id, ctx := run.ID, c.Request().Context()
	if !run.HasDispatch {
		return problemf(http.StatusNotFound, "dispatch-not-kept", "Dispatch log not kept",
			"run %s was created without its dispatch log; POST the scenario to /api/v1/runs?dispatch=true "+
				"(or /api/v1/runs/%s/rerun?dispatch=true) to keep it", id, id)
	}
	gz, err := s.cfg.Store.Dispatch(ctx, id)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+id+`-dispatch.csv"`)
	h.Set(echo.HeaderVary, echo.HeaderAcceptEncoding)
	const csvType = "text/csv; charset=utf-8"
	if acceptsGzip(c.Request()) {
		h.Set(echo.HeaderContentEncoding, "gzip")
		return c.Blob(http.StatusOK, csvType, gz)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	defer zr.Close()
	return c.Stream(http.StatusOK, csvType, io.NopCloser(zr))
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get(echo.HeaderAcceptEncoding), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			return strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0"
		}
	}
	return false
}
