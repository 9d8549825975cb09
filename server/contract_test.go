package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// apiValidator checks exchanges against the API document (server/openapi.json),
// built once for all the tests.
var apiValidator = sync.OnceValues(func() (validator.Validator, error) {
	doc, err := libopenapi.NewDocument(OpenAPI())
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return v, nil
})

// checkExchange fails the test when a request and its recorded response
// disagree with the API document: every response must be one the document
// describes for its path, method and status; a request the server accepted
// (a 2xx answer) must be one the document allows. Requests the server
// refused are not checked, since the tests send malformed ones on purpose.
func checkExchange(t *testing.T, method, target, contentType string, body []byte, headers []string, rec *httptest.ResponseRecorder) {
	t.Helper()
	for _, p := range exchangeProblems(method, target, contentType, body, headers, rec) {
		t.Error(p)
	}
}

// exchangeProblems is what checkExchange reports, one message per problem.
func exchangeProblems(method, target, contentType string, body []byte, headers []string, rec *httptest.ResponseRecorder) []string {
	v, err := apiValidator()
	if err != nil {
		return []string{"the API document does not load: " + err.Error()}
	}
	var out []string
	if contentType == "" && len(body) > 0 {
		contentType = "text/plain" // how the server reads a body without a type (docs/api.md)
	}
	newRequest := func() *http.Request {
		req := httptest.NewRequest(method, target, bytes.NewReader(body))
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		return req
	}
	req := newRequest()
	if !documented(req) {
		return nil
	}
	res := rec.Result()
	res.Body = io.NopCloser(bytes.NewReader(rec.Body.Bytes()))
	if method == http.MethodHead {
		res.Body = http.NoBody // a server sends no body to HEAD, whatever the handler wrote
	}
	if rec.Code/100 == 2 {
		if ok, errs := v.ValidateHttpRequest(req); !ok {
			out = append(out, fmt.Sprintf("%s %s (answered %d): the request disagrees with the API document:%s", method, target, rec.Code, describe(errs)))
		}
		req = newRequest()
	}
	if ok, errs := v.ValidateHttpResponse(req, res); !ok {
		if (rec.Code == http.StatusNotFound || rec.Code == http.StatusMethodNotAllowed) && onlyPathErrors(errs) {
			return out // no such route: the document cannot describe it
		}
		out = append(out, fmt.Sprintf("%s %s: the %d response disagrees with the API document:%s\nbody: %.600s", method, target, rec.Code, describe(errs), rec.Body.String()))
	}
	return out
}

// TestExchangeCheckCatchesDrift checks that the check fails a response and
// a request that disagree with the document, so that its silence in the
// other tests means something.
func TestExchangeCheckCatchesDrift(t *testing.T) {
	h := newHarness(t, nil)
	rec := h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /runs: %d %s", rec.Code, rec.Body.String())
	}
	var created struct {
		ID string `json:"id"`
	}
	decode(t, rec, &created)
	target := "/api/v1/runs/" + created.ID + "/result.json"
	good := h.do("GET", target, "", "")
	if p := exchangeProblems("GET", target, "", nil, nil, good); len(p) != 0 {
		t.Fatalf("the real result: %v", p)
	}
	for name, edit := range map[string]func(string) string{
		"a field of the wrong type": func(s string) string {
			return strings.Replace(s, `"engine_version": "`, `"engine_version": 7, "x": "`, 1)
		},
		"a field Go does not have": func(s string) string { return strings.Replace(s, "{", `{"surplus": 1,`, 1) },
		"a required field missing": func(s string) string { return strings.Replace(s, `"policy":`, `"policy_was":`, 1) },
	} {
		bad := httptest.NewRecorder()
		bad.Header().Set("Content-Type", "application/json")
		bad.WriteHeader(http.StatusOK)
		bad.WriteString(edit(good.Body.String()))
		if p := exchangeProblems("GET", target, "", nil, nil, bad); len(p) == 0 {
			t.Errorf("%s: a result that disagrees with the document passed", name)
		}
	}
	// A request the server would have accepted, but with a field the document does not allow.
	ok := httptest.NewRecorder()
	ok.Header().Set("Content-Type", "application/json")
	ok.WriteHeader(http.StatusCreated)
	ok.WriteString(`{"id": "x", "result": {}}`)
	body := strings.Replace(scenarioJSON(t), "{", `{"nonsense": true,`, 1)
	p := exchangeProblems("POST", "/api/v1/runs", "application/json", []byte(body), nil, ok)
	if len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), "the request disagrees") {
		t.Errorf("a scenario with an unknown field passed the request check: %v", p)
	}
}

// documented says whether the API document has the request's path: the
// playground's files (everything outside /api, /s and the probes) are served
// by the static handler, which the document lists as one catch-all.
func documented(req *http.Request) bool {
	p := req.URL.Path
	return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/s/") ||
		p == "/healthz" || p == "/livez" || p == "/readyz" || p == "/metrics"
}

// onlyPathErrors says whether the validator found only that the document has
// no such path or method.
func onlyPathErrors(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationType != "path" {
			return false
		}
	}
	return len(errs) > 0
}

// describe lists the validator's complaints, with the schema paths.
func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n  - " + e.Message)
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
		for _, s := range e.SchemaValidationErrors {
			b.WriteString("\n      " + s.FieldPath + ": " + s.Reason)
		}
	}
	return b.String()
}

// TestAPIDocumentIsValid checks the document itself against the OpenAPI 3.1
// schema.
func TestAPIDocumentIsValid(t *testing.T) {
	v, err := apiValidator()
	if err != nil {
		t.Fatal(err)
	}
	if ok, errs := v.ValidateDocument(); !ok {
		t.Errorf("server/openapi.json is not a valid OpenAPI document:%s", describe(errs))
	}
}
