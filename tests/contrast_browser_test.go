package tests

// Every visible text of the playground is readable (WCAG AA: a contrast of
// at least 4.5:1 against what is drawn behind it) in both colour schemes.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// contrastJS measures every visible text on the page: its colour (an SVG
// text's fill) composited with its opacity, against the colours stacked
// behind its centre (HTML backgrounds, SVG shapes' fills), and returns those
// below 4.5:1 as JSON. Texts of disabled controls are exempt (WCAG 1.4.3);
// a text whose centre is covered or clipped is not visible and not measured.
const contrastJS = `(() => {
  const rgba = (s) => {
    const m = /rgba?\(([^)]+)\)/.exec(s || "");
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, a, bottom) => top.slice(0, 3).map((c, i) => c * a + bottom[i] * (1 - a));
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const shapes = new Set(["rect", "circle", "ellipse", "path", "polygon"]);
  const page = rgba(getComputedStyle(document.documentElement).backgroundColor);
  const out = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n = 0, hidden = 0;
  while (walker.nextNode()) {
    const t = walker.currentNode;
    const el = t.parentElement;
    if (!el || !t.textContent.trim() || seen.has(el) || el.closest("title, script, style, option, datalist")) continue;
    seen.add(el);
    if (el.closest(":disabled")) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    let r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) {
      el.scrollIntoView({ block: "center", inline: "center" });
      r = range.getBoundingClientRect();
    }
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible") continue;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const stack = document.elementsFromPoint(x, y);
    const at = stack.indexOf(el);
    if (at < 0) { hidden++; continue; } // covered or clipped: not visible
    let bg = page ? page.slice(0, 3) : [255, 255, 255];
    for (let i = stack.length - 1; i >= at; i--) {
      const e = stack[i];
      if (e instanceof SVGElement) {
        if (!shapes.has(e.tagName) || e === el) continue;
        const s = getComputedStyle(e);
        const f = rgba(s.fill);
        if (f) bg = over(f, f[3] * Number(s.fillOpacity) * opacity(e), bg);
      } else {
        const b = rgba(getComputedStyle(e).backgroundColor);
        if (b && b[3] > 0) bg = over(b, b[3] * opacity(e), bg);
      }
    }
    const fg = rgba(el instanceof SVGElement ? cs.fill : cs.color);
    if (!fg) continue;
    const a = fg[3] * (el instanceof SVGElement ? Number(cs.fillOpacity) : 1) * opacity(el);
    const c = over(fg, a, bg);
    const l1 = lum(c), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    n++;
    if (ratio < 4.5) {
      const path = [];
      for (let e = el; e && e !== document.body && path.length < 4; e = e.parentElement) path.unshift(e.tagName.toLowerCase() + (e.classList.length ? "." + [...e.classList].join(".") : ""));
      out.push({ text: t.textContent.trim().slice(0, 40), where: path.join(" > "), fg: c.map(Math.round).join(","), bg: bg.map(Math.round).join(","), ratio: Math.round(ratio * 100) / 100 });
    }
  }
  return JSON.stringify({ measured: n, hidden, low: out });
})()`

// lowContrast is one text below 4.5:1.
type lowContrast struct {
	Text, Where, FG, BG string
	Ratio               float64
}

