package tests

// The playground's Optimize tab: the scenario optimized in WebAssembly gives
// the bytes `tuxlb optimize --format json` prints, and the report fits a
// phone's screen, in the dark scheme too.

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestPlaygroundOptimize(t *testing.T) {
	srv := playgroundServer(t)
	var cli, errb bytes.Buffer
	cmd := exec.Command(binaryPath(t), "optimize", filepath.Join(repoRoot(t), "examples", "mssq-set.json"),
		"--vary", "SERVERS.quotesrv.MIN=1..4/1", "--objective", "wait_mean_ms<=50", "--objective", "response_p99_ms[QUOTE]<=400",
		"--cost", "SERVERS.quotesrv.MIN=2", "--epsilon", "10%", "--format", "json")
	cmd.Stdout, cmd.Stderr = &cli, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("tuxlb optimize: %v\n%s", err, errb.String())
	}
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := newBrowser(t)
			do(t, ctx, "be a phone", phoneSize(), emulateScheme(scheme))
			loadAndRun(t, ctx, srv.URL+"/", "mssq-set")
			// the second module (fit, optimize) comes only when asked for
			tools := func() int { return strings.Count(srv.Stderr.String(), "path=/assets/tuxlb-tools-") }
			before := tools()
			if scheme == "light" && before != 0 {
				t.Errorf("the page fetched tuxlb-tools.wasm before optimize or fit was asked for")
			}
			do(t, ctx, "fill the Optimize tab",
				jsClick(sel("tab-optimize")),
				chromedp.SetValue(sel("optimize-vary"), "SERVERS.quotesrv.MIN=1..4/1"),
				chromedp.SetValue(sel("optimize-objectives"), "wait_mean_ms<=50\nresponse_p99_ms[QUOTE]<=400"),
				chromedp.SetValue(sel("optimize-costs"), "SERVERS.quotesrv.MIN=2"),
				chromedp.SetValue(sel("optimize-epsilon"), "10%"),
				jsClick(sel("optimize-run")),
				waitText(sel("optimize-status"), "Done"))
			if tools() != before+1 {
				t.Errorf("tuxlb-tools.wasm fetched %d times for the optimization, want once", tools()-before)
			}
			headline := get(t, ctx, "the headline", chromedp.Evaluate[string](`document.querySelector('[data-testid="optimize-headline"]').textContent`))
			if headline != "Chosen: SERVERS.quotesrv.MIN=4, cost 8." {
				t.Errorf("headline %q, want MIN=4 at cost 2 × 4", headline)
			}
			rows := get(t, ctx, "the rejected", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="optimize-rejected"] [data-field="why"]')].map((e) => e.textContent).join("\n")`))
			if n := strings.Count(rows, "misses wait_mean_ms<=50"); n != 3 {
				t.Errorf("rejected, why: %q; want MIN=1..3 each missing the mean wait", rows)
			}
			if g := get(t, ctx, "the guarantee", chromedp.Evaluate[string](`document.querySelector('[data-testid="optimize-guarantee"]').textContent`)); !strings.HasPrefix(g, "With probability at least 95%") || strings.Contains(g, "tuxlb compare") {
				t.Errorf("the guarantee's first sentence: %q; want the probability statement alone", g)
			}
			// the rest of it folded below: what the figures shown mean, and how to check them
			if more := get(t, ctx, "the guarantee's rest", chromedp.Evaluate[string](`(document.querySelector('[data-testid="optimize-guarantee-more"]') || {}).textContent || ""`)); !strings.Contains(more, "tuxlb compare --no-baseline") {
				t.Errorf("the guarantee's folded sentences %q: want the check to run", more)
			}
			if w := get(t, ctx, "page width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > 390 {
				t.Errorf("the page is %.0f px wide on a 390 px screen: the Optimize tab does not fit", w)
			}
			if scheme == "light" {
				if got := downloadOf(t, ctx, sel("optimize-download-json")); !bytes.Equal(got, cli.Bytes()) {
					t.Errorf("the page's JSON differs from tuxlb optimize's:\n%s\nwant\n%s", got, cli.Bytes())
				}
				viewport(t, ctx, "optimize-phone", `document.querySelector('[data-testid="optimize-headline"]').scrollIntoView({block: "start"})`)
			}
		})
	}
}
