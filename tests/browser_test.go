package tests

// End-to-end tests of the playground in headless Chromium: the page is served by the real binary, the simulation runs in the
// page's WebAssembly worker, and its answers are held against `tuxlb run`.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// cliRun returns what `tuxlb run ARGS...` prints.
func cliRun(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(binaryPath(t), append([]string{"run"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("tuxlb run %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

func TestPlayground(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests start Chromium; skipped with -short")
	}
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	requireBuilt(t, srv.URL)
	example := filepath.Join(repoRoot(t), "examples", "shm-ldbal-n.json")

	t.Run("run an example and download the same bytes as tuxlb run", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "shm-ldbal-n")
		screenshot(t, ctx, "results", chromedp.CSS("section.outputs"))
		got := downloadOf(t, ctx, sel("download-result"))
		want := cliRun(t, example)
		if !bytes.Equal(got, want) {
			t.Errorf("downloaded result differs from `tuxlb run`:\ngot  %d bytes: %.300s\nwant %d bytes: %.300s", len(got), got, len(want), want)
		}
		// The response-time histogram marks the service's p95 and p99.
		var res struct {
			Services []struct {
				Name     string
				Response struct{ P95, P99 float64 } `json:"response_ms"`
			}
		}
		if err := json.Unmarshal(got, &res); err != nil || len(res.Services) == 0 {
			t.Fatalf("read the result: %v", err)
		}
		svc := res.Services[0]
		hist := sel("chart-histogram-" + svc.Name)
		marks := get(t, ctx, "read the histogram's marks", chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).dataset.marks`, hist)))
		if want := fmt.Sprintf("%v,%v", svc.Response.P95, svc.Response.P99); marks != want {
			t.Errorf("histogram of %s marks %q, want p95,p99 = %q", svc.Name, marks, want)
		}
		if caption := get(t, ctx, "read the histogram's caption", chromedp.Text(chromedp.CSS(string(hist)+" figcaption"))); !strings.Contains(caption, "p95") || !strings.Contains(caption, "p99") {
			t.Errorf("histogram caption %q does not name p95 and p99", caption)
		}
		csv := filepath.Join(t.TempDir(), "dispatch.csv")
		cliRun(t, "--dispatch", csv, example)
		wantCSV, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		if gotCSV := downloadOf(t, ctx, sel("download-dispatch")); !bytes.Equal(gotCSV, wantCSV) {
			t.Errorf("downloaded dispatch log differs from `tuxlb run --dispatch`: got %d bytes, want %d", len(gotCSV), len(wantCSV))
		}
	})

	t.Run("every example gives the bytes of tuxlb run", func(t *testing.T) {
		paths, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "*.json"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no examples found (%v)", err)
		}
		ctx := newBrowser(t)
		for _, path := range paths {
			name := strings.TrimSuffix(filepath.Base(path), ".json")
			loadAndRun(t, ctx, srv.URL+"/", name)
			if got, want := downloadOf(t, ctx, sel("download-result")), cliRun(t, path); !bytes.Equal(got, want) {
				t.Errorf("%s: the page's result differs from `tuxlb run` (%d bytes, want %d)", name, len(got), len(want))
			}
		}
	})

	t.Run("a broken config shows the diagnostic on its line", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "load the example",
			chromedp.Navigate(srv.URL+"/"),
			chromedp.Click(sel("example-shm-ldbal-n")),
			chromedp.WaitVisible(sel("ubbconfig-editor")),
			// The parser has answered and found no error (warnings are fine).
			waitFor("diagnostics", "ok", chromedp.Evaluate[string](`(() => {
				const items = document.querySelectorAll('[data-testid="diagnostics"] li');
				return items.length > 0 && !document.querySelector('[data-testid="diagnostics"] li.error') ? "ok" : "";
			})()`)),
		)
		lines := strings.Count(scenarioField(t, example, "ubbconfig"), "\n") + 1 // the cursor's line after Ctrl+End
		do(t, ctx, "type a broken line at the end",
			chromedp.Click(sel("ubbconfig-editor")+" .cm-content"),
			chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(chromedp.ModifierCtrl)),
			chromedp.KeyEvent("BROKEN LINE"),
			waitText(sel("diagnostics")+" li.error", fmt.Sprintf("ubbconfig:%d:", lines)),
			chromedp.WaitVisible(sel("ubbconfig-editor")+" .cm-lint-marker-error"),
		)
		screenshot(t, ctx, "diagnostics", chromedp.CSS("section.inputs"))
	})

	t.Run("fragment link and short link run on open and show the same summary", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "mp-netload")
		want := get(t, ctx, "read summary", chromedp.Text(sel("summary")))
		do(t, ctx, "make the fragment link", chromedp.Click(sel("share")), waitValue(sel("share-link"), "#s="))
		frag := get(t, ctx, "read the fragment link", chromedp.Value(sel("share-link")))
		do(t, ctx, "make the short link", chromedp.Click(sel("save-share")), waitValue(sel("share-short-link"), "/s/"))
		short := get(t, ctx, "read the short link", chromedp.Value(sel("share-short-link")))
		if !strings.Contains(frag, "#s=") {
			t.Fatalf("share link %q has no #s= fragment", frag)
		}
		for name, link := range map[string]string{"fragment": frag, "short": short} {
			fresh := newBrowser(t)
			// nothing pressed: the link runs its scenario on open
			do(t, fresh, "open the "+name+" link", chromedp.Navigate(link), chromedp.WaitVisible(sel("summary")))
			got := get(t, fresh, "read summary", chromedp.Text(sel("summary")))
			if got != want {
				t.Errorf("%s link %s: summary\n%s\nwant\n%s", name, link, got, want)
			}
		}
	})

	t.Run("a damaged fragment link says so, and the first example's check leaves it said", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "open a damaged link",
			chromedp.Navigate(srv.URL+"/#s=garbage"),
			waitText(sel("version"), "engine"),
			// the first example is loaded in its place and its configuration checked
			waitFor("the parser's answer", "ok", chromedp.Evaluate[string](`document.querySelector('[data-testid="diagnostics"] li.ok') ? "ok" : ""`)),
			chromedp.Sleep(500*time.Millisecond),
		)
		got := get(t, ctx, "read the banner", chromedp.Evaluate[string](`(() => { const b = document.querySelector('[data-testid="banner"]'); return b.hidden ? "(hidden)" : b.textContent; })()`))
		if got != "share link: the scenario part is damaged (it does not decompress)" {
			t.Errorf("the banner after opening a damaged link says %q", got)
		}
	})

	t.Run("save a run and find it listed", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "shm-ldbal-n")
		do(t, ctx, "save the run", chromedp.Click(sel("save-run")), waitText(sel("run-status"), "Saved as run"))
		status := get(t, ctx, "read the status", chromedp.Text(sel("run-status")))
		id := strings.TrimSuffix(strings.TrimPrefix(status, "Saved as run "), ".")
		item := fmt.Sprintf(`%s li[data-run-id=%q]`, sel("runs-list"), id)
		do(t, ctx, "see it listed", chromedp.WaitVisible(chromedp.CSS(item)))
		// It shows the run's headline figures, as the summary has them.
		figures := get(t, ctx, "compare the figures", chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const out = [];
			const listed = document.querySelectorAll(%q);
			for (const f of listed) {
				const want = document.querySelector('[data-testid="summary"] [data-figure="' + f.dataset.figure + '"] dd').textContent;
				const got = f.querySelector("dd").textContent.replace(/ ms$/, "");
				if (got !== want) out.push(f.dataset.figure + ": listed " + got + ", summary " + want);
			}
			return listed.length < 5 ? "only " + listed.length + " figures listed" : out.join("; ");
		})()`, item+" [data-figure]")))
		if figures != "" {
			t.Errorf("the saved run's figures: %s", figures)
		}
		screenshot(t, ctx, "saved-runs", chromedp.CSS("section.outputs"))
		resp, err := http.Get(srv.URL + "/api/v1/runs/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /api/v1/runs/%s: status %d, want 200", id, resp.StatusCode)
		}
		do(t, ctx, "save another and compare the two",
			chromedp.Click(sel("tab-results")),
			chromedp.Click(sel("save-run")),
			waitFor("runs-list", "2", chromedp.Evaluate[string](`String(document.querySelectorAll('[data-testid="runs-list"] li').length)`)),
			jsClick(chromedp.CSS(sel("runs-list")+" li:nth-child(1) input")),
			jsClick(chromedp.CSS(sel("runs-list")+" li:nth-child(2) input")),
			chromedp.Click(sel("runs-compare")),
			waitText(sel("compare-table"), "run "+id),
		)
		do(t, ctx, "back to the list", chromedp.Click(sel("tab-runs")), chromedp.WaitVisible(chromedp.CSS(item)))
		do(t, ctx, "open it", jsClick(chromedp.CSS(item+" button")), waitText(sel("run-status"), "Opened run "+id), chromedp.WaitVisible(sel("summary")))
		if got, want := downloadOf(t, ctx, sel("download-result")), cliRun(t, example); !bytes.Equal(got, want) {
			t.Errorf("the opened run's download differs from `tuxlb run`: got %d bytes, want %d", len(got), len(want))
		}
	})

	t.Run("explain mode steps through requests", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "shm-ldbal-n")
		do(t, ctx, "step",
			chromedp.Click(sel("tab-explain")),
			waitText(sel("explain-view"), "Request #1"),
			waitText(sel("explain-rule"), "first"), // LDBAL N: the first candidate, always
			chromedp.Click(sel("explain-next")),
			waitText(sel("explain-view"), "Request #2"),
			chromedp.SetValue(sel("explain-seq"), "40"),
			chromedp.Click(sel("explain-go")),
			waitText(sel("explain-view"), "Request #40"),
			chromedp.Click(sel("explain-prev")),
			waitText(sel("explain-view"), "Request #39"),
			chromedp.WaitVisible(sel("explain-candidates")+" tr.chosen"),
		)
		screenshot(t, ctx, "explain", chromedp.CSS("section.outputs"))
	})

	t.Run("server life cycle: events editor, state lanes, failures, why a request failed", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "crash-no-restart")
		do(t, ctx, "see the state lanes and the failures chart",
			chromedp.WaitVisible(sel("state-timeline")),
			chromedp.WaitVisible(sel("chart-failures")),
			waitFor("a greyed-out instance", "1", chromedp.Evaluate[string](`String(document.querySelectorAll('[data-testid="topology"] g.server.not-up').length)`)),
		)
		// Each state drawn has a key beside the lanes in the lanes' colour: a
		// lane's title, the only other place that names it, needs a hover.
		if bad := get(t, ctx, "match the lanes to their key", chromedp.Evaluate[string](`(() => {
			const out = [];
			const states = new Set([...document.querySelectorAll('[data-testid="state-timeline"] rect.lane')].map((r) => [...r.classList].find((c) => c.startsWith("state-"))));
			for (const st of states) {
				const lane = document.querySelector('[data-testid="state-timeline"] rect.lane.' + st);
				const key = document.querySelector('[data-testid="state-legend"] [data-state="' + st.slice(6) + '"]');
				if (!key) { out.push(st + ": no key"); continue; }
				const sw = getComputedStyle(key.querySelector(".swatch")).backgroundColor;
				if (sw !== getComputedStyle(lane).fill) out.push(st + ": key " + sw + ", lane " + getComputedStyle(lane).fill);
				if (key.textContent.trim() !== st.slice(6)) out.push(st + ": key says " + key.textContent);
			}
			return states.size < 3 ? "only " + states.size + " states drawn" : out.join("; ");
		})()`)); bad != "" {
			t.Errorf("the state lanes' key: %s", bad)
		}
		screenshot(t, ctx, "lifecycle", chromedp.CSS("section.outputs"))
		do(t, ctx, "add an event and see it in the JSON",
			chromedp.Click(sel("tab-workload")),
			chromedp.WaitVisible(sel("events-form")),
			waitValue(sel("event-1-target"), "APPGRP/1"),
			chromedp.Click(sel("event-add")),
			chromedp.WaitVisible(sel("event-2-at")),
			chromedp.Click(sel("tab-json")),
			waitValue(sel("scenario-json"), `"kill": "APPGRP/1"`),
		)
		var sc struct {
			Events []map[string]any `json:"events"`
		}
		if err := json.Unmarshal([]byte(get(t, ctx, "read the JSON", chromedp.Value(sel("scenario-json")))), &sc); err != nil {
			t.Fatal(err)
		}
		if len(sc.Events) != 2 || sc.Events[1]["at_ms"] != 36000.0 {
			t.Errorf("events after Add: got %v, want the listed kill and one 1000 ms later", sc.Events)
		}
		do(t, ctx, "explain a request that failed",
			chromedp.Click(sel("tab-explain")),
			waitText(sel("explain-view"), "Request #1"),
			// #701 is the first request after APPGRP/1's crash at 35 000 ms
			// (engine 0.3.0's draws): it waits on the down instance, which
			// never restarts.
			chromedp.SetValue(sel("explain-seq"), "701"),
			chromedp.Click(sel("explain-go")),
			waitText(sel("explain-view"), "Request #701"),
			waitText(sel("explain-failure"), "TPESVCERR at 60000 ms"),
			waitText(sel("explain-candidates"), "down"),
		)
	})

	t.Run("a long run shows progress and can be canceled", func(t *testing.T) {
		ctx := newBrowser(t)
		long := longScenario(t, example)
		do(t, ctx, "start a long run and cancel it",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-json")),
			chromedp.SetValue(sel("scenario-json"), long),
			chromedp.Click(sel("scenario-json-load")),
		)
		do(t, ctx, "run it",
			chromedp.Click(sel("run")),
			waitText(sel("run-status"), "requests of ~"), // progress reports arrive
			chromedp.Click(sel("cancel")),
			waitText(sel("run-status"), "Canceled."),
		)
		if disabled := get(t, ctx, "is run enabled", chromedp.Evaluate[bool](`document.querySelector('[data-testid="run"]').disabled`)); disabled {
			t.Errorf("the run button is still disabled after cancel")
		}
		loadAndRun(t, ctx, srv.URL+"/", "shm-ldbal-n") // a fresh worker runs again
	})

	t.Run("compare variants", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "shm-ldbal-n")
		do(t, ctx, "compare",
			chromedp.Click(sel("tab-compare")),
			chromedp.SetValue(sel("compare-spec"), "policy=round_robin,tuning.idle=queue"),
			chromedp.Click(sel("compare-add")),
			chromedp.Click(sel("compare-run")),
			waitText(sel("compare-table"), "policy=round_robin,tuning.idle=queue"),
		)
		table := get(t, ctx, "read the table", chromedp.Text(sel("compare-table")))
		for _, want := range []string{"ldbal=Y", "policy=jsq", "Wait mean"} {
			if !strings.Contains(table, want) {
				t.Errorf("compare table lacks %q:\n%s", want, table)
			}
		}
		screenshot(t, ctx, "compare", chromedp.CSS("section.outputs"))
		do(t, ctx, "share it", chromedp.Click(sel("share")), waitValue(sel("share-link"), "&c="))
		link := get(t, ctx, "read the link", chromedp.Value(sel("share-link")))
		fresh := newBrowser(t)
		do(t, fresh, "open the link: the comparison runs",
			chromedp.Navigate(link),
			waitText(sel("summary"), "Issued"), // run, though its tab is not the one shown
			waitText(sel("compare-table"), "policy=round_robin,tuning.idle=queue"),
		)
		if got := get(t, fresh, "read the table", chromedp.Text(sel("compare-table"))); got != table {
			t.Errorf("the shared comparison differs:\n%s\nwant\n%s", got, table)
		}
	})

	t.Run("sweep tab gives the bytes of tuxlb sweep --format json", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "set up and run a sweep on 2 workers",
			chromedp.Navigate(srv.URL+"/"),
			chromedp.WaitVisible(sel("run")),
			pickExample("mp-netload"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-sweep")),
			chromedp.SetValue(sel("sweep-key1"), "rate_scale"),
			chromedp.SetValue(sel("sweep-start1"), "0.5"),
			chromedp.SetValue(sel("sweep-end1"), "1"),
			chromedp.SetValue(sel("sweep-step1"), "0.25"),
			chromedp.Click(sel("sweep-range1")),
			chromedp.SetValue(sel("sweep-key2"), "MACHINES.SITE2.NETLOAD"),
			chromedp.SetValue(sel("sweep-values2"), "0,100"),
			chromedp.SetValue(sel("sweep-reps"), "2"),
			chromedp.SetValue(sel("sweep-objective"), "response_p99_ms<=100"),
			chromedp.SetValue(sel("sweep-workers"), "2"),
			chromedp.Click(sel("sweep-run")),
			waitText(sel("sweep-status"), "Done"),
			waitText(sel("sweep-table"), "6 of 6 points"),
		)
		screenshot(t, ctx, "sweep", chromedp.CSS("section.outputs"))
		got := downloadOf(t, ctx, sel("sweep-download-json"))
		want := cliSweep(t, filepath.Join(repoRoot(t), "examples", "mp-netload.json"), "--vary", "rate_scale=0.5..1/0.25",
			"--vary", "MACHINES.SITE2.NETLOAD=0,100", "--replications", "2", "--objective", "response_p99_ms<=100", "--format", "json")
		if !bytes.Equal(got, want) {
			t.Errorf("the page's sweep JSON differs from `tuxlb sweep --format json`:\ngot  %d bytes: %.400s\nwant %d bytes: %.400s", len(got), got, len(want), want)
		}
		do(t, ctx, "the share link carries the sweep", chromedp.Click(sel("share")), waitValue(sel("share-link"), "&w="))
		link := get(t, ctx, "read the link", chromedp.Value(sel("share-link")))
		fresh := newBrowser(t)
		do(t, fresh, "open the link: the sweep runs",
			chromedp.Navigate(link),
			waitText(sel("summary"), "Issued"), // run, though its tab is not the one shown
			waitText(sel("sweep-table"), "6 of 6 points"),
			waitText(sel("sweep-status"), "Done"),
		)
		if got := downloadOf(t, fresh, sel("sweep-download-json")); !bytes.Equal(got, want) {
			t.Errorf("the shared sweep's JSON differs from `tuxlb sweep --format json` (%d bytes, want %d)", len(got), len(want))
		}
		// The short link carries the sweep in its fragment.
		do(t, ctx, "make the short link", chromedp.Click(sel("save-share")), waitValue(sel("share-short-link"), "/s/"))
		short := get(t, ctx, "read the short link", chromedp.Value(sel("share-short-link")))
		if !strings.Contains(short, "/s/") || !strings.Contains(short, "#w=") {
			t.Fatalf("short link %q does not carry the sweep (#w=)", short)
		}
		other := newBrowser(t)
		do(t, other, "open the short link: the sweep runs",
			chromedp.Navigate(short),
			waitText(sel("sweep-table"), "6 of 6 points"),
			waitText(sel("sweep-status"), "Done"),
		)
	})

	t.Run("a 287 000-row log opens as a virtualised table", func(t *testing.T) {
		ctx := newBrowser(t)
		const rows = 287000
		do(t, ctx, "load it",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-json")),
			chromedp.SetValue(sel("scenario-json"), bigTraceScenario(t, example, rows)),
			chromedp.Click(sel("scenario-json-load")),
		)
		ms := get(t, ctx, "open the Workload tab", chromedp.Evaluate[float64](`(() => {
			const t0 = performance.now();
			document.querySelector('[data-testid="tab-workload"]').click();
			document.querySelector('[data-testid="trace-table"]').getBoundingClientRect(); // layout done
			return performance.now() - t0;
		})()`))
		t.Logf("the Workload tab opened in %.0f ms", ms)
		do(t, ctx, "see the table", waitText(sel("trace-about"), "287,000 rows"), waitText(sel("trace-about"), "time_ms"))
		count := func() int {
			return get(t, ctx, "count the rows drawn", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="trace-table"] [data-row]').length`))
		}
		if n := count(); n == 0 || n > 100 {
			t.Errorf("%d rows drawn, want the few in view", n)
		}
		if n := get(t, ctx, "look for a text area", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="trace"]').length`)); n != 0 {
			t.Errorf("the trace is in a text area as well")
		}
		do(t, ctx, "scroll to the middle",
			chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('[data-testid="trace-table"]'); s.scrollTop = s.scrollHeight / 2; })()`),
			waitFor("the middle rows", "ok", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="trace-table"] [data-row]')].some((r) => Math.abs(r.dataset.row - 143500) < 50) ? "ok" : ""`)),
		)
		if n := count(); n == 0 || n > 100 {
			t.Errorf("after scrolling, %d rows drawn, want the few in view", n)
		}
		if row := get(t, ctx, "read a row", chromedp.Text(chromedp.CSS(`[data-testid="trace-table"] [data-row="143500"]`))); !strings.Contains(row, "2869980") || !strings.Contains(row, "TOUPPER") {
			t.Errorf("row 143500 reads %q, want its time 2869980 and service TOUPPER", row)
		}
		screenshot(t, ctx, "trace-table", chromedp.CSS("section.inputs"))
		// The JSON tab holds the trace back too, and loading its text keeps the trace.
		do(t, ctx, "open the JSON tab", chromedp.Click(sel("tab-json")), waitValue(sel("scenario-json"), "287,000 rows are kept"))
		if n := get(t, ctx, "measure the JSON", chromedp.Evaluate[int](`document.querySelector('[data-testid="scenario-json"]').value.length`)); n > 20000 {
			t.Errorf("the JSON tab holds %d characters", n)
		}
		do(t, ctx, "load the JSON and look at the trace again",
			chromedp.Click(sel("scenario-json-load")),
			chromedp.Click(sel("tab-workload")),
			waitText(sel("trace-about"), "287,000 rows"),
		)
	})

	t.Run("a 50 000-row scenario gets a short link, and says why without a server", func(t *testing.T) {
		ctx := newBrowser(t)
		big := bigTraceScenario(t, example, 50000)
		do(t, ctx, "load it and share it",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-json")),
			chromedp.SetValue(sel("scenario-json"), big),
			chromedp.Click(sel("scenario-json-load")),
			chromedp.Click(sel("share")),
			waitValue(sel("share-link"), "/s/"),
		)
		link := get(t, ctx, "read the link", chromedp.Value(sel("share-link")))
		if len(link) >= 2000 {
			t.Errorf("the link is %d characters, want fewer than 2000", len(link))
		}
		if status := get(t, ctx, "read the status", chromedp.Text(sel("share-status"))); !strings.Contains(status, "stored on the server") {
			t.Errorf("share status %q does not say the scenario was stored", status)
		}
		fresh := newBrowser(t)
		do(t, fresh, "open it", chromedp.Navigate(link), chromedp.WaitVisible(sel("summary")), waitText(chromedp.CSS(`[data-figure="issued"] dd`), "50000"))

		do(t, ctx, "share again with the API unreachable",
			chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
					return err
				}
				_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{
					URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/api/v1/scenarios", Block: true}}})
				return err
			}),
			chromedp.Click(sel("share")),
			waitText(sel("share-status"), "the server could not store it"),
		)
		if got := get(t, ctx, "read the link", chromedp.Value(sel("share-link"))); strings.Contains(got, "/s/") {
			t.Errorf("without the server, the box still shows a short link: %.100s", got)
		}
	})
}

// cliSweep returns what `tuxlb sweep ARGS...` prints.
func cliSweep(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(binaryPath(t), append([]string{"sweep"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("tuxlb sweep %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// requireBuilt fails at once, saying what to do, when the binary was built
// without the playground (frontend/dist holds only its placeholder).
func requireBuilt(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(page, []byte("/assets/index-")) {
		t.Fatalf("GET /: status %d, no /assets/index-*.js: the binary has no playground built in; run `go tool task build` (it builds frontend/dist first)", resp.StatusCode)
	}
}

// longScenario returns the example with a workload long enough to cancel.
func longScenario(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	gen := m["workload"].(map[string]any)["generate"].(map[string]any)
	gen["duration_ms"] = 5e7 // millions of requests: minutes of work
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// bigTraceScenario returns the example with its workload replaced by a trace of n rows.
func bigTraceScenario(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("time_ms,service\n")
	for i := range n {
		fmt.Fprintf(&csv, "%d,TOUPPER\n", i*20)
	}
	m["workload"] = map[string]any{"trace_csv": csv.String()}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// scenarioField reads one string field of a scenario file.
func scenarioField(t *testing.T, path, field string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	s, _ := m[field].(string)
	return s
}
