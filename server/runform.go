package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// runFormParts are the parts POST /runs reads from multipart/form-data.
const runFormParts = "ubbconfig, dmconfig, trace, trace_map, trace_skip_bad and scenario"

// isMultipart says whether the request body is multipart/form-data.
func isMultipart(c echo.Context) (bool, string) {
	media, params, err := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	return err == nil && media == "multipart/form-data", params["boundary"]
}

// unreadType is the start of a 415's detail for a form whose
// Content-Type names multipart/form-data but cannot be read: "Content-Type
// ... (its parameters cannot be read: ...); ", else "".
func unreadType(c echo.Context) string {
	ctype := c.Request().Header.Get(echo.HeaderContentType)
	if why := paramsUnread(ctype, "multipart/form-data"); why != "" {
		return fmt.Sprintf("Content-Type %s%s; ", quoteCapped(ctype), why)
	}
	return ""
}

// readRunForm reads a run posted as files, the way an administrator has
// them: parts ubbconfig, dmconfig and trace (files or plain fields),
// trace_map (`time=COL,service=COL,...`), trace_skip_bad (true or false)
// and scenario (JSON for the rest).
// Each file part replaces that part of the scenario; with no scenario part,
// the files make one with defaults (starter.WithFiles). The scenario stored is
// the combined one, so the run can be read back, shared and rerun.
//
// name turns a later error of the run into one that names the trace part
// when the trace is at fault.
func (s *Server) readRunForm(c echo.Context, boundary string) (sc *scenario.Scenario, stored *records.SavedScenario, name func(error) error, err error) {
	sc, stored, files, err := s.readRunParts(c, boundary)
	return sc, stored, func(e error) error { return namePart(e, files) }, err
}

// runForm is what POST /runs reads from multipart/form-data.
var runForm = formSpec{names: []string{"ubbconfig", "dmconfig", "trace", "trace_map", "trace_skip_bad", "scenario"}, want: runFormParts,
	example: "curl -F ubbconfig=@ubb.cfg -F trace=@trace.csv"}

func (s *Server) readRunParts(c echo.Context, boundary string) (*scenario.Scenario, *records.SavedScenario, starter.Files, error) {
	var files starter.Files
	parts, err := s.readForm(c, boundary, runForm)
	if err != nil {
		return nil, nil, files, err
	}
	var doc []byte
	for name, part := range parts {
		text := part.text
		switch name {
		case "ubbconfig":
			files.UBBConfig, files.UBBName = &text, capText(part.file)
		case "dmconfig":
			files.DMConfig = &text
		case "trace":
			files.Trace, files.TraceName = &text, capText(part.file)
		case "trace_map":
			if files.Columns, err = starter.ParseTraceMap(strings.TrimSpace(text)); err != nil {
				return nil, nil, files, partProblem(name, "trace_map: %v", err)
			}
		case "trace_skip_bad":
			if files.SkipBad, err = skipBadPart(text); err != nil {
				return nil, nil, files, err
			}
		case "scenario":
			doc = []byte(text)
		}
	}
	var sc *scenario.Scenario
	if doc != nil {
		if _, err := Canonical(doc); err != nil {
			return nil, nil, files, inPart(err, "scenario")
		}
		if sc, err = core.DecodeScenario(doc); err == nil { // the run checks it once, files spliced in
			sc, err = starter.WithFiles(sc, files)
		}
	} else if files.UBBConfig == nil {
		return nil, nil, files, partProblem("ubbconfig", "form part ubbconfig: missing (send ubbconfig, or a scenario part with the rest)")
	} else {
		sc, err = starter.WithFiles(nil, files)
	}
	if err != nil {
		return nil, nil, files, namePart(err, files)
	}
	body, err := json.Marshal(sc)
	if err != nil {
		return nil, nil, files, err
	}
	canonical, err := Canonical(body)
	if err != nil {
		return nil, nil, files, err
	}
	return sc, &records.SavedScenario{ID: ScenarioID(canonical), Name: sc.Name, Body: canonical}, files, nil
}

// skipBadPart reads the trace_skip_bad form part: true or false.
func skipBadPart(text string) (bool, error) {
	v, err := strconv.ParseBool(strings.TrimSpace(text))
	if err != nil {
		return false, partProblem("trace_skip_bad", "form part trace_skip_bad: want true or false, got %q", capText(strings.TrimSpace(text)))
	}
	return v, nil
}

// inPart names the form part a JSON document came as in the problem of
// its reading (400 malformed-json): the detail says the part, and each item
// has it as its field.
func inPart(err error, part string) error {
	var p *Problem
	if errors.As(err, &p) {
		p.Detail = "form part " + part + ": " + p.Detail
		for i := range p.Errors {
			p.Errors[i].Field = part
		}
	}
	return err
}

// partProblem is the 422 problem of one form part.
func partProblem(part, format string, args ...any) *Problem {
	p := problemf(http.StatusUnprocessableEntity, "invalid", "Invalid input", format, args...)
	p.Errors = []ProblemItem{{Field: part, Message: p.Detail}}
	return p
}

// fromTrace says whether a core error is about the trace: its rows, its
// columns, or how the scenario maps them (workload.columns).
func fromTrace(ce *diag.Error) bool {
	for _, d := range ce.Diagnostics {
		if d.Source == ubb.SourceTrace || strings.HasPrefix(d.Field, "workload.columns") {
			return true
		}
	}
	return false
}

// namePart names the form part a core error comes from: the trace for
// trace rows and columns (the ubbconfig and dmconfig parts are named by
// their diagnostics' file).
func namePart(err error, files starter.Files) error {
	var ce *diag.Error
	if !errors.As(err, &ce) || files.Trace == nil {
		return err
	}
	if fromTrace(ce) {
		p := fromCoreError(ce)
		p.Detail = "form part trace: " + ce.Message
		for i := range p.Errors {
			p.Errors[i].Source, p.Errors[i].File = "trace", files.TraceName
		}
		return p
	}
	return err
}
