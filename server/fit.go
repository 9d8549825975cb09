package server

import (
	"context"
	"errors"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// fitForm is what POST /fit reads: a trace or ulog parts (repeatable), and
// optionally the configuration.
var fitForm = formSpec{names: []string{"trace", "trace_map", "trace_skip_bad", "ulog", "ubbconfig", "dmconfig", "psc"},
	want:    "trace (with trace_map and trace_skip_bad) or ulog (one part per file), and optionally ubbconfig, dmconfig and psc (a tmadmin printservice listing)",
	example: "curl -F ulog=@ULOG.120126 -F ubbconfig=@ubb.cfg"}

// fitAnswer is POST /fit's answer: the report, and with a UBBCONFIG the
// scenario made from it (what tuxlb fit --out writes) and what it left out.
type fitAnswer struct {
	Report           *starter.FitReport `json:"report"`
	Scenario         *scenario.Scenario `json:"scenario,omitempty"`
	ScenarioWarnings []string           `json:"scenario_warnings,omitempty"`
}

// fit answers the fit report of the posted log (docs/fit.md): multipart
// parts trace (and trace_map) or ulog, one part per file, the file name
// giving the ULOG's date; ubbconfig and dmconfig resolve names and add the
// scenario to the answer.
//
// The fit takes a run slot and is bounded by --max-run-time from the
// request's arrival and by the client: see fitBounded.
func (s *Server) fit(c echo.Context) error {
	start := time.Now()
	ok, boundary := isMultipart(c)
	if !ok {
		return problemf(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
			"%sPOST /api/v1/fit takes multipart/form-data: send %s, e.g. %s", unreadType(c), fitForm.want, fitForm.example)
	}
	src, files, err := s.readFitForm(c, boundary, fitForm, nil)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	rep, release, err := s.fitBounded(ctx, start, src)
	if err != nil {
		return namePart(err, files)
	}
	defer release()
	out := fitAnswer{Report: rep}
	if src.UBBConfig != nil {
		if out.Scenario, out.ScenarioWarnings, err = starter.FromFit(files, rep); err != nil {
			return err
		}
	}
	if err := s.pastLimit(ctx, start, "fit"); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// fitOutcome is what starter.Fit returned.
type fitOutcome struct {
	rep *starter.FitReport
	err error
}

// fitBounded takes a run slot and fits src (starter.Fit) within the run
// time limit counted from start, and while the client waits. The fit runs on
// a goroutine of its own that holds the slot until it returns: the reading
// of a log has no stop of its own, so a fit past the limit or whose client
// left is answered at once (422 run-too-long; a canceled request) and its
// slot is freed as soon as the fit returns. On success the caller holds the
// slot and calls release when its work with the report is done.
func (s *Server) fitBounded(ctx context.Context, start time.Time, src starter.FitSources) (*starter.FitReport, func(), error) {
	if err := s.pastLimit(ctx, start, "fit"); err != nil { // reading the form took it all
		return nil, nil, err
	}
	release, err := s.acquireSlot()
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	rel := func() { once.Do(release) }
	done := make(chan fitOutcome, 1)
	go func() {
		rep, err := starter.Fit(src)
		done <- fitOutcome{rep, err}
	}()
	limitCtx, cancel := context.WithDeadline(ctx, start.Add(s.cfg.MaxRunTime))
	defer cancel()
	select {
	case o := <-done:
		if o.err != nil {
			rel()
			return nil, nil, o.err
		}
		return o.rep, rel, nil
	case <-limitCtx.Done():
		go func() { <-done; rel() }()
		return nil, nil, s.limitError(ctx, limitCtx, "fit")
	}
}

// pastLimit is the problem of work whose run time limit (from start) has
// passed or whose client left; nil while neither.
func (s *Server) pastLimit(ctx context.Context, start time.Time, what string) error {
	if ctx.Err() != nil {
		return s.limitError(ctx, ctx, what)
	}
	if time.Since(start) > s.cfg.MaxRunTime {
		return s.tooLong(what)
	}
	return nil
}

// limitError is the error of work that limitCtx (the request's context
// with the run time limit's deadline) stopped: run-too-long when the
// deadline passed, the request's cancellation when its client left.
func (s *Server) limitError(ctx, limitCtx context.Context, what string) error {
	if ctx.Err() == nil && errors.Is(limitCtx.Err(), context.DeadlineExceeded) {
		return s.tooLong(what)
	}
	return diag.Errorf(diag.ECANCELED, "%s canceled: %v", what, ctx.Err())
}

// readFitForm reads the parts of POST /fit (or of spec, /calibrate's); ulog
// may come several times. The options part, when spec has it, is returned
// in options.
func (s *Server) readFitForm(c echo.Context, boundary string, spec formSpec, options *[]byte) (starter.FitSources, starter.Files, error) {
	var src starter.FitSources
	var files starter.Files
	if boundary == "" {
		return src, files, problemf(http.StatusBadRequest, "malformed-multipart", "Malformed multipart body", "Content-Type has no boundary")
	}
	mr := multipart.NewReader(c.Request().Body, boundary)
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			if len(seen) == 0 {
				return src, files, s.formError(errNoPart, boundary, spec)
			}
			break
		}
		if err != nil {
			return src, files, s.formError(err, boundary, spec)
		}
		if err := c.Request().Context().Err(); err != nil { // the client left
			return src, files, diag.Errorf(diag.ECANCELED, "fit canceled while reading the form: %v", err)
		}
		name := part.FormName()
		known := false
		for _, n := range spec.names {
			known = known || n == name
		}
		switch {
		case !known:
			return src, files, partProblem(name, "unknown form part %q: send %s", name, spec.want)
		case seen[name] && name != "ulog":
			return src, files, partProblem(name, "form part %q given twice: send each part once (only ulog may repeat)", name)
		}
		seen[name] = true
		data, err := io.ReadAll(part)
		if err != nil {
			return src, files, s.formError(err, boundary, spec)
		}
		if !utf8.Valid(data) {
			return src, files, notUTF8Part(name, data)
		}
		text := string(data)
		switch name {
		case "trace":
			files.Trace, files.TraceName = &text, capText(part.FileName())
		case "trace_map":
			if files.Columns, err = starter.ParseTraceMap(strings.TrimSpace(text)); err != nil {
				return src, files, partProblem(name, "trace_map: %v", err)
			}
		case "trace_skip_bad":
			if files.SkipBad, err = skipBadPart(text); err != nil {
				return src, files, err
			}
		case "ulog":
			fn := part.FileName()
			if fn == "" {
				fn = "ulog"
			}
			src.ULOG = append(src.ULOG, ulog.File{Name: fn, Text: text})
		case "ubbconfig":
			files.UBBConfig, files.UBBName = &text, capText(part.FileName())
		case "dmconfig":
			files.DMConfig = &text
		case "psc":
			files.PSC = &text
		case "options":
			*options = data
		}
	}
	switch {
	case options != nil && files.Trace == nil && len(src.ULOG) == 0: // calibrate fits from ULOG parts and replays the trace
		return src, files, partProblem("trace", "send a trace part, ulog parts, or both: %s", spec.example)
	case options == nil && (files.Trace == nil) == (len(src.ULOG) == 0):
		return src, files, partProblem("trace", "send a trace part or ulog parts (one of them): %s", spec.example)
	case files.Columns != nil && files.Trace == nil:
		return src, files, partProblem("trace_map", "trace_map reads a trace part")
	case files.SkipBad && files.Trace == nil:
		return src, files, partProblem("trace_skip_bad", "trace_skip_bad reads a trace part")
	case files.PSC != nil && files.UBBConfig == nil:
		return src, files, partProblem("psc", "psc names the servers of a ubbconfig part: send one")
	}
	src.Trace, src.TraceName, src.Columns, src.UBBConfig, src.DMConfig = files.Trace, files.TraceName, files.Columns, files.UBBConfig, files.DMConfig
	src.SkipBad, src.PSC = files.SkipBad, files.PSC
	// what the reading of the ULOG parts keeps one by one: a quarter of a
	// run's share, 48 bytes a record (as the CLI's of its budget)
	src.ULOGKeep = int(min(s.share()/4/48, math.MaxInt32))
	return src, files, nil
}
