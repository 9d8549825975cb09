package tests

// The playground replaying a production log: a monitor's export with the
// responses it observed, read through a column mapping with its total line
// skipped, validated against the run; and a sweep to a precision.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// replayUBB is a one-machine bank: BALANCE and DEPOSIT on two servers.
const replayUBB = `*RESOURCES
IPCKEY 123456
MASTER SITE1
MODEL SHM
LDBAL Y
*MACHINES
"host1" LMID=SITE1
*GROUPS
G1 LMID=SITE1 GRPNO=1
*SERVERS
bankserv SRVGRP=G1 SRVID=1 MIN=2 CLOPT="-s BALANCE,DEPOSIT"
*SERVICES
BALANCE
DEPOSIT
`

// replayExport is what a monitoring tool exports: date-times, the service,
// the machine, the elapsed time it saw, and its total line at the end.
//
// The observed means, by hand:
//
//	BALANCE: 4.5 + 3.5 + 5.5 + 7.0 + 8.0 + 7.5 = 36.0 over 6 rows = 6
//	DEPOSIT: 12.0 + 9.0 + 10.5 + 8.5 = 40.0 over 4 rows = 10
//	all:     (36.0 + 40.0) / 10 = 7.6
//
// (every value is a whole number of halves, so the sums are exact).
const replayExport = `Timestamp;Service;Machine;Elapsed(ms)
2026-11-13 10:00:00.000;BALANCE;SITE1;4.5
2026-11-13 10:00:00.120;DEPOSIT;SITE1;12.0
2026-11-13 10:00:00.250;BALANCE;SITE1;3.5
2026-11-13 10:00:00.300;DEPOSIT;SITE1;9.0
2026-11-13 10:00:00.410;BALANCE;SITE1;5.5
2026-11-13 10:00:00.500;BALANCE;SITE1;7.0
2026-11-13 10:00:00.640;DEPOSIT;SITE1;10.5
2026-11-13 10:00:00.700;BALANCE;SITE1;8.0
2026-11-13 10:00:00.820;DEPOSIT;SITE1;8.5
2026-11-13 10:00:00.950;BALANCE;SITE1;7.5
total;10;;76.0
`

// typeIn sets an input's value and fires its input event, as typing does.
func typeIn(s chromedp.CSS, text string) chromedp.Action[chromedp.Void] {
	q, _ := json.Marshal(text)
	return waitFor("typing into "+string(s), "typed", chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const e = document.querySelector(%q); if (!e) return "";
		e.value = %s; e.dispatchEvent(new Event("input", {bubbles: true})); return "typed";
	})()`, s, q)))
}

// cellValue reads the exact value (data-value) of a cell of the validation table.
func cellValue(service, figure, field string) chromedp.Action[string] {
	return chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('[data-testid="validation-table"] tr[data-service=%q][data-figure=%q] td[data-field=%q]')?.dataset.value ?? ""`, service, figure, field))
}

// replayScenario is the bank's scenario with no workload yet: the trace
// section puts the export in.
func replayScenario() string {
	b, _ := json.Marshal(map[string]any{
		"name":      "replay",
		"ubbconfig": replayUBB,
		"services": map[string]any{
			"BALANCE": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 5}},
			"DEPOSIT": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 9}},
		},
		"seed":     7,
		"workload": map[string]any{},
	})
	return string(b)
}

// loadReplay loads replayScenario, maps the export's observed column
// (after an unknown key, when badKey, which must change nothing), ticks
// skip-bad, uploads the export through the trace section and runs it.
// formsValidated waits for the forms of a scenario just loaded to be
// drawn again with its validated model (the page keeps them aria-busy
// until then): what is typed or uploaded before goes to forms replaced.
func formsValidated() chromedp.Action[chromedp.Void] {
	return waitFor("the forms validated", "ready", chromedp.Evaluate[string](`document.querySelector('[data-testid="trace-map"]')?.closest('[aria-busy="true"]') ? "" : "ready"`))
}

