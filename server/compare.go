package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/storage"
)

// maxCompare is the most runs one comparison takes.
const maxCompare = 10

// comparison is the body of GET /compare: the runs side by side, each with
// its differences against the first (the base).
type comparison struct {
	Base    string          `json:"base"`
	Runs    []comparedRun   `json:"runs"`
	Servers []comparedServe `json:"servers"`
}

// comparedRun is one run of a comparison.
type comparedRun struct {
	ID            string           `json:"id"`
	Name          string           `json:"name"`
	CreatedAt     string           `json:"created_at"`
	EngineVersion string           `json:"engine_version"`
	Headline      storage.Headline `json:"headline"`
	// Diff is, per headline figure, this run's value minus the base's and
	// that difference over the base's value (null when the base is 0).
	Diff map[string]Difference `json:"diff"`
}

// Difference is a figure's change against the base run.
type Difference struct {
	Abs float64  `json:"abs"`
	Rel *float64 `json:"rel"`
}

// comparedServe is one server instance's requests in each run (null where a
// run has no such instance) and the difference against the base.
type comparedServe struct {
	ID       string   `json:"id"`
	Requests []*int64 `json:"requests"`
	Diff     []*int64 `json:"diff"`
}

// compare answers GET /compare?runs=ID,ID[,...].
func (s *Server) compare(c echo.Context) error {
	ids, err := compareIDs(c.QueryParam("runs"))
	if err != nil {
		return err
	}
	out := comparison{Base: ids[0]}
	var perRun []map[string]int64
	var order []string
	seen := map[string]bool{}
	for _, id := range ids {
		run, err := s.cfg.Store.Run(c.Request().Context(), id)
		if err != nil {
			return err
		}
		servers, err := serverRequests(run.Result)
		if err != nil {
			return fmt.Errorf("run %s: stored result: %w", id, err)
		}
		byID := map[string]int64{}
		for _, sv := range servers {
			byID[sv.ID] = sv.Requests
			if !seen[sv.ID] {
				seen[sv.ID] = true
				order = append(order, sv.ID)
			}
		}
		perRun = append(perRun, byID)
		out.Runs = append(out.Runs, comparedRun{ID: run.ID, Name: run.Name,
			CreatedAt: run.CreatedAt.Format(storage.TimeFormat), EngineVersion: run.EngineVersion, Headline: run.Headline})
	}
	for i := range out.Runs {
		out.Runs[i].Diff = diffHeadline(out.Runs[0].Headline, out.Runs[i].Headline)
	}
	for _, id := range order {
		out.Servers = append(out.Servers, compareServer(id, perRun))
	}
	return c.JSON(http.StatusOK, out)
}

// compareIDs reads and checks the runs parameter: 2 to maxCompare ids.
func compareIDs(param string) ([]string, error) {
	if param == "" {
		return nil, badQuery("runs", param, "2 to 10 run ids separated by commas")
	}
	ids := strings.Split(param, ",")
	if len(ids) < 2 || len(ids) > maxCompare {
		return nil, badQuery("runs", param, fmt.Sprintf("2 to %d run ids separated by commas, got %d", maxCompare, len(ids)))
	}
	for _, id := range ids {
		if !validID.MatchString(id) {
			return nil, malformedID("runs", id)
		}
	}
	return ids, nil
}

// serverRequests reads the per-server request counts out of a stored result.
func serverRequests(result []byte) ([]struct {
	ID       string `json:"id"`
	Requests int64  `json:"requests"`
}, error) {
	var r struct {
		Servers []struct {
			ID       string `json:"id"`
			Requests int64  `json:"requests"`
		} `json:"servers"`
	}
	err := json.Unmarshal(result, &r)
	return r.Servers, err
}

// diffHeadline compares every headline figure of h with base's.
func diffHeadline(base, h storage.Headline) map[string]Difference {
	b, v := headlineFigures(base), headlineFigures(h)
	out := make(map[string]Difference, len(b))
	for name, x0 := range b {
		d := Difference{Abs: v[name] - x0}
		switch {
		case x0 != 0:
			rel := d.Abs / x0
			d.Rel = &rel
		case d.Abs == 0:
			zero := 0.0
			d.Rel = &zero
		}
		out[name] = d
	}
	return out
}

// headlineFigures names the figures of h as its JSON does.
func headlineFigures(h storage.Headline) map[string]float64 {
	return map[string]float64{
		"issued": float64(h.Issued), "completed": float64(h.Completed), "failed": float64(h.Failed),
		"timed_out": float64(h.TimedOut), "wait_ms_mean": h.WaitMean, "wait_ms_p95": h.WaitP95,
		"wait_ms_p99": h.WaitP99, "response_ms_mean": h.ResponseMean, "response_ms_p95": h.ResponseP95,
		"response_ms_p99": h.ResponseP99, "max_utilization": h.MaxUtilization, "jain_utilization": h.Jain,
	}
}

// compareServer lines up one server's requests over the runs.
func compareServer(id string, perRun []map[string]int64) comparedServe {
	out := comparedServe{ID: id}
	base, inBase := perRun[0][id]
	for _, byID := range perRun {
		n, ok := byID[id]
		if !ok {
			out.Requests = append(out.Requests, nil)
			out.Diff = append(out.Diff, nil)
			continue
		}
		out.Requests = append(out.Requests, &n)
		if !inBase {
			out.Diff = append(out.Diff, nil)
			continue
		}
		d := n - base
		out.Diff = append(out.Diff, &d)
	}
	return out
}
