package tests

// The playground on a phone: the Run button and the scenario before the
// share boxes and the results, and wide tables saying that they scroll.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// phoneSize makes the tab a 390 x 844 phone screen (CSS pixels).
func phoneSize() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: 390, Height: 844, DeviceScaleFactor: 2, Mobile: true})
		return err
	})
}

func TestPlaygroundPhone(t *testing.T) {
	srv := playgroundServer(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := newBrowser(t)
			do(t, ctx, "be a phone", phoneSize(), emulateScheme(scheme))
			loadAndRun(t, ctx, srv.URL+"/", "mp-netload")
			var top map[string]float64
			if err := json.Unmarshal([]byte(get(t, ctx, "measure the layout", chromedp.Evaluate[string](`JSON.stringify(Object.fromEntries(
				[["run", '[data-testid="run"]'], ["scenario", 'section.inputs [role="tablist"]'], ["share", '[data-testid="share"]'], ["results", 'section.outputs']]
					.map(([k, q]) => [k, document.querySelector(q).getBoundingClientRect().top + scrollY])))`))), &top); err != nil {
				t.Fatal(err)
			}
			if !(top["run"] < top["scenario"] && top["scenario"] < top["share"] && top["share"] < top["results"]) {
				t.Errorf("on a phone, want the Run button, the scenario, the share boxes, then the results, top to bottom; got tops %v", top)
			}
			// A swipe that starts in an editor scrolls its text: the editor may
			// take at most 40% of the screen's height, however long its text.
			if r := get(t, ctx, "the editor's tallest", chromedp.Evaluate[float64](`parseFloat(getComputedStyle(document.querySelector(".editor .cm-editor")).maxHeight) / innerHeight`)); !(r > 0 && r <= 0.4) {
				t.Errorf("on a phone the UBBCONFIG editor may be %.0f%% of the screen's height, want at most 40%%", r*100)
			}
			if w := get(t, ctx, "page width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > 390 {
				t.Errorf("the page is %.0f px wide on a 390 px screen: something does not fit", w)
			}
			// Every table wider than the screen says so just before it; the queue table (9 columns) is one.
			got := get(t, ctx, "look at the tables", chromedp.Evaluate[string](`JSON.stringify([...document.querySelectorAll("section.outputs table:not(.u-legend)")]
				.filter((t) => t.getClientRects().length)
				.map((t) => ({ caption: t.caption?.textContent ?? "", wide: t.scrollWidth > t.clientWidth + 1,
					hint: !!t.previousElementSibling?.matches('[data-testid="scroll-hint"]') && t.previousElementSibling.getClientRects().length > 0 })))`))
			var tables []struct {
				Caption    string
				Wide, Hint bool
			}
			if err := json.Unmarshal([]byte(got), &tables); err != nil {
				t.Fatal(err)
			}
			wide := 0
			for _, tb := range tables {
				if tb.Wide {
					wide++
				}
				if tb.Wide != tb.Hint {
					t.Errorf("table %q: wider than the screen %v, but a scroll hint before it %v", tb.Caption, tb.Wide, tb.Hint)
				}
			}
			if wide == 0 {
				t.Errorf("no table is wider than a phone's screen (%d tables): the check checked nothing", len(tables))
			}
			if scheme == "light" {
				viewport(t, ctx, "phone", `window.scrollTo(0, 0)`)
			} else {
				viewport(t, ctx, "phone-dark-table", `document.querySelector('[data-testid="scroll-hint"]').scrollIntoView({block: "start"})`)
			}
		})
	}
	t.Run("a share link opened on a phone shows its results on the screen", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "be a phone", phoneSize())
		loadAndRun(t, ctx, srv.URL+"/", "mp-netload")
		do(t, ctx, "make the link", chromedp.Click(sel("share")), waitValue(sel("share-link"), "#s="))
		link := get(t, ctx, "read the link", chromedp.Value(sel("share-link")))
		fresh := newBrowser(t)
		do(t, fresh, "open the link", phoneSize(), chromedp.Navigate(link), chromedp.WaitVisible(sel("summary")), chromedp.Sleep(300*time.Millisecond))
		// the results are below the scenario: the summary starts several
		// screens down the page, and the page brought it into view
		got := get(t, fresh, "where the summary is", chromedp.Evaluate[string](`(() => {
			const r = document.querySelector('[data-testid="summary"]').getBoundingClientRect();
			return JSON.stringify({ top: r.top, page: r.top + scrollY, screen: innerHeight });
		})()`))
		var at struct{ Top, Page, Screen float64 }
		if err := json.Unmarshal([]byte(got), &at); err != nil {
			t.Fatal(err)
		}
		if at.Page < at.Screen {
			t.Fatalf("the summary is %.0f px down the page, on its first screen (%.0f px): the check checks nothing", at.Page, at.Screen)
		}
		if at.Top < 0 || at.Top > at.Screen/2 {
			t.Errorf("a share link opened on a phone: its summary is at %.0f px of a %.0f px screen (%.0f px down the page), want it in view", at.Top, at.Screen, at.Page)
		}
	})
	t.Run("/Q on a phone, dark: the queues' table scrolls in its box, the charts fit", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "be a phone", phoneSize(), emulateScheme("dark"))
		loadAndRun(t, ctx, srv.URL+"/", "queue-forwarding")
		do(t, ctx, "see the /Q table and charts", chromedp.WaitVisible(sel("qspace-table")), chromedp.WaitVisible(sel("chart-qdepth")), chromedp.WaitVisible(sel("chart-commit")))
		if w := get(t, ctx, "page width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > 390 {
			t.Errorf("the page is %.0f px wide on a 390 px screen: something does not fit", w)
		}
		hinted := get(t, ctx, "the /Q table's hint", chromedp.Evaluate[bool](`(() => {
			const t = document.querySelector('[data-testid="qspace-table"]');
			return t.scrollWidth <= t.clientWidth + 1 || !!t.previousElementSibling?.matches('[data-testid="scroll-hint"]');
		})()`))
		if !hinted {
			t.Errorf("the /Q table is wider than the phone's screen and no scroll hint says so")
		}
		viewport(t, ctx, "phone-dark-qspaces", `document.querySelector('[data-testid="qspace-table"]').scrollIntoView({block: "start"})`)
	})
	t.Run("drawings wider than the screen say that they scroll, as tables do", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "be a phone", phoneSize())
		// Two machines side by side and a call graph three services deep:
		// wider than 390 px at the 70% they keep at least.
		loadAndRun(t, ctx, srv.URL+"/", "bankapp-transfer")
		do(t, ctx, "see the drawings", chromedp.Click(sel("tab-config")), chromedp.WaitVisible(sel("callgraph")), chromedp.WaitVisible(sel("topology")))
		got := get(t, ctx, "look at the drawings", chromedp.Evaluate[string](`JSON.stringify([...document.querySelectorAll(".topo, .callgraph-scroll, .timeline-box")]
			.filter((b) => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1)
			.map((b) => ({ what: (b.dataset.testid || b.className) + " in " + b.closest("section")?.className,
				hint: !!b.previousElementSibling?.matches('[data-testid="scroll-hint"]') && b.previousElementSibling.getClientRects().length > 0 })))`))
		var wide []struct {
			What string
			Hint bool
		}
		if err := json.Unmarshal([]byte(got), &wide); err != nil {
			t.Fatal(err)
		}
		// the topology of the scenario, the call graph, the topology of the result
		if len(wide) < 3 {
			t.Errorf("want the two topologies and the call graph wider than a phone's screen, got %d wide drawings: %s", len(wide), got)
		}
		for _, d := range wide {
			if !d.Hint {
				t.Errorf("drawing %s is wider than the screen and cut off at its right edge, and no scroll hint says so", d.What)
			}
		}
		if w := get(t, ctx, "page width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > 390 {
			t.Errorf("the page is %.0f px wide on a 390 px screen: something does not fit", w)
		}
		// The Explain view's drawing uses the screen's width from its left edge,
		// as the others do, not a figure's 40 px indent on each side.
		do(t, ctx, "explain request 1", chromedp.Click(sel("tab-explain")), waitText(sel("explain-view"), "Request #1"))
		indent := get(t, ctx, "the explain drawing's indent", chromedp.Evaluate[float64](`(() => {
			const f = document.querySelector('div.explain > .topo > figure');
			return f.getBoundingClientRect().left - f.parentElement.getBoundingClientRect().left;
		})()`))
		if indent > 1 {
			t.Errorf("the Explain view's topology is indented %.0f px from its box on a 390 px screen, want 0", indent)
		}
	})
}

// viewport saves what the screen shows after script as docs/img/NAME.png
// when TUXLB_SCREENSHOTS=1.
func viewport(t *testing.T, ctx context.Context, name, script string) {
	t.Helper()
	if os.Getenv("TUXLB_SCREENSHOTS") != "1" {
		return
	}
	do(t, ctx, "scroll for "+name, chromedp.Evaluate[chromedp.Void](script), chromedp.Sleep(400*time.Millisecond))
	png := get(t, ctx, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(repoRoot(t), "docs", "img", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
