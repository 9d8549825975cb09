package server

import (
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

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
func (s *Server) fit(c echo.Context) error {
	ok, boundary := isMultipart(c)
	if !ok {
		return problemf(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
			"POST /api/v1/fit takes multipart/form-data: send %s, e.g. %s", fitForm.want, fitForm.example)
	}
	src, files, err := s.readFitForm(c, boundary)
	if err != nil {
		return err
	}
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	rep, err := starter.Fit(src)
	if err != nil {
		return namePart(err, files)
	}
	out := fitAnswer{Report: rep}
	if src.UBBConfig != nil {
		if out.Scenario, out.ScenarioWarnings, err = starter.FromFit(files, rep); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, out)
}

// readFitForm reads POST /fit's parts; ulog may come several times.
func (s *Server) readFitForm(c echo.Context, boundary string) (starter.FitSources, starter.Files, error) {
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
				return src, files, s.formError(errNoPart, boundary, fitForm)
			}
			break
		}
		if err != nil {
			return src, files, s.formError(err, boundary, fitForm)
		}
		name := part.FormName()
		known := false
		for _, n := range fitForm.names {
			known = known || n == name
		}
		switch {
		case !known:
			return src, files, partProblem(name, "unknown form part %q: send %s", name, fitForm.want)
		case seen[name] && name != "ulog":
			return src, files, partProblem(name, "form part %q given twice: send each part once (only ulog may repeat)", name)
		}
		seen[name] = true
		data, err := io.ReadAll(part)
		if err != nil {
			return src, files, s.formError(err, boundary, fitForm)
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
		}
	}
	switch {
	case (files.Trace == nil) == (len(src.ULOG) == 0):
		return src, files, partProblem("trace", "send a trace part or ulog parts (one of them): %s", fitForm.example)
	case files.Columns != nil && files.Trace == nil:
		return src, files, partProblem("trace_map", "trace_map reads a trace part")
	case files.SkipBad && files.Trace == nil:
		return src, files, partProblem("trace_skip_bad", "trace_skip_bad reads a trace part")
	case files.PSC != nil && files.UBBConfig == nil:
		return src, files, partProblem("psc", "psc names the servers of a ubbconfig part: send one")
	}
	src.Trace, src.TraceName, src.Columns, src.UBBConfig, src.DMConfig = files.Trace, files.TraceName, files.Columns, files.UBBConfig, files.DMConfig
	src.SkipBad, src.PSC = files.SkipBad, files.PSC
	return src, files, nil
}
