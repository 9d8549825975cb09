package tests

// The playground with an administrator's own files: a pasted UBBCONFIG whose
// services the loaded example lacks, dropped files, a large application.

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// ownUBB has services (BALANCE, DEPOSIT, AUDIT) that no example has, two
// machines, and a server without -s.
const ownUBB = `*RESOURCES
IPCKEY 123456
MASTER SITE1
MODEL MP
LDBAL Y
*MACHINES
"host1" LMID=SITE1 NETLOAD=100
"host2" LMID=SITE2
*GROUPS
G1 LMID=SITE1 GRPNO=1
G2 LMID=SITE2 GRPNO=2
*SERVERS
bankserv SRVGRP=G1 SRVID=1 CLOPT="-s BALANCE,DEPOSIT"
bankserv SRVGRP=G2 SRVID=2 CLOPT="-s BALANCE,DEPOSIT"
legacy SRVGRP=G2 SRVID=3
*SERVICES
BALANCE LOAD=50
DEPOSIT
AUDIT
`

// pageScenario returns the scenario the page holds, as its JSON tab shows it
// (read only: nothing is loaded from it).
func pageScenario(t *testing.T, ctx context.Context) string {
	t.Helper()
	do(t, ctx, "open the JSON tab", chromedp.Click(sel("tab-json")), waitValue(sel("scenario-json"), `"ubbconfig"`))
	return get(t, ctx, "read the scenario", chromedp.Value(sel("scenario-json")))
}

// cliRunText runs `tuxlb run` on a scenario given as text.
func cliRunText(t *testing.T, scenario string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.json")
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return cliRun(t, path)
}

