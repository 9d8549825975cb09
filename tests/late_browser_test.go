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