// loadReplayJSON loads the replay's scenario from the JSON tab and opens
// the trace section, its forms validated.
func loadReplayJSON() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(sel("tab-json")),
		chromedp.SetValue(sel("scenario-json"), replayScenario()),
		chromedp.Click(sel("scenario-json-load")),
		chromedp.Click(sel("tab-workload")),
		chromedp.WaitVisible(sel("trace-map")),
		formsValidated(),
	)
}

// openReplay loads the replay's scenario and opens the trace section, its
// forms validated.
func openReplay(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	do(t, ctx, "load the scenario and open the trace section",
		chromedp.Navigate(base+"/"),
		waitText(sel("version"), "engine"),
		loadReplayJSON(),
	)
}

func loadReplay(t *testing.T, ctx context.Context, base, export string, badKey bool) {
	t.Helper()
	openReplay(t, ctx, base)
	if badKey {
		// An unknown key is named and changes nothing.
		do(t, ctx, "type a mapping with an unknown key",
			typeIn(sel("trace-map"), "time=Timestamp,elapsed=Elapsed(ms)"),
			waitText(sel("trace-map-error"), `unknown key "elapsed"`),
		)
		if sc := pageScenario(t, ctx); strings.Contains(sc, `"columns"`) {
			t.Errorf("a mapping with an unknown key changed the scenario:\n%.600s", sc)
		}
	}
	do(t, ctx, "map the observed column, skip the total line, upload the export and run",
		jsClick(sel("tab-workload")),
		typeIn(sel("trace-map"), "observed=Elapsed(ms)"),
		waitFor("the error to go", "gone", chromedp.Evaluate[string](`document.querySelector('[data-testid="trace-map-error"]').textContent === "" ? "gone" : ""`)),
		jsClick(sel("trace-skip-bad")),
		uploadFiles(sel("trace-upload"), []string{export}),
		waitText(sel("trace-about"), "11 rows"), // the table shows the file as it is, total line included
		jsClick(sel("run")),
		waitText(sel("run-status"), "Done."), // (else the failure names the status the page shows)
		chromedp.WaitVisible(sel("summary")),
		waitText(sel("trace-read"), "Trace: 10 rows read, 1 skipped: row 11: Timestamp:"),
		chromedp.WaitVisible(sel("validation-table")),
		chromedp.WaitVisible(sel("validation-chart")),
	)
}

