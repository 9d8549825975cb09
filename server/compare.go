package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// maxCompare is the most runs one comparison takes.
const maxCompare = 10

// comparison is the body of GET /compare: the runs side by side, each with
// its differences against the first (the base), as sweep.CompareResults (and
// so `tuxlb compare` and the playground) computes them.
type comparison struct {
	Base    string                 `json:"base"`
	Runs    []comparedRun          `json:"runs"`
	Servers []sweep.ComparedServer `json:"servers"`
	// Objectives are those asked for with objective=, all held at once;
	// each run has a verdict on each, judged on its value (JudgedOn
	// "value", Note saying why: one run has no interval).
	Objectives []sweep.ObjectiveInfo `json:"objectives,omitempty"`
	JudgedOn   string                `json:"judged_on,omitempty"`
	Note       string                `json:"note,omitempty"`
}

// compareNote says why a comparison's verdicts read the values.
const compareNote = "one run per entry: there is no confidence interval, so each objective is judged on the value alone (tuxlb compare --replications N gives intervals)"

// comparedRun is one run of a comparison.
type comparedRun struct {
	ID            string          `json:"id,omitempty"` // none for a variant
	Name          string          `json:"name"`
	CreatedAt     string          `json:"created_at,omitempty"`
	EngineVersion string          `json:"engine_version"`
	Headline      result.Headline `json:"headline"`
	// Diff is, per headline figure, this run's value minus the base's and
	// that difference over the base's value (absent when the base is 0).
	// The base itself has no diff.
	Diff map[string]sweep.Diff `json:"diff,omitempty"`
	// Figures are the figures asked for with figure= (a service's or a
	// machine's, e.g. response_p99_ms[INQUIRY]), by canonical name; their
	// differences are in Diff too.
	Figures map[string]float64 `json:"figures,omitempty"`
	// Verdicts are the run's verdicts on the objectives (yes or no), in
	// their order; Meets is true when all are yes.
	Verdicts []string `json:"verdicts,omitempty"`
	Meets    *bool    `json:"meets,omitempty"`
}

// compareObjectives reads the objective parameters (at most
// maxCompareFigures); a bad one is 422 naming objective.
func compareObjectives(texts []string) ([]*sweep.Objective, error) {
	if len(texts) > maxCompareFigures {
		return nil, badQuery("objective", strings.Join(texts, "&"), fmt.Sprintf("at most %d objectives", maxCompareFigures))
	}
	return sweep.ParseObjectives(nil, texts, func(i int) string { return "objective" })
}

// judgeRun sets a compared run's verdicts on the objectives, on its
// values; a service or machine the run does not have is EINVALID.
func judgeRun(objs []*sweep.Objective, name string, r *result.Result, out *comparedRun) error {
	if len(objs) == 0 {
		return nil
	}
	refs := make([]result.FigureRef, len(objs))
	for i, o := range objs {
		refs[i] = o.Ref
	}
	vals, err := figuresOf(refs, name, r)
	if err != nil {
		return diag.FieldErrorf("objective", "%v", err)
	}
	meets := true
	for _, o := range objs {
		v := o.Verdict(result.MeanCI{Mean: vals[o.Figure]}, 1)
		out.Verdicts = append(out.Verdicts, v)
		meets = meets && v == sweep.Yes
	}
	out.Meets = &meets
	return nil
}

// describeObjectives fills a comparison's objectives.
func (c *comparison) describeObjectives(objs []*sweep.Objective) {
	if len(objs) == 0 {
		return
	}
	for _, o := range objs {
		c.Objectives = append(c.Objectives, o.Info())
	}
	c.JudgedOn, c.Note = sweep.JudgedOnValue, compareNote
}

// maxCompareFigures bounds the figure= parameters of a compare.
const maxCompareFigures = 20

