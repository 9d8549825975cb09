package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
)

// maxCompare is the most runs one comparison takes.
const maxCompare = 10

// comparison is the body of GET /compare: the runs side by side, each with
// its differences against the first (the base), as core.CompareResults (and
// so `tuxlb compare` and the playground) computes them.
type comparison struct {
	Base    string                `json:"base"`
	Runs    []comparedRun         `json:"runs"`
	Servers []core.ComparedServer `json:"servers"`
}

// comparedRun is one run of a comparison.
type comparedRun struct {
	ID            string        `json:"id"`
	Name          string        `json:"name"`
	CreatedAt     string        `json:"created_at"`
	EngineVersion string        `json:"engine_version"`
	Headline      core.Headline `json:"headline"`
	// Diff is, per headline figure, this run's value minus the base's and
	// that difference over the base's value (absent when the base is 0).
	// The base itself has no diff.
	Diff map[string]core.Diff `json:"diff,omitempty"`
}

// compare answers GET /compare?runs=ID,ID[,...].
func (s *Server) compare(c echo.Context) error {
	ids, err := compareIDs(c.QueryParam("runs"))
	if err != nil {
		return err
	}
	// Decoding up to maxCompare stored results is as heavy as a run: a
	// compare takes a run slot, and keeps only the decoded results.
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	var runs []*core.StoredRun
	var results []*core.Result
	for _, id := range ids {
		run, err := s.cfg.Store.Run(c.Request().Context(), id)
		if err != nil {
			return err
		}
		var res core.Result
		if err := json.Unmarshal(run.Result, &res); err != nil {
			return fmt.Errorf("run %s: stored result: %w", id, err)
		}
		run.Result, run.Scenario, run.DispatchGzip = nil, nil, nil
		runs, results = append(runs, run), append(results, &res)
	}
	cmp := core.CompareResults(ids, results)
	out := comparison{Base: ids[0], Servers: cmp.Servers}
	for i, run := range runs {
		out.Runs = append(out.Runs, comparedRun{ID: run.ID, Name: run.Name,
			CreatedAt: run.CreatedAt.Format(core.TimeFormat), EngineVersion: run.EngineVersion,
			Headline: cmp.Variants[i].Headline, Diff: cmp.Variants[i].Diff})
	}
	return c.JSON(http.StatusOK, out)
}

// compareIDs reads and checks the runs parameter: 2 to maxCompare ids.
func compareIDs(param string) ([]string, error) {
	want := fmt.Sprintf("2 to %d run ids separated by commas", maxCompare)
	if param == "" {
		return nil, badQuery("runs", param, want)
	}
	ids := strings.Split(param, ",")
	if len(ids) < 2 || len(ids) > maxCompare {
		return nil, badQuery("runs", param, fmt.Sprintf("%s, got %d", want, len(ids)))
	}
	for _, id := range ids {
		if !validID.MatchString(id) {
			return nil, malformedID("runs", id)
		}
	}
	return ids, nil
}