func TestPlaygroundReplay(t *testing.T) {
	srv := playgroundServer(t)
	export := filepath.Join(t.TempDir(), "export.csv")
	if err := os.WriteFile(export, []byte(replayExport), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := newBrowser(t)
	loadReplay(t, ctx, srv.URL, export, true)
	// The observed means are the file's (worked out above), overall and per service.
	for _, c := range []struct{ service, want string }{{"all", "7.6"}, {"BALANCE", "6"}, {"DEPOSIT", "10"}} {
		if got := get(t, ctx, "read the observed mean of "+c.service, cellValue(c.service, "mean", "observed")); got != c.want {
			t.Errorf("validation table: observed mean of %s is %q, want %q", c.service, got, c.want)
		}
	}
	table := get(t, ctx, "read the validation table", chromedp.Text(sel("validation-table")))
	if !strings.Contains(table, "10 observed, 10 simulated") || !strings.Contains(table, "%") {
		t.Errorf("validation table does not give the counts and the relative errors:\n%s", table)
	}

	// The service selector charts one service.
	do(t, ctx, "chart DEPOSIT",
		waitFor("the selector", "ok", chromedp.Evaluate[string](`(() => {
			const s = document.querySelector('[data-testid="validation-service"]'); if (!s) return "";
			s.value = "DEPOSIT"; s.dispatchEvent(new Event("change")); return "ok";
		})()`)),
		waitFor("the DEPOSIT chart", "DEPOSIT", chromedp.Evaluate[string](`document.querySelector('[data-testid="validation-chart"]')?.dataset.service ?? ""`)),
		waitText(chromedp.CSS(`[data-testid="validation-chart"] figcaption`), "DEPOSIT"),
	)

	got := downloadOf(t, ctx, sel("download-result"))
	scenario := pageScenario(t, ctx)
	for _, want := range []string{`"observed": "Elapsed(ms)"`, `"trace_skip_bad": true`} {
		if !strings.Contains(scenario, want) {
			t.Errorf("the page's scenario lacks %s:\n%.800s", want, scenario)
		}
	}
	// Every relative error of the table is the result's own.
	var res struct {
		Validation struct {
			Overall struct {
				RelativeError struct{ Mean float64 } `json:"relative_error"`
			}
			Services []struct {
				Service    string
				Verdicts   map[string]string
				RelativeCI map[string]any `json:"relative_ci"`
			}
		}
	}
	if err := json.Unmarshal(got, &res); err != nil {
		t.Fatal(err)
	}
	if cell := get(t, ctx, "read the overall error", cellValue("all", "mean", "relative_error")); cell != fmt.Sprint(res.Validation.Overall.RelativeError.Mean) {
		t.Errorf("overall relative error cell %q, the result's %v", cell, res.Validation.Overall.RelativeError.Mean)
	}
	// A line under the verdict for each inconclusive figure of a service,
	// saying what would decide it.
	var open []string
	for _, sv := range res.Validation.Services {
		for _, f := range []string{"mean", "p50", "p95", "p99"} {
			if sv.Verdicts[f] == "inconclusive" && sv.RelativeCI[f] != nil {
				open = append(open, sv.Service+" "+f+" is inconclusive")
			}
		}
	}
	lines := get(t, ctx, "read what would decide the inconclusive figures", chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="validation-undecided"]')].map((p) => p.textContent)`))
	if len(open) == 0 || len(lines) != len(open) {
		t.Errorf("%d lines of what would decide, want one for each of the %d inconclusive figures (%q): %q", len(lines), len(open), open, lines)
	}
	for i := range min(len(lines), len(open)) {
		if !strings.HasPrefix(lines[i], open[i]) || !strings.Contains(lines[i], "judge it within ±") {
			t.Errorf("line %d %q, want it to start %q and give the tolerance the rows judge within", i, lines[i], open[i])
		}
	}
	if want := cliRunText(t, scenario); !bytes.Equal(got, want) {
		t.Errorf("the page's result differs from `tuxlb run` of its scenario:\ngot  %d bytes %.500s\nwant %d bytes %.500s", len(got), got, len(want), want)
	}

	// Twice as fast: the same rows at twice the rate, and nothing to
	// compare with what the log observed at its own pace.
	do(t, ctx, "replay twice as fast",
		jsClick(sel("tab-workload")),
		typeIn(sel("trace-rate-scale"), "2"),
		jsClick(sel("run")),
		// the new result has no validation: what the log observed was at its own pace
		waitFor("the result without a validation", "none", chromedp.Evaluate[string](`document.querySelector('[data-testid="validation"]') ? "" : "none"`)),
		waitText(sel("run-status"), "Done."),
		waitText(sel("trace-read"), "10 rows read, 1 skipped"),
	)
	fast := downloadOf(t, ctx, sel("download-result"))
	scenario = pageScenario(t, ctx)
	if !strings.Contains(scenario, `"trace_rate_scale": 2`) {
		t.Errorf("the page's scenario lacks the replay speed:\n%.800s", scenario)
	}
	if bytes.Equal(fast, got) {
		t.Error("the replay at twice the speed gave the same result")
	}
	if want := cliRunText(t, scenario); !bytes.Equal(fast, want) {
		t.Errorf("at twice the speed, the page's result differs from `tuxlb run` of its scenario (%d bytes, want %d)", len(fast), len(want))
	}

	// On a phone, in both schemes: the validation fits (or says that it
	// scrolls) and every text of it, the trace line and the trace section
	// is readable.
	for _, scheme := range []string{"light", "dark"} {
		t.Run("phone, "+scheme, func(t *testing.T) {
			ctx := newBrowser(t)
			do(t, ctx, "be a phone", phoneSize(), emulateScheme(scheme))
			loadReplay(t, ctx, srv.URL, export, false)
			if w := get(t, ctx, "page width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > 390 {
				t.Errorf("the page is %.0f px wide on a 390 px screen", w)
			}
			wide := get(t, ctx, "the validation table", chromedp.Evaluate[string](`(() => {
				const t = document.querySelector('[data-testid="validation-table"]');
				const hint = !!t.previousElementSibling?.matches('[data-testid="scroll-hint"]');
				return t.scrollWidth > t.clientWidth + 1 ? (hint ? "wide, hinted" : "wide, no hint") : "fits";
			})()`))
			if wide == "wide, no hint" {
				t.Errorf("the validation table is wider than the screen and says nothing")
			}
			if n, low := measureContrast(t, ctx); n == 0 || len(low) > 0 {
				t.Errorf("%s: %d texts measured, below 4.5:1: %+v", scheme, n, low)
			}
			do(t, ctx, "the trace section", chromedp.Click(sel("tab-workload")), typeIn(sel("trace-map"), "elapsed=x"), waitText(sel("trace-map-error"), "unknown key"))
			if n, low := measureContrast(t, ctx); n == 0 || len(low) > 0 {
				t.Errorf("%s, the trace section: %d texts measured, below 4.5:1: %+v", scheme, n, low)
			}
		})
	}
}

// TestPlaygroundUploadAfterRedraw: a trace file whose reading ends after
// the forms were drawn again (a scenario loaded, then validated, while the
// file was read) shows in the forms drawn since, not in the ones replaced.
// The upload's input is kept, the forms drawn again, then the file handed
// to the kept input, as the browser does when the reading outlasts them.
func TestPlaygroundUploadAfterRedraw(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	openReplay(t, ctx, srv.URL)
	do(t, ctx, "keep the upload's input, load the scenario again",
		chromedp.Evaluate[chromedp.Void](`(() => { window.keptUpload = document.querySelector('[data-testid="trace-upload"]'); })()`),
		chromedp.Click(sel("tab-json")),
		chromedp.Click(sel("scenario-json-load")),
		chromedp.Click(sel("tab-workload")),
		formsValidated(),
	)
	if got := get(t, ctx, "the kept input", chromedp.Evaluate[string](`window.keptUpload.isConnected ? "in the page" : "replaced"`)); got != "replaced" {
		t.Fatalf("loading the scenario again left the upload's input %s: the test needs forms drawn again", got)
	}
	file, err := json.Marshal(replayExport)
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "hand the file to the kept input",
		chromedp.Evaluate[chromedp.Void](`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File([`+string(file)+`], "export.csv", { type: "text/csv" }));
			window.keptUpload.files = dt.files;
			window.keptUpload.dispatchEvent(new Event("change"));
		})()`),
		waitText(sel("trace-about"), "11 rows"),
	)
	if sc := pageScenario(t, ctx); !strings.Contains(sc, `"trace_csv"`) {
		t.Errorf("the page's scenario lacks the uploaded trace:\n%.600s", sc)
	}
}