// compareFigures reads the figure parameters.
func compareFigures(texts []string) ([]result.FigureRef, error) {
	if len(texts) > maxCompareFigures {
		return nil, badQuery("figure", strings.Join(texts, "&"), fmt.Sprintf("at most %d figures", maxCompareFigures))
	}
	var refs []result.FigureRef
	for _, t := range texts {
		ref, err := result.ParseFigure(t)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// figuresOf reads the asked figures of a run's result; a service or a
// machine the result does not have is an EINVALID error naming the run.
func figuresOf(refs []result.FigureRef, name string, r *result.Result) (map[string]float64, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	out := map[string]float64{}
	for _, ref := range refs {
		switch {
		case ref.Service != "" && !slices.ContainsFunc(r.Services, func(s result.ServiceStats) bool { return s.Name == ref.Service }):
			return nil, diag.Errorf(diag.EINVALID, "figure %s: run %s has no service %q", ref, name, ref.Service)
		case ref.Machine != "" && !slices.ContainsFunc(r.Machines, func(m result.MachineStats) bool { return m.LMID == ref.Machine }):
			return nil, diag.Errorf(diag.EINVALID, "figure %s: run %s has no machine %q", ref, name, ref.Machine)
		}
		out[ref.String()] = ref.Of(r)
	}
	return out, nil
}

// addFigureDiffs puts the asked figures' differences against the base in
// each run's Diff (not the base's).
func addFigureDiffs(runs []comparedRun) {
	for i := 1; i < len(runs); i++ {
		for name, x := range runs[i].Figures {
			b := runs[0].Figures[name]
			d := sweep.Diff{Abs: math.Round((x-b)*1e6) / 1e6}
			if b != 0 {
				rel := math.Round(d.Abs/b*1e6) / 1e6
				d.Relative = &rel
			}
			if runs[i].Diff == nil {
				runs[i].Diff = map[string]sweep.Diff{}
			}
			runs[i].Diff[name] = d
		}
	}
}

// compare answers GET /compare?runs=ID,ID[,...], the stored runs side by
// side, or GET /compare?runs=ID&variant=K=V[&variant=...], the run's scenario
// re-run under each variant (on the identical request stream) beside it.
// Any other query parameter is a 400.
func (s *Server) compare(c echo.Context) error {
	for name := range c.QueryParams() {
		if name != "runs" && name != "variant" && name != "figure" && name != "objective" {
			return badQuery(name, c.QueryParam(name), "no such parameter (compare takes runs, variant, figure and objective)")
		}
	}
	refs, err := compareFigures(c.QueryParams()["figure"])
	if err != nil {
		return err
	}
	objs, err := compareObjectives(c.QueryParams()["objective"])
	if err != nil {
		return err
	}
	variants := c.QueryParams()["variant"]
	if len(variants) > 0 {
		return s.compareVariants(c, variants, refs, objs)
	}
	ids, err := compareIDs(c.QueryParam("runs"))
	if err != nil {
		return err
	}
	// Reading up to maxCompare stored results is as heavy as a run: a
	// compare takes a run slot.
	release, err := s.acquireSlot()
	if err != nil {
		return err
	}
	defer release()
	// One stored run at a time: each is read, decoded without the parts a
	// comparison does not use (series, queues, lifecycle, replications),
	// compared with the base (sweep.CompareResults on the pair), and dropped;
	// what is kept is the base's decoded summary, each run's headline and
	// diff, and the per-server request counts.
	ctx := c.Request().Context()
	out := comparison{Base: ids[0]}
	out.describeObjectives(objs)
	serverIdx := map[string]int{}
	var base *result.Result
	for i, id := range ids {
		run, err := s.cfg.Store.Run(ctx, id)
		if err != nil {
			return err
		}
		res, err := decodeForCompare(run)
		if err != nil {
			return err
		}
		run.Result, run.Scenario = nil, nil
		pair, names := []*result.Result{res}, []string{id}
		if i > 0 {
			pair, names = []*result.Result{base, res}, []string{ids[0], id}
		} else {
			base = res
		}
		cmp := sweep.CompareResults(names, pair)
		v := cmp.Variants[len(pair)-1]
		figs, err := figuresOf(refs, id, res)
		if err != nil {
			return err
		}
		cr := comparedRun{ID: run.ID, Name: run.Name,
			CreatedAt: run.CreatedAt.Format(records.TimeFormat), EngineVersion: run.EngineVersion,
			Headline: v.Headline, Diff: v.Diff, Figures: figs}
		if err := judgeRun(objs, id, res, &cr); err != nil {
			return err
		}
		out.Runs = append(out.Runs, cr)
		for _, sv := range cmp.Servers {
			j, ok := serverIdx[sv.ID]
			if !ok {
				j = len(out.Servers)
				serverIdx[sv.ID] = j
				out.Servers = append(out.Servers, sweep.ComparedServer{ID: sv.ID, Requests: make([]int64, len(ids))})
			}
			out.Servers[j].Requests[i] = sv.Requests[len(pair)-1]
		}
	}
	addFigureDiffs(out.Runs)
	return c.JSON(http.StatusOK, out)
}

// compareResult is a stored result as a comparison reads it: the parts that
// grow with the run's length (series, queues, lifecycle) and replications
// are skipped, unread into memory; the rest is result.Result's.
type compareResult struct {
	result.Result
	Series       skipJSON `json:"series"`
	Queues       skipJSON `json:"queues"`
	Lifecycle    skipJSON `json:"lifecycle"`
	Replications skipJSON `json:"replications"`
}

// skipJSON decodes any JSON value into nothing.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

// decodeForCompare decodes run's result for a comparison.
func decodeForCompare(run *records.StoredRun) (*result.Result, error) {
	var res compareResult
	if err := json.Unmarshal(run.Result, &res); err != nil {
		return nil, fmt.Errorf("run %s: stored result: %w", run.ID, err)
	}
	return &res.Result, nil
}

// runResult reads a stored run and decodes its result.
func (s *Server) runResult(ctx context.Context, id string) (*records.StoredRun, *result.Result, error) {
	run, err := s.cfg.Store.Run(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	var res result.Result
	if err := json.Unmarshal(run.Result, &res); err != nil {
		return nil, nil, fmt.Errorf("run %s: stored result: %w", id, err)
	}
	return run, &res, nil
}

// compareVariants re-runs one stored run's scenario (with the run's policy
// and seed options) under each variant, within the server's run limits, and
// compares the results with the stored run. Variant runs are not stored;
// their entries have no id, and their name is the variant's text.
func (s *Server) compareVariants(c echo.Context, texts []string, refs []result.FigureRef, objs []*sweep.Objective) error {
	param := c.QueryParam("runs")
	if strings.Contains(param, ",") || param == "" {
		return badQuery("runs", param, "exactly one run id when variants are given (its scenario is re-run under each variant)")
	}
	if !validID().MatchString(param) {
		return malformedID("runs", param)
	}
	if len(texts) > maxCompare-1 {
		return badQuery("variant", strings.Join(texts, "&"), fmt.Sprintf("at most %d variants", maxCompare-1))
	}
	var variants []sweep.Variant
	for _, text := range texts {
		v, err := sweep.ParseVariant(text)
		if err != nil {
			return variantField(err)
		}
		variants = append(variants, v)
	}
	// --max-run-time bounds the whole compare, from the request's arrival:
	// each variant's run gets what is left of it.
	start := time.Now()
	ctx := c.Request().Context()
	run, base, err := s.runResult(ctx, param)
	if err != nil {
		return err
	}
	sc, err := core.DecodeScenario(run.Scenario) // each variant is checked as it runs (execute)
	if err != nil {
		return err
	}
	opt := core.RunOptions{Policy: run.Policy}
	if seed, err := strconv.ParseUint(run.Seed, 10, 64); err == nil {
		opt.Seed = &seed
	}
	names, results := []string{run.ID}, []*result.Result{base}
	for _, v := range variants {
		vsc, err := sweep.ApplyVariant(sc, v)
		if err != nil {
			return variantField(err)
		}
		stored := &records.SavedScenario{ID: run.ScenarioID, Body: run.Scenario}
		x, _, err := s.execute(ctx, execution{scenario: vsc, stored: stored, opt: opt, start: start, compact: true})
		if p, ok := err.(*Problem); ok && p.Type == ProblemTypeBase+"run-too-long" {
			p.Detail = fmt.Sprintf("the compare of %d variants did not finish within %s, the most this server allows a request "+
				"(flag --max-run-time, env TUXLB_MAX_RUN_TIME): variant %s was running; compare fewer variants or use tuxlb compare",
				len(variants), s.cfg.MaxRunTime, strconv.Quote(v.Name))
			return p
		}
		if err != nil {
			return inVariant(err, v.Name)
		}
		// Decoded without what a comparison does not read (series, queues,
		// lifecycle): nine variants hold nine summaries, not nine results.
		res, err := decodeForCompare(x)
		if err != nil {
			return err
		}
		names, results = append(names, v.Name), append(results, res)
	}
	cmp := sweep.CompareResults(names, results)
	out := comparison{Base: run.ID, Servers: cmp.Servers}
	out.describeObjectives(objs)
	for i := range cmp.Variants {
		r := comparedRun{Name: cmp.Variants[i].Name, EngineVersion: core.EngineVersion,
			Headline: cmp.Variants[i].Headline, Diff: cmp.Variants[i].Diff}
		if i == 0 {
			r.ID, r.Name, r.CreatedAt, r.EngineVersion = run.ID, run.Name, run.CreatedAt.Format(records.TimeFormat), run.EngineVersion
		}
		figs, err := figuresOf(refs, names[i], results[i])
		if err != nil {
			return err
		}
		r.Figures = figs
		if err := judgeRun(objs, names[i], results[i], &r); err != nil {
			return err
		}
		out.Runs = append(out.Runs, r)
	}
	addFigureDiffs(out.Runs)
	return c.JSON(http.StatusOK, out)
}

// inVariant names the variant whose run err stopped, as tuxlb compare
// does (`variant "rate_scale=1e308": workload.generate.streams[0].rate_per_s:
// ...`): the message of a core error of the input, the detail of a problem
// with the request (4xx). The server's own (busy, the database) are left as
// they are: they are no variant's.
func inVariant(err error, name string) error {
	prefix := "variant " + strconv.Quote(capText(name)) + ": "
	var p *Problem
	if errors.As(err, &p) {
		if p.Status >= 500 {
			return err
		}
		named := *p
		named.Detail = prefix + p.Detail
		return &named
	}
	var e *diag.Error
	if errors.As(err, &e) {
		if m, ok := codeProblems[e.Code]; !ok || m.status >= 500 {
			return err
		}
		named := *e
		named.Message = prefix + e.Message
		return &named
	}
	return err
}

// variantField names the query parameter variant in an error of a
// variant's text or keys, which core words `variant "TEXT": ...` without
// naming a field; an error that names its own field (a value the
// scenario refuses) is left as it is.
func variantField(err error) error {
	var e *diag.Error
	if errors.As(err, &e) && e.Code == diag.EINVALID && len(e.Diagnostics) == 0 {
		named := *e
		named.Diagnostics = []diag.Diagnostic{{Source: diag.SourceOptions, Field: "variant", Severity: diag.SeverityError, Message: e.Message}}
		return &named
	}
	return err
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
		if !validID().MatchString(id) {
			return nil, malformedID("runs", id)
		}
	}
	return ids, nil
}
