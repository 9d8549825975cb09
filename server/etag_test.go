package server

import (
	"net/http"
	"testing"

	"github.com/tuxlb/tuxlb/core/sweep"
)

// wantConditional checks that path has an ETag, answers 304 with no body to
// an If-None-Match naming it (in a list, or weak), and 200 to another tag.
func (h *harness) wantConditional(path string) {
	h.t.Helper()
	rec := h.do("GET", path, "", "")
	etag := rec.Header().Get("ETag")
	if rec.Code != 200 || len(etag) < 3 || etag[0] != '"' {
		h.t.Fatalf("%s: status %d ETag %q, want 200 and a strong tag", path, rec.Code, etag)
	}
	body := rec.Body.String()
	for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
		for _, method := range []string{"GET", "HEAD"} {
			rec := h.do(method, path, "", "", "If-None-Match", inm)
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
				h.t.Errorf("%s %s If-None-Match %s: status %d, %d bytes, ETag %q; want 304, none, %s",
					method, path, inm, rec.Code, rec.Body.Len(), rec.Header().Get("ETag"), etag)
			}
		}
	}
	rec = h.do("GET", path, "", "", "If-None-Match", `"other"`)
	if rec.Code != 200 || rec.Body.String() != body || rec.Header().Get("ETag") != etag {
		h.t.Errorf("%s with another tag: status %d, same body %v, ETag %q; want 200, the same, %s",
			path, rec.Code, rec.Body.String() == body, rec.Header().Get("ETag"), etag)
	}
}

func TestImmutableResourcesAnswer304(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 2 })
	run := h.postRun("", scenarioJSON(t))
	h.wantConditional("/api/v1/runs/" + run.ID)
	h.wantConditional("/api/v1/runs/" + run.ID + "/result.json")
	if a, b := h.do("GET", "/api/v1/runs/"+run.ID, "", ""), h.do("GET", "/api/v1/runs/"+run.ID+"/result.json", "", ""); a.Header().Get("ETag") == b.Header().Get("ETag") {
		t.Errorf("a run and its result share the ETag %s", a.Header().Get("ETag"))
	}

	rec := h.do("POST", "/api/v1/scenarios", "application/json", scenarioJSON(t))
	if rec.Code != 201 && rec.Code != 200 {
		t.Fatalf("POST /scenarios: %d %s", rec.Code, rec.Body.String())
	}
	h.wantConditional(rec.Header().Get("Location"))

	id := h.postSweep(sweepBody(t, []string{"rate_scale=0.5,1"}, 1, "response_p99_ms<=40"))
	if rec := h.do("GET", "/api/v1/sweeps/"+id, "", ""); rec.Header().Get("ETag") != "" {
		t.Errorf("a queued sweep has the ETag %s: it still changes", rec.Header().Get("ETag"))
	}
	h.startSweeps()
	if j := h.waitSweep(id, sweep.Done, sweep.Failed); j.Status != sweep.Done {
		t.Fatalf("sweep %+v", j)
	}
	h.wantConditional("/api/v1/sweeps/" + id)
}

func TestAssetsHaveETags(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/", "/index.html", "/assets/app.js", "/assets/core.wasm"} {
		h.wantConditional(path)
	}
	if a, b := h.do("GET", "/", "", ""), h.do("GET", "/assets/app.js", "", ""); a.Header().Get("ETag") == b.Header().Get("ETag") {
		t.Errorf("index.html and app.js share an ETag")
	}
	if cc := h.do("GET", "/", "", "").Header().Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("index.html Cache-Control %q, want no-cache (revalidated with its ETag)", cc)
	}
}