func TestPlaygroundSweepPrecision(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	do(t, ctx, "run a sweep to a precision on 2 workers",
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(sel("run")),
		pickExample("mp-netload"),
		waitText(sel("version"), "engine"),
		chromedp.Click(sel("tab-sweep")),
		chromedp.SetValue(sel("sweep-key1"), "rate_scale"),
		chromedp.SetValue(sel("sweep-values1"), "0.5,1"),
		chromedp.SetValue(sel("sweep-reps"), "2"),
		chromedp.SetValue(sel("sweep-objective"), "response_p99_ms<=100"),
		chromedp.SetValue(sel("sweep-precision"), "0.02"),
		chromedp.SetValue(sel("sweep-max-reps"), "6"),
		chromedp.SetValue(sel("sweep-workers"), "2"),
		chromedp.Click(sel("sweep-run")),
		waitText(sel("sweep-status"), "Done"),
		waitText(sel("sweep-table"), "2 of 2 points, replications in batches of 2"),
	)
	got := downloadOf(t, ctx, sel("sweep-download-json"))
	want := cliSweep(t, filepath.Join(repoRoot(t), "examples", "mp-netload.json"), "--vary", "rate_scale=0.5,1",
		"--replications", "2", "--objective", "response_p99_ms<=100", "--precision", "0.02", "--max-replications", "6", "--format", "json")
	if !bytes.Equal(got, want) {
		t.Errorf("the page's sweep JSON differs from `tuxlb sweep --precision --format json`:\ngot  %d bytes: %.600s\nwant %d bytes: %.600s", len(got), got, len(want), want)
	}
	// Each point's replications are in the table, as many as the result says it took.
	var res struct {
		Points []struct{ Replications int }
	}
	if err := json.Unmarshal(got, &res); err != nil || len(res.Points) != 2 {
		t.Fatalf("read the sweep: %v (%d points)", err, len(res.Points))
	}
	cells := get(t, ctx, "read the replications", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="sweep-table"] td[data-field="replications"]')].map((c) => c.textContent).join(",")`))
	if want := fmt.Sprintf("%d,%d", res.Points[0].Replications, res.Points[1].Replications); cells != want {
		t.Errorf("the table's replications are %q, want %q", cells, want)
	}
	if res.Points[0].Replications == 2 && res.Points[1].Replications == 2 {
		t.Errorf("no point needed a second batch: the test does not exercise the rounds (tighten the precision)")
	}
	// The share link carries the precision, and opening it runs the same sweep.
	do(t, ctx, "share it", chromedp.Click(sel("share")), waitValue(sel("share-link"), "&w="))
	link := get(t, ctx, "read the link", chromedp.Value(sel("share-link")))
	fresh := newBrowser(t)
	do(t, fresh, "open the link: the sweep runs to the precision",
		chromedp.Navigate(link),
		waitText(sel("sweep-status"), "Done"),
		waitValue(sel("sweep-precision"), "0.02"),
	)
	if again := downloadOf(t, fresh, sel("sweep-download-json")); !bytes.Equal(again, want) {
		t.Errorf("the shared sweep's JSON differs from `tuxlb sweep --precision` (%d bytes, want %d)", len(again), len(want))
	}
}

