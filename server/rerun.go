package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/records"
)

// rerun runs a stored run's scenario again, with the same policy and seed
// overrides, on this server's engine, and stores the new run. The answer says
// whether the engine version differs from the one that made the stored run,
// and whether the result bytes changed.
func (s *Server) rerun(c echo.Context) error {
	start := time.Now()
	id, err := idParam(c)
	if err != nil {
		return err
	}
	keep, err := dispatchParam(c)
	if err != nil {
		return err
	}
	all, err := seriesParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	old, err := s.cfg.Store.Run(ctx, id)
	if err != nil {
		return err
	}
	sc, err := core.DecodeScenario(old.Scenario) // execute checks it
	if err != nil {
		return err // the stored scenario no longer reads: the engine changed under it
	}
	opt := core.RunOptions{Policy: old.Policy, AllSeries: all}
	if seed, err := plan.ParseSeed("seed", old.Seed); err == nil {
		opt.Seed = &seed
	}
	stored := &records.SavedScenario{ID: old.ScenarioID, Name: old.Name, Body: old.Scenario}
	run, shown, err := s.execute(ctx, execution{scenario: sc, stored: stored, opt: opt, keep: keep, start: start})
	if err != nil {
		return err
	}
	run.RerunOf = old.ID
	if err := s.storeRun(ctx, start, run); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/runs/"+run.ID)
	return writeObject(c, http.StatusCreated, "id", run.ID, "rerun_of", old.ID,
		"engine_version", run.EngineVersion, "previous_engine_version", old.EngineVersion,
		"engine_changed", run.EngineVersion != old.EngineVersion,
		"result_changed", !bytes.Equal(run.Result, compactJSON(old.Result)), // stored indented by an older server, or compact
		"result", json.RawMessage(shown))
}
