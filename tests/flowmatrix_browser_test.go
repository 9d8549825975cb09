package tests

// The flow matrix beside the topology and the sweep charts' axes: the
// matrix's cells are the shares `tuxlb run` gives in its flows, and a sweep
// over a whole-number key gets whole ticks, a knee marker where the figure
// rises fastest (found here independently from `tuxlb sweep`'s JSON) and a
// log scale on demand.

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestPlaygroundFlowMatrixAndSweepAxes(t *testing.T) {
	srv := playgroundServer(t)
	example := filepath.Join(repoRoot(t), "examples", "mp-netload.json")

	t.Run("flow matrix", func(t *testing.T) {
		var res struct {
			Flows []struct {
				Origin, Machine, Reason string
				Requests                int64
			}
		}
		if err := json.Unmarshal(cliRun(t, example), &res); err != nil {
			t.Fatal(err)
		}
		total := map[string]int64{}
		cell := map[string]int64{}
		for _, f := range res.Flows {
			total[f.Origin] += f.Requests
			cell[f.Origin+"-"+f.Machine] += f.Requests
		}
		if len(cell) < 2 {
			t.Fatalf("mp-netload has %d flows, want requests between two machines", len(cell))
		}
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "mp-netload")
		do(t, ctx, "the matrix is drawn", chromedp.WaitVisible(sel("flow-matrix")))
		for k, n := range cell {
			origin, machine, _ := strings.Cut(k, "-")
			id := "flow-cell-" + origin + "-" + machine
			if machine == "" {
				id += "none"
			}
			got := get(t, ctx, "read "+id, chromedp.Text(sel(id)))
			p := math.Round(float64(n)/float64(total[origin])*1000) / 10
			want := fmt.Sprintf("%.1f%%", p)
			if p == math.Trunc(p) {
				want = fmt.Sprintf("%.0f%%", p)
			}
			if got != want {
				t.Errorf("%s: got %q, want %q (%d of %d requests)", id, got, want, n, total[origin])
			}
		}
		sentences := get(t, ctx, "read the sentences", chromedp.Text(sel("flow-sentences")))
		if !strings.Contains(sentences, "SITE1 sends") || !strings.Contains(sentences, "of its requests to SITE2") {
			t.Errorf("the sentences do not say where SITE1's requests went: %q", sentences)
		}
	})

	t.Run("sweep axes", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "sweep a whole-number key",
			chromedp.Navigate(srv.URL+"/"),
			chromedp.WaitVisible(sel("run")),
			pickExample("mp-netload"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-sweep")),
			chromedp.SetValue(sel("sweep-key1"), "SERVERS.acctsrv@GRP2.MIN"),
			chromedp.SetValue(sel("sweep-values1"), "1,2,3,4"),
			chromedp.SetValue(sel("sweep-reps"), "1"),
			chromedp.SetValue(sel("sweep-objective"), "network_sent<=100000"),
			chromedp.Click(sel("sweep-run")),
			waitText(sel("sweep-status"), "Done"),
		)
		chart := "sweep-chart-network_sent" // the objective's figure, which grows with MIN here
		attr := func(name string) string {
			return get(t, ctx, "read "+name, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('[data-testid=%q]')?.getAttribute(%q) ?? ""`, chart, name)))
		}
		if got := attr("data-integer-x"); got != "true" {
			t.Errorf("a sweep of MIN: data-integer-x %q, want true", got)
		}
		// The knee, from the CLI's JSON: the point before the steepest rise of the objective's figure.
		var sw struct {
			Points []struct {
				Values  map[string]float64
				Figures map[string]struct{ Mean float64 }
			}
		}
		out := cliSweep(t, example, "--vary", "SERVERS.acctsrv@GRP2.MIN=1,2,3,4", "--replications", "1", "--objective", "network_sent<=100000", "--format", "json")
		if err := json.Unmarshal(out, &sw); err != nil {
			t.Fatal(err)
		}
		knee, best := "", 0.0
		for i := 0; i+1 < len(sw.Points); i++ {
			a, b := sw.Points[i], sw.Points[i+1]
			dx := b.Values["SERVERS.acctsrv@GRP2.MIN"] - a.Values["SERVERS.acctsrv@GRP2.MIN"]
			if s := (b.Figures["network_sent"].Mean - a.Figures["network_sent"].Mean) / dx; s > best {
				best, knee = s, fmt.Sprint(a.Values["SERVERS.acctsrv@GRP2.MIN"])
			}
		}
		if knee == "" {
			t.Fatalf("network_sent never rises along MIN: pick another key for this test")
		}
		if got := attr("data-knees"); got != knee {
			t.Errorf("knee: got %q, want %q (from tuxlb sweep's figures)", got, knee)
		}
		if got := attr("data-scale"); got != "linear" {
			t.Errorf("scale before the toggle: %q, want linear", got)
		}
		do(t, ctx, "toggle the log scale", chromedp.Click(sel("sweep-log")))
		if got := attr("data-scale"); got != "log" {
			t.Errorf("scale after the toggle: %q, want log", got)
		}
	})
}