// slowCore holds every request for the WebAssembly core back for delay, as a
// loaded machine fetching and compiling it does, so that what the page does
// before its first answer can be tested.
func slowCore(delay time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if err := chromedp.Listen(ctx, func(ev any) {
			if e, ok := ev.(*fetch.EventRequestPaused); ok {
				go func() { // a listener must not send commands itself
					time.Sleep(delay)
					_, _ = chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
						_, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
						return err
					}))
				}()
			}
		}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*.wasm"}}})
		return err
	})
}

// A scenario loaded before the core has answered for the first example is
// taken as it is: the example's model, answered late, is not the new
// scenario's, and must not make the page "fit" the scenario to a change of
// names (which gave its empty workload default streams: a replay then
// simulated a generated load besides its log).
func TestPlaygroundLoadBeforeCoreAnswers(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	do(t, ctx, "load a scenario while the core is still loading",
		slowCore(2*time.Second),
		chromedp.Navigate(srv.URL+"/"),
		loadReplayJSON(),
		waitText(sel("version"), "engine"),
	)
	sc := pageScenario(t, ctx)
	if !strings.Contains(sc, `"name": "replay"`) || strings.Contains(sc, `"generate"`) {
		t.Errorf("the scenario loaded is not the page's as it was loaded (no generated workload):\n%.1500s", sc)
	}
}
