package server

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/tuxlb/tuxlb/core/diag"
)

// getDispatch serves the dispatch log of a run created with ?dispatch=true
// as CSV. It is stored gzip-compressed and sent that way to clients that
// accept gzip; others get it decompressed. Either way it streams: the store
// reads it a piece at a time and the answer is written as it is read, so
// serving a log holds a piece of it, not the whole.
func (s *Server) getDispatch(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// The log first: reading the run would load its whole result.
	gz, size, err := s.cfg.Store.Dispatch(ctx, id)
	if diag.ErrorCode(err) == diag.ENOTFOUND {
		run, err := s.cfg.Store.Run(ctx, id)
		if err != nil {
			return err // no such run
		}
		if !run.HasDispatch {
			return problemf(http.StatusNotFound, "dispatch-not-kept", "Dispatch log not kept",
				"run %s was created without its dispatch log; POST the scenario to /api/v1/runs?dispatch=true "+
					"(or /api/v1/runs/%s/rerun?dispatch=true) to keep it", id, id)
		}
		return diag.Errorf(diag.ENOTFOUND, "dispatch log of run %s: not found", id)
	}
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+id+`-dispatch.csv"`)
	h.Set(echo.HeaderVary, echo.HeaderAcceptEncoding)
	const csvType = "text/csv; charset=utf-8"
	if acceptsGzip(c.Request()) {
		h.Set(echo.HeaderContentEncoding, "gzip")
		h.Set(echo.HeaderContentLength, strconv.FormatInt(size, 10))
		return c.Stream(http.StatusOK, csvType, gz)
	}
	zr, err := gzip.NewReader(gz)
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