func TestPlaygroundOwnFiles(t *testing.T) {
	srv := playgroundServer(t)

	t.Run("a pasted UBBCONFIG starts afresh: the bytes of tuxlb run --ubbconfig", func(t *testing.T) {
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "admin-guide")
		paste(t, ctx, "ubbconfig-editor", ownUBB)
		do(t, ctx, "see the fresh scenario",
			waitText(sel("fit-notes"), "Read the pasted UBBCONFIG."),
			waitText(sel("fit-notes"), "A fresh scenario"),
			waitText(sel("advertise-editor"), "legacy"),
		)
		screenshot(t, ctx, "own-config", chromedp.CSS("section.inputs"))
		do(t, ctx, "run with Ctrl+Enter",
			chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)),
			chromedp.WaitVisible(sel("summary")),
		)
		got := downloadOf(t, ctx, sel("download-result"))
		// A pasted UBBCONFIG is named UBBCONFIG, as Tuxedo's own file often is.
		ubb := filepath.Join(t.TempDir(), "UBBCONFIG")
		os.WriteFile(ubb, []byte(ownUBB), 0o644)
		if want := cliRun(t, "--ubbconfig", ubb); !bytes.Equal(got, want) {
			t.Errorf("the page's result differs from `tuxlb run --ubbconfig` of the pasted text:\ngot  %d bytes %.400s\nwant %d bytes %.400s", len(got), got, len(want), want)
		}
	})

	t.Run("a UBBCONFIG pasted keeping the scenario: dropped and added parts noted", func(t *testing.T) {
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "shm-ldbal-n")
		do(t, ctx, "keep the scenario's settings", chromedp.Click(sel("tab-config")), chromedp.Click(sel("files-keep")))
		paste(t, ctx, "ubbconfig-editor", ownUBB)
		do(t, ctx, "see the notes",
			waitText(sel("fit-notes"), "services.TOUPPER: dropped"),
			waitText(sel("fit-notes"), "services.AUDIT: added"),
			waitText(sel("advertise-editor"), "legacy"),
			chromedp.Click(sel("run")),
			chromedp.WaitVisible(sel("summary")),
		)
		got := downloadOf(t, ctx, sel("download-result"))
		scenario := pageScenario(t, ctx)
		if !strings.Contains(scenario, "bankserv") || strings.Contains(scenario, "TOUPPER") || !strings.Contains(scenario, `"seed": 1`) {
			t.Errorf("the page's scenario is not the example's fitted to the new config:\n%.600s", scenario)
		}
		if want := cliRunText(t, scenario); !bytes.Equal(got, want) {
			t.Errorf("the page's result differs from `tuxlb run` of its scenario (%d bytes, want %d)", len(got), len(want))
		}
	})

	dir := t.TempDir()
	ubb, trace := filepath.Join(dir, "ubb.cfg"), filepath.Join(dir, "trace.csv")
	log := "timestamp;svc;elapsed_ms\n2026-11-29 10:00:00,000;BALANCE;4\n2026-11-29 10:00:00,250;DEPOSIT;2\n2026-11-29 10:00:01,000;AUDIT;1\n"
	os.WriteFile(ubb, []byte(ownUBB), 0o644)
	os.WriteFile(trace, []byte(log), 0o644)

	t.Run("own files dropped after an example give the bytes of tuxlb run --ubbconfig --trace", func(t *testing.T) {
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "admin-guide") // a name, network latency, tuning, a seed: none may survive
		files, _ := json.Marshal([][2]string{{"ubb.cfg", ownUBB}, {"trace.csv", log}})
		do(t, ctx, "drop the files",
			chromedp.Click(sel("tab-config")),
			waitFor("the drop", "dropped", chromedp.Evaluate[string](`(() => {
				const dt = new DataTransfer();
				for (const [name, text] of `+string(files)+`) dt.items.add(new File([text], name));
				document.querySelector('[data-testid="file-drop"]').dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
				return "dropped";
			})()`)),
			waitText(sel("fit-notes"), "Read ubb.cfg as the ubbconfig, trace.csv as the request log"),
			chromedp.Click(sel("run")),
			chromedp.WaitVisible(sel("summary")),
		)
		got := downloadOf(t, ctx, sel("download-result"))
		if want := cliRun(t, "--ubbconfig", ubb, "--trace", trace); !bytes.Equal(got, want) {
			t.Errorf("the page's result differs from `tuxlb run --ubbconfig ubb.cfg --trace trace.csv`:\ngot  %d bytes %.500s\nwant %d bytes %.500s", len(got), got, len(want), want)
		}
	})

	t.Run("choose files: a UBBCONFIG and a log", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "choose the files",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-config")),
			uploadFiles(sel("file-input"), []string{ubb, trace}),
			waitText(sel("fit-notes"), "Read ubb.cfg as the ubbconfig, trace.csv as the request log"),
			chromedp.Click(sel("run")),
			chromedp.WaitVisible(sel("summary")),
		)
		got := downloadOf(t, ctx, sel("download-result"))
		if !bytes.Contains(got, []byte(`"issued": 3`)) || !bytes.Contains(got, []byte(`read as a log`)) {
			t.Errorf("the log was not replayed: %.400s", got)
		}
		if want := cliRun(t, "--ubbconfig", ubb, "--trace", trace); !bytes.Equal(got, want) {
			t.Errorf("the page's result differs from `tuxlb run --ubbconfig --trace` (%d bytes, want %d)", len(got), len(want))
		}
	})

	t.Run("a spreadsheet and a log the core refuses: each said beside the files, the scenario kept", func(t *testing.T) {
		// an Excel export (a zip) and a CSV with no service column
		var xlsx bytes.Buffer
		zw := zip.NewWriter(&xlsx)
		w, _ := zw.Create("xl/worksheets/sheet1.xml")
		w.Write([]byte(strings.Repeat("<row><c>10:00:00,BALANCE;4|2</c></row>", 50)))
		zw.Close()
		bad := filepath.Join(dir, "export.csv")
		sheet := filepath.Join(dir, "export.xlsx")
		os.WriteFile(bad, []byte("when,what\n1,2\n"), 0o644)
		os.WriteFile(sheet, xlsx.Bytes(), 0o644)
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "mp-netload")
		do(t, ctx, "choose them",
			chromedp.Click(sel("tab-config")),
			uploadFiles(sel("file-input"), []string{sheet, bad}),
			waitText(sel("fit-notes"), "were not taken"),
			// the check of the configuration (300 ms after), which clears the
			// banner when it parses, must leave the reason where it is
			chromedp.Sleep(time.Second),
		)
		notes := get(t, ctx, "read the notes", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="fit-notes"] li')].map((li) => li.className + ": " + li.textContent).join("\n")`))
		for _, want := range []string{
			": export.xlsx: not a text file",
			": Read export.csv as the request log.",
			`error: Your files were not taken: invalid: trace_csv: missing column "service"`,
		} {
			if !strings.Contains(notes, want) {
				t.Errorf("the notes beside the files do not say %q:\n%s", want, notes)
			}
		}
		if sc := pageScenario(t, ctx); !strings.Contains(sc, `"name": "MP with NETLOAD 100`) || strings.Contains(sc, "trace_csv") {
			t.Errorf("the example's scenario did not stay as it was:\n%.400s", sc)
		}
	})

	t.Run("ULOG files and a UBBCONFIG: the scenario tuxlb fit --out writes, and its bytes", func(t *testing.T) {
		dir, err := filepath.Abs(filepath.Join("..", "core", "ulog", "testdata", "bank")) // the browser reads uploads by absolute path
		if err != nil {
			t.Fatal(err)
		}
		ubbPath := filepath.Join(dir, "ubbconfig")
		ulogs := []string{filepath.Join(dir, "node1", "ULOG.120126"), filepath.Join(dir, "node2", "ULOG.120126")}
		fitted := filepath.Join(t.TempDir(), "fitted.json")
		var want []byte
		args := []string{"fit", "--ubbconfig", ubbPath, "--out", fitted}
		for _, u := range ulogs {
			args = append(args, "--ulog", u)
		}
		var errb bytes.Buffer
		cmd := exec.Command(binaryPath(t), args...)
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("tuxlb fit: %v\n%s", err, errb.String())
		}
		want, err = os.ReadFile(fitted)
		if err != nil {
			t.Fatal(err)
		}
		// the server machine's ULOG as a rotation job leaves it, gzipped:
		// the page reads it as the CLI reads the plain file
		text, err := os.ReadFile(ulogs[1])
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(text)
		zw.Close()
		gzPath := filepath.Join(t.TempDir(), "ULOG.120126.gz")
		if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "admin-guide") // nothing of it may survive
		do(t, ctx, "choose the ULOGs (one gzipped) and the UBBCONFIG",
			chromedp.Click(sel("tab-config")),
			uploadFiles(sel("file-input"), []string{ulogs[0], gzPath, ubbPath}),
			waitText(sel("fit-notes"), "Fitted 4 services from 2 ULOG files"),
		)
		if got := pageScenario(t, ctx); !sameJSON(t, got, string(want)) {
			t.Errorf("the page's fitted scenario differs from tuxlb fit --out's:\ngot  %.600s\nwant %.600s", got, want)
		}
		do(t, ctx, "run it", chromedp.Click(sel("run")), chromedp.WaitVisible(sel("summary")))
		got := downloadOf(t, ctx, sel("download-result"))
		if want := cliRun(t, fitted); !bytes.Equal(got, want) {
			t.Errorf("the page's result differs from tuxlb run on tuxlb fit --out's scenario (%d bytes, want %d)", len(got), len(want))
		}
	})

	t.Run("a 30-server application's charts group their lines", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "load it",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-json")),
			chromedp.SetValue(sel("scenario-json"), largeApp()),
			chromedp.Click(sel("scenario-json-load")),
			chromedp.Click(sel("run")),
			chromedp.WaitVisible(sel("chart-view")),
		)
		legend := func() int {
			return get(t, ctx, "count the legend", chromedp.Evaluate[int](
				`document.querySelectorAll('[data-testid="chart-util"] .u-legend .u-series').length`))
		}
		// Grouped by server group (6 groups) and the top 8: 6 lines.
		if n := legend(); n != 6 {
			t.Errorf("utilization chart by group: %d lines, want 6: %s", n, get(t, ctx, "legend", chromedp.Text(chromedp.CSS(`[data-testid="chart-util"] .u-legend`))))
		}
		do(t, ctx, "one line per server, top 5", waitFor("the selects", "ok", chromedp.Evaluate[string](`(() => {
			const by = document.querySelector('[data-testid="chart-by"]'), top = document.querySelector('[data-testid="chart-top"]');
			by.value = "each"; by.dispatchEvent(new Event("change"));
			top.value = "5"; top.dispatchEvent(new Event("change"));
			return "ok";
		})()`)))
		if n := legend(); n != 6 { // 5 and the rest as one line
			t.Errorf("utilization chart, top 5 servers: %d lines, want 6", n)
		}
		screenshot(t, ctx, "large-app", chromedp.CSS("section.outputs"))
	})
}

