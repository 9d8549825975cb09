package server

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// File names the diagnostics of POST /validate use: the names of the
// body's fields and parts, as the diagnostics of runs do.
const (
	ubbFileName = "ubbconfig"
	dmFileName  = "dmconfig"
)

// configInput is what POST /validate checks; as JSON it is read strictly.
type configInput struct {
	UBBConfig string              `json:"ubbconfig"`
	DMConfig  string              `json:"dmconfig,omitempty"`
	Advertise map[string][]string `json:"advertise,omitempty"`
}

// validate parses a UBBCONFIG (and optional DMCONFIG) and answers the Model,
// or 422 with the positioned errors. The body is text/plain (the UBBCONFIG),
// multipart/form-data (parts ubbconfig and dmconfig) or application/json
// ({"ubbconfig", "dmconfig", "advertise"}).
func (s *Server) validate(c echo.Context) error {
	start := time.Now()
	in, err := s.readConfigInput(c)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.UBBConfig) == "" {
		p := problemf(http.StatusUnprocessableEntity, "invalid", "Invalid input", "ubbconfig: empty; post the UBBCONFIG text")
		p.Errors = []ProblemItem{{Field: "ubbconfig", Message: "empty"}}
		return p
	}
	// Reading the model and answering it is as heavy as a run: it takes a
	// run slot, and its estimate must fit a share of the memory budget.
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	model, err := core.LoadModel(ubb.Input{UBBConfig: in.UBBConfig, UBBName: ubbFileName,
		DMConfig: in.DMConfig, DMName: dmFileName, Advertise: in.Advertise})
	if err != nil {
		return err
	}
	if d := admission.Decide(admission.ModelCost(model), s.share()); !d.Fits {
		p := s.overBudget(d, "model as JSON")
		p.Type, p.Title = ProblemTypeBase+"model-too-large", "Model too large"
		return p
	}
	// A few lines (MIN=1000 and a long -s list) expand into a model that
	// lists every service of every instance: bound what the answer lists.
	if n := advertisements(model); n > s.cfg.MaxModelEntries {
		p := problemf(http.StatusRequestEntityTooLarge, "model-too-large", "Model too large",
			"the model lists %d services over %d server instances (instances x services they advertise); "+
				"this server answers at most %d (flag --max-model-entries, env TUXLB_MAX_MODEL_ENTRIES); "+
				"use tuxlb validate for larger ones", n, len(model.Servers), s.cfg.MaxModelEntries)
		p.Limit = s.cfg.MaxModelEntries
		return p
	}
	if time.Since(start) > s.cfg.MaxRunTime {
		return s.tooLong("validation")
	}
	// The same bytes as `tuxlb validate` prints.
	out, err := json.MarshalIndent(model, "", "  ")
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, append(out, '\n'))
}

// advertisements counts the (instance, service) pairs of m: what the
// model's JSON lists.
func advertisements(m *core.Model) int64 {
	var n int64
	for i := range m.Servers {
		n += int64(len(m.Servers[i].Services))
	}
	return n
}

// readConfigInput reads the body of POST /validate by its content type.
func (s *Server) readConfigInput(c echo.Context) (*configInput, error) {
	ctype := c.Request().Header.Get(echo.HeaderContentType)
	media, params, err := mime.ParseMediaType(ctype)
	if ctype == "" {
		media, err = "text/plain", nil
	}
	if err != nil {
		return nil, unsupportedMedia(ctype)
	}
	switch media {
	case "text/plain":
		body, err := s.readBody(c)
		return &configInput{UBBConfig: string(body)}, err
	case "application/json":
		return s.readConfigJSON(c)
	case "multipart/form-data":
		return s.readConfigForm(c, params["boundary"])
	}
	return nil, unsupportedMedia(ctype)
}

// unsupportedMedia is the 415 problem for a body of a type /validate does not read.
func unsupportedMedia(ctype string) *Problem {
	hint := ""
	if strings.HasPrefix(ctype, "application/x-www-form-urlencoded") {
		hint = " (curl --data-binary sends this type unless told: add -H 'Content-Type: text/plain')"
	}
	return problemf(http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type",
		"Content-Type %q%s: send text/plain, application/json or multipart/form-data%s", ctype,
		paramsUnread(ctype, "text/plain", "application/json", "multipart/form-data"), hint)
}

// readConfigJSON reads {"ubbconfig","dmconfig","advertise"}: malformed JSON
// is 400, an unknown field or a wrong type 422.
func (s *Server) readConfigJSON(c echo.Context) (*configInput, error) {
	body, err := s.readBody(c)
	if err != nil {
		return nil, err
	}
	if _, err := Canonical(body); err != nil {
		return nil, err
	}
	var in configInput
	if err := decodeStrict(body, &in, "body"); err != nil {
		return nil, err
	}
	return &in, nil
}

// configForm is what POST /validate reads from multipart/form-data.
var configForm = formSpec{names: []string{"ubbconfig", "dmconfig"}, want: "ubbconfig and optionally dmconfig",
	example: "curl -F ubbconfig=@FILE"}

// readConfigForm reads the parts ubbconfig and dmconfig of a multipart form,
// each a file or a plain field; other parts are an error.
func (s *Server) readConfigForm(c echo.Context, boundary string) (*configInput, error) {
	parts, err := s.readForm(c, boundary, configForm)
	if err != nil {
		return nil, err
	}
	return &configInput{UBBConfig: parts["ubbconfig"].text, DMConfig: parts["dmconfig"].text}, nil
}