// measureContrast returns how many texts were measured and those below 4.5:1.
func measureContrast(t *testing.T, ctx context.Context) (int, []lowContrast) {
	t.Helper()
	var got struct {
		Measured, Hidden int
		Low              []lowContrast
	}
	if err := json.Unmarshal([]byte(get(t, ctx, "measure contrast", chromedp.Evaluate[string](contrastJS))), &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d texts measured, %d covered or clipped", got.Measured, got.Hidden)
	return got.Measured, got.Low
}

// emulateScheme makes the page see prefers-color-scheme: scheme.
func emulateScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

func TestPlaygroundContrast(t *testing.T) {
	srv := playgroundServer(t)
	// Each view shows one scenario tab beside one result tab (the flow view's canvas is not text).
	type view struct {
		name   string
		setup  []chromedp.Action[chromedp.Void]
		inputs string
	}
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := newBrowser(t)
			do(t, ctx, "emulate the scheme", emulateScheme(scheme))
			dark := get(t, ctx, "ask the page", chromedp.Evaluate[bool](`matchMedia("(prefers-color-scheme: dark)").matches`))
			if dark != (scheme == "dark") {
				t.Fatalf("prefers-color-scheme: dark matches %v in the %s scheme", dark, scheme)
			}
			loadAndRun(t, ctx, srv.URL+"/", "mp-netload")
			if scheme == "dark" {
				screenshot(t, ctx, "results-dark", chromedp.CSS("main"))
			}
			views := []view{
				{"results", nil, "config"},
				{"explain", []chromedp.Action[chromedp.Void]{chromedp.Click(sel("tab-explain")), chromedp.WaitVisible(sel("explain-candidates"))}, "workload"},
				{"compare", []chromedp.Action[chromedp.Void]{chromedp.Click(sel("tab-compare")), chromedp.Click(sel("compare-run")), chromedp.WaitVisible(sel("compare-table"))}, "timing"},
				{"sweep", []chromedp.Action[chromedp.Void]{chromedp.Click(sel("tab-sweep")), chromedp.SetValue(sel("sweep-values1"), "0.5,1"),
					chromedp.SetValue(sel("sweep-reps"), "2"), chromedp.SetValue(sel("sweep-objective"), "response_p99_ms<=100"),
					chromedp.Click(sel("sweep-run")), waitText(sel("sweep-status"), "Done")}, "json"},
				{"flow", []chromedp.Action[chromedp.Void]{chromedp.Click(sel("tab-flow")), waitText(sel("flow-status"), "Requests 1 to"),
					chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('[data-testid="flow-scrub"]'); s.value = "250"; s.dispatchEvent(new Event("input")); })()`)}, "workload"},
				{"saved runs", []chromedp.Action[chromedp.Void]{chromedp.Click(sel("tab-results")), chromedp.Click(sel("save-run")), waitText(sel("runs-list"), "NETLOAD"), chromedp.Click(sel("share"))}, "examples"},
			}
			total := 0
			var low []string
			check := func(name string) {
				n, l := measureContrast(t, ctx)
				total += n
				for _, x := range l {
					low = append(low, fmt.Sprintf("%s: %q (%s) %s on %s = %.2f", name, x.Text, x.Where, x.FG, x.BG, x.Ratio))
				}
			}
			for _, v := range views {
				do(t, ctx, "show "+v.name, append(v.setup, chromedp.Click(sel("tab-"+v.inputs)))...)
				check(v.name + " + " + v.inputs)
			}
			// A run with a life cycle: state lanes, failures, a failed request explained.
			loadAndRun(t, ctx, srv.URL+"/", "crash-no-restart")
			check("life cycle results")
			do(t, ctx, "explain a failed request",
				chromedp.Click(sel("tab-explain")),
				waitText(sel("explain-view"), "Request #1"),
				chromedp.SetValue(sel("explain-seq"), "701"),
				chromedp.Click(sel("explain-go")),
				waitText(sel("explain-failure"), "TPESVCERR"),
			)
			check("life cycle explain")
			// Applications: the client and service tables, the call graph, the
			// clients editor, a nested request explained with its links.
			nested := 0
			for i, r := range dispatchRows(t, filepath.Join(repoRoot(t), "examples", "bankapp-transfer.json"))[1:] {
				if r[len(r)-1] != "" {
					nested = i + 1
					break
				}
			}
			loadAndRun(t, ctx, srv.URL+"/", "bankapp-transfer")
			do(t, ctx, "show the call graph", chromedp.Click(sel("tab-config")), chromedp.WaitVisible(sel("callgraph")), chromedp.WaitVisible(sel("client-table")))
			check("applications results + config")
			do(t, ctx, "explain a nested request beside the clients editor",
				chromedp.Click(sel("tab-explain")),
				waitText(sel("explain-view"), "Request #1"),
				chromedp.SetValue(sel("explain-seq"), fmt.Sprint(nested)),
				chromedp.Click(sel("explain-go")),
				waitText(sel("explain-parent-link"), "#"),
				chromedp.Click(sel("tab-workload")),
				chromedp.WaitVisible(sel("clients-form")),
			)
			check("applications explain + workload")
			loadExample(t, ctx, srv.URL, "self-call-deadlock")
			do(t, ctx, "show the self-call warning", chromedp.Click(sel("tab-config")), waitText(sel("callgraph-edges"), "⚠"))
			check("self-call call graph")
			loadAndRun(t, ctx, srv.URL+"/", "site2-lost-tellers")
			do(t, ctx, "show the machine changes", chromedp.WaitVisible(sel("machine-changes")))
			check("lost machine results")
			if total < 300 {
				t.Errorf("only %d texts measured: the views did not show", total)
			}
			if len(low) > 0 {
				if len(low) > 40 {
					low = append(low[:40], fmt.Sprintf("... and %d more", len(low)-40))
				}
				t.Errorf("%s scheme: texts below 4.5:1 contrast:\n%s", scheme, strings.Join(low, "\n"))
			}
		})
	}
}
