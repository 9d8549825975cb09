package tests

// The flow view: requests of the dispatch log moving through the topology;
// it advances while playing, stands still while paused, scrubs, and a click
// on a request opens its explanation.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestPlaygroundFlow(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	loadAndRun(t, ctx, srv.URL+"/", "mp-netload")
	do(t, ctx, "open the Flow tab",
		chromedp.Click(sel("tab-flow")),
		waitText(sel("flow-status"), "Requests 1 to 5,000"),
	)
	clock := func() float64 {
		s := get(t, ctx, "read the clock", chromedp.Evaluate[string](`document.querySelector('[data-testid="flow-time"]').dataset.us ?? ""`))
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("the clock reads %q: %v", s, err)
		}
		return v
	}
	t0 := clock()
	do(t, ctx, "play", chromedp.Click(sel("flow-play")), waitText(sel("flow-play"), "Pause"), chromedp.Sleep(800*time.Millisecond))
	t1 := clock()
	// 100 ms of simulated time per second: 0.8 s of playing is about 80 000 µs.
	if t1-t0 < 20_000 {
		t.Errorf("playing for 0.8 s moved the clock from %.0f to %.0f µs, want tens of thousands of µs", t0, t1)
	}
	do(t, ctx, "pause", chromedp.Click(sel("flow-play")), waitText(sel("flow-play"), "Play"))
	t2 := clock()
	do(t, ctx, "wait", chromedp.Sleep(500*time.Millisecond))
	if t3 := clock(); t3 != t2 {
		t.Errorf("paused, the clock moved from %.0f to %.0f µs", t2, t3)
	}
	// Scrub to a busy moment (a quarter of the way) and click a request drawn there.
	do(t, ctx, "scrub", chromedp.Evaluate[chromedp.Void](`(() => {
		const s = document.querySelector('[data-testid="flow-scrub"]');
		s.value = "250";
		s.dispatchEvent(new Event("input"));
	})()`))
	if t4 := clock(); t4 <= t2 {
		t.Errorf("scrubbed to a quarter, the clock reads %.0f µs, want past %.0f", t4, t2)
	}
	var dots []struct{ Seq, X, Y int }
	if err := json.Unmarshal([]byte(get(t, ctx, "read the requests drawn", chromedp.Evaluate[string](`document.querySelector('[data-testid="flow-canvas"]').dataset.dots ?? "[]"`))), &dots); err != nil {
		t.Fatal(err)
	}
	if len(dots) == 0 {
		t.Fatalf("no request drawn a quarter of the way through")
	}
	screenshot(t, ctx, "flow", chromedp.CSS("section.outputs"))
	box := get(t, ctx, "find the canvas", chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('[data-testid="flow-canvas"]').getBoundingClientRect(); return [r.left, r.top]; })()`))
	d := dots[0]
	do(t, ctx, "click a request",
		chromedp.MouseClickXY(box[0]+float64(d.X), box[1]+float64(d.Y)),
		waitText(sel("explain-view"), fmt.Sprintf("Request #%d", d.Seq)),
	)
}