// loadExample opens the page and loads an example, waiting for the parser's answer.
func loadExample(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	do(t, ctx, "load the example "+name,
		chromedp.Navigate(base+"/"),
		waitText(sel("version"), "engine"),
		pickExample(name),
		waitFor("the parser's answer", "ok", chromedp.Evaluate[string](`document.querySelector('[data-testid="diagnostics"] li') ? "ok" : ""`)),
	)
}

// paste selects the whole text of an editor and pastes text over it, as
// Ctrl+A then Ctrl+V would (a paste event with the text on its clipboard).
func paste(t *testing.T, ctx context.Context, editor, text string) {
	t.Helper()
	q, _ := json.Marshal(text)
	do(t, ctx, "paste into "+editor,
		chromedp.Click(sel("tab-config")),
		chromedp.Click(sel(editor)+" .cm-content"),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		waitFor("the paste", "pasted", chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const dt = new DataTransfer();
			dt.setData("text/plain", %s);
			document.querySelector('[data-testid=%q] .cm-content').dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
			return "pasted";
		})()`, q, editor))),
	)
}

// largeApp is a scenario of 30 servers in 6 groups on 3 machines.
func largeApp() string {
	var b strings.Builder
	b.WriteString("*RESOURCES\nMASTER M1\nMODEL MP\nLDBAL Y\n*MACHINES\n")
	for m := 1; m <= 3; m++ {
		fmt.Fprintf(&b, "\"h%d\" LMID=M%d\n", m, m)
	}
	b.WriteString("*GROUPS\n")
	for g := 1; g <= 6; g++ {
		fmt.Fprintf(&b, "G%d LMID=M%d GRPNO=%d\n", g, (g-1)/2+1, g)
	}
	b.WriteString("*SERVERS\n")
	for g := 1; g <= 6; g++ {
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(&b, "app SRVGRP=G%d SRVID=%d CLOPT=\"-s PAY,QUERY\"\n", g, i)
		}
	}
	b.WriteString("*SERVICES\nPAY\nQUERY\n")
	sc := map[string]any{
		"name":      "thirty servers",
		"ubbconfig": b.String(),
		"services": map[string]any{"PAY": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 20}},
			"QUERY": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 5}}},
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 20000, "streams": []any{
			map[string]any{"service": "PAY", "origin": "M1", "arrivals": "poisson", "rate_per_s": 600},
			map[string]any{"service": "QUERY", "origin": "M2", "arrivals": "poisson", "rate_per_s": 800}}}},
	}
	out, _ := json.Marshal(sc)
	return string(out)
}

// sameJSON says whether two JSON texts hold the same value, whatever their
// layout.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("%v: %.200s", err, a)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("%v: %.200s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}
