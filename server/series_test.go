package server

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

// manyServersScenario is a scenario of 80 instances with a queue each: more
// than the 64 lines a result's series keep by default.
const manyServersScenario = `{
  "ubbconfig": "*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\nnode1 LMID=SITE1\n*GROUPS\nAPP LMID=SITE1 GRPNO=1\n*SERVERS\nsimpserv SRVGRP=APP SRVID=1 MIN=80 MAX=80 CLOPT=\"-s TOUPPER --\"\n*SERVICES\nTOUPPER LOAD=50\n",
  "workload": {"trace_csv": "time_ms,service,service_ms\n0,TOUPPER,10\n1,TOUPPER,10\n"}
}`

// POST /runs?series=all stores and answers every line of the series, the
// bytes of core.Run with AllSeries; without it the result is summarised,
// and GET /runs/{id}?series=all of that run is 409 series-summarised, while
// a run made with series=all is served. A bad value is 400.
func TestRunSeriesParam(t *testing.T) {
	h := newHarness(t, nil)
	sc, err := core.ParseScenario([]byte(manyServersScenario))
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		query := ""
		if all {
			query = "?series=all"
		}
		run := h.postRun(query, manyServersScenario)
		res, err := core.Run(sc, core.RunOptions{AllSeries: all})
		if err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimRight(result.Encode(res), "\n"); !bytes.Equal(run.Result, want) {
			t.Errorf("series=all %v: the result is not core.Run's with AllSeries %v", all, all)
		}
		get := h.do(http.MethodGet, "/api/v1/runs/"+run.ID+"?series=all", "", "")
		if all {
			if get.Code != http.StatusOK || strings.Contains(get.Body.String(), `"summarised"`) {
				t.Errorf("GET ?series=all of a run with every line: %d", get.Code)
			}
		} else {
			wantProblem(t, get, "/api/v1/runs/"+run.ID, http.StatusConflict, "series-summarised")
			if rec := h.do(http.MethodGet, "/api/v1/runs/"+run.ID, "", ""); rec.Code != http.StatusOK {
				t.Errorf("GET without series: %d", rec.Code)
			}
			rerun := h.do(http.MethodPost, "/api/v1/runs/"+run.ID+"/rerun?series=all", "", "")
			if rerun.Code != http.StatusCreated || strings.Contains(rerun.Body.String(), `"summarised"`) {
				t.Errorf("rerun?series=all: %d, or still summarised", rerun.Code)
			}
		}
	}
	wantProblem(t, h.do(http.MethodPost, "/api/v1/runs?series=some", "application/json", manyServersScenario),
		"/api/v1/runs", http.StatusBadRequest, "malformed-query")
}
