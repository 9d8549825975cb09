package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
)

// maxExplained bounds the requests one explain call covers.
const maxExplained = 100

// explainRun returns the explanations of some requests of a stored run, as
// `tuxlb run --explain N --explain-json` prints them: recomputed from the
// stored scenario and options (no dispatch log needs to be kept). The
// request parameter is N or N-M (issue numbers, at most 100 of them), or a
// request id as the dispatch log shows it (2008.1, TELLER:3:12).
func (s *Server) explainRun(c echo.Context) error {
	start := time.Now()
	first, count, id, err := explainRange(c.QueryParam("request"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	run, err := s.storedRun(c)
	if err != nil {
		return err
	}
	sc, err := core.DecodeScenario(run.Scenario)
	if err != nil {
		return err // the stored scenario no longer reads: the engine changed under it
	}
	opt := core.RunOptions{Policy: run.Policy}
	if seed, err := plan.ParseSeed("seed", run.Seed); err == nil {
		opt.Seed = &seed
	}
	pr, err := core.Prepare(sc, opt) // checked once, before the run waits for a slot
	if err != nil {
		return err
	}
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	explained := count
	if id != "" {
		explained = 1
	}
	inFlight, err := s.admitRun(sc, pr.Model(), false, false, admission.ExplainCost(pr.Model(), explained, "request"))
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithDeadline(ctx, start.Add(s.cfg.MaxRunTime))
	defer cancel()
	opt.Context, opt.MaxRequests, opt.MaxInFlight = runCtx, s.cfg.MaxRequests, inFlight
	p, err := pr.Compile(opt)
	if err != nil {
		return s.runError(ctx, runCtx, err, inFlight)
	}
	var out []result.Explanation
	if id != "" {
		out, err = p.ExplainID(opt, id)
	} else {
		out, err = p.Explain(opt, first, count)
	}
	if err != nil {
		return s.runError(ctx, runCtx, err, inFlight)
	}
	if len(out) == 0 {
		return diag.Errorf(diag.ENOTFOUND, "request: run %s has no request %d (it issued fewer)", run.ID, first)
	}
	return writeObject(c, http.StatusOK, "id", run.ID, "engine_version", core.EngineVersion,
		"stored_engine_version", run.EngineVersion, "explanations", out)
}

// explainRange reads ?request=N or N-M, or a request id (anything else
// that does not start with a dash: 2008.1, TELLER:3:12).
func explainRange(v string) (first, count int64, id string, err error) {
	bad := func(why string) error {
		return diag.FieldErrorf("request", "%s (want an issue number N, N-M with at most %d requests, or a request id as the dispatch log shows it), got %q", why, maxExplained, v)
	}
	if v == "" {
		return 0, 0, "", bad("missing")
	}
	if len(v) > maxExplainID {
		return 0, 0, "", bad("too long")
	}
	lo, hi, isRange := strings.Cut(v, "-")
	a, err1 := strconv.ParseInt(lo, 10, 64)
	b := a
	var err2 error
	if isRange {
		b, err2 = strconv.ParseInt(hi, 10, 64)
	}
	switch {
	case errors.Is(err1, strconv.ErrRange) || errors.Is(err2, strconv.ErrRange): // digits past int64: a number, never an id
		return 0, 0, "", bad("request number too large")
	case (err1 != nil || err2 != nil) && !strings.HasPrefix(v, "-"):
		return 0, 0, v, nil
	case err1 != nil || err2 != nil:
		return 0, 0, "", bad("not a number")
	case a < 1 || b < a:
		return 0, 0, "", bad("numbers start at 1, and a range's end is not below its start")
	case b-a+1 > maxExplained:
		return 0, 0, "", bad("too many requests")
	}
	return a, b - a + 1, "", nil
}

// maxExplainID bounds a request id's length.
const maxExplainID = 1024
