package tests

// What the page does with an answer that comes late: the core slow to load
// (slowCore) or the server slow to answer, and the user moving on meanwhile.

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Explanations asked for one scenario and answered after another was loaded
// are not shown, nor kept to be shown, for the new one.
func TestPlaygroundExplainAfterLoad(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	do(t, ctx, "open Explain while the core loads, then load another example",
		slowCore(2*time.Second),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.Click(sel("tab-explain")), // asks for the first example's requests
		chromedp.Click(sel("tab-examples")),
		chromedp.Click(sel("example-shm-ldbal-n")),
		waitText(sel("version"), "engine"),
		chromedp.Click(sel("tab-workload")),
		formsValidated(), // the core answers in order: the explanations came before
	)
	if got := get(t, ctx, "read Explain", chromedp.Text(sel("explain-view"))); strings.Contains(got, "BALANCE") {
		t.Errorf("Explain shows the first example's request (BALANCE) after shm-ldbal-n was loaded:\n%.300s", got)
	}
	do(t, ctx, "explain request 1 of the scenario loaded",
		chromedp.Click(sel("explain-go")),
		waitText(sel("explain-view"), "Request #1"),
	)
	if got := get(t, ctx, "read Explain", chromedp.Text(sel("explain-view"))); !strings.Contains(got, "TOUPPER") {
		t.Errorf("request 1 of shm-ldbal-n is not a TOUPPER:\n%.300s", got)
	}
}

// lmids lists the machines a topology drawn in the element s shows.
func lmids(s chromedp.CSS) chromedp.Action[string] {
	return chromedp.Evaluate[string](`[...document.querySelectorAll('` + string(s) + ` [data-lmid]')].map((e) => e.dataset.lmid).join(",") || "(none)"`)
}

// A result is drawn on the topology of the scenario that ran, not on that of
// a scenario loaded while it ran (nor without one, when that scenario's model
// was not known yet); the Flow tab, which replays the result's scenario, too.
func TestPlaygroundResultKeepsItsModel(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	do(t, ctx, "run the first example while the core loads, then load another",
		slowCore(2*time.Second),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.Click(sel("run")), // admin-guide-load-only: SITE1 and SITE2
		chromedp.Click(sel("tab-examples")),
		chromedp.Click(sel("example-shm-ldbal-n")), // SITE1 only
		chromedp.WaitVisible(sel("summary")),
	)
	if got := get(t, ctx, "read the summary", chromedp.Text(sel("summary"))); !strings.Contains(got, "administration guide") {
		t.Fatalf("the result shown is not the first example's:\n%.200s", got)
	}
	if got := get(t, ctx, "read the result's topology", lmids(sel("topology"))); got != "SITE1,SITE2" {
		t.Errorf("the result's topology shows the machines %s, want the run's SITE1,SITE2", got)
	}
	do(t, ctx, "see the shm-ldbal-n forms, then the result's flow",
		chromedp.Click(sel("tab-workload")),
		formsValidated(),
		chromedp.Click(sel("tab-flow")),
		waitText(sel("flow-view"), "Requests 1 to"),
	)
	if got := get(t, ctx, "read the flow's topology", lmids(sel("flow-view"))); got != "SITE1,SITE2" {
		t.Errorf("the Flow tab draws the result's requests on the machines %s, want the run's SITE1,SITE2", got)
	}
}
