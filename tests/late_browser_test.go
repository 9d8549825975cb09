package tests

// What the page does with an answer that comes late: the core slow to load
// (slowCore) or the server slow to answer, and the user moving on meanwhile.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// heldRequests are the page's requests to the server that a test holds back
// until it lets them through (or fails them, as a server gone would), so
// that the user can act before their answer.
type heldRequests struct {
	mu       sync.Mutex
	released bool
	fail     bool
	ids      []fetch.RequestID
}

// holdRequests holds back every request matching pattern (after the core's,
// if slowCore came before: one test holds one kind) until release.
func holdRequests(pattern string) (*heldRequests, chromedp.Action[chromedp.Void]) {
	h := &heldRequests{}
	return h, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if err := chromedp.Listen(ctx, func(ev any) {
			if e, ok := ev.(*fetch.EventRequestPaused); ok {
				h.mu.Lock()
				defer h.mu.Unlock()
				if !h.released {
					h.ids = append(h.ids, e.RequestID)
					return
				}
				go h.answer(ctx, e.RequestID, h.fail) // a listener must not send commands itself
			}
		}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: pattern}}})
		return err
	})
}

// release lets the requests held, and those to come, through; with fail, they fail as with no server.
func (h *heldRequests) release(fail bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		h.mu.Lock()
		h.released, h.fail = true, fail
		ids := h.ids
		h.ids = nil
		h.mu.Unlock()
		for _, id := range ids {
			if err := h.answer(ctx, id, fail); err != nil {
				return err
			}
		}
		return nil
	})
}

func (h *heldRequests) answer(ctx context.Context, id fetch.RequestID, fail bool) error {
	_, err := chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if fail {
			_, err := chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonConnectionRefused})
			return err
		}
		_, err := chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
		return err
	}))
	return err
}

// noteAnswers makes the pages opened next list in window.answered the URL of
// every fetch whose body they have read, or that failed, once what the page
// does with it right away is done (a task after the read's promise
// settles): a test can then look at what the page made of an answer.
func noteAnswers() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
			const note = (url) => setTimeout(() => (window.answered ??= []).push(url));
			const text = Response.prototype.text;
			Response.prototype.text = function () {
				const url = this.url;
				return text.call(this).finally(() => note(url));
			};
			const f = window.fetch;
			window.fetch = (input, init) => f(input, init).catch((e) => {
				note(String(input));
				throw e;
			});
		})()`})
		return err
	})
}

// noteCoreAnswers makes the pages opened next list in window.coreAnswered
// the op of every answer their workers give, once what the page does with it
// right away is done (a task after it is handled): a test can then look at
// what the page made of an answer that does not change the page.
func noteCoreAnswers() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
			const asked = new WeakMap(); // worker → request id → op
			const post = Worker.prototype.postMessage;
			Worker.prototype.postMessage = function (m, ...rest) {
				if (m && m.id !== undefined) {
					if (!asked.has(this)) asked.set(this, new Map());
					asked.get(this).set(m.id, m.op);
				}
				return post.call(this, m, ...rest);
			};
			const on = Object.getOwnPropertyDescriptor(Worker.prototype, "onmessage");
			Object.defineProperty(Worker.prototype, "onmessage", {
				...on,
				set(handle) {
					on.set.call(this, (ev) => {
						handle.call(this, ev);
						if (ev.data?.type !== "done") return;
						const op = asked.get(this)?.get(ev.data.id);
						setTimeout(() => (window.coreAnswered ??= []).push(op));
					});
				},
			});
		})()`})
		return err
	})
}

// coreAnswered waits until the page has dealt with a worker's answer to op (noteCoreAnswers).
func coreAnswered(op string) chromedp.Action[chromedp.Void] {
	return waitFor("the core's answers", " "+op+" ", chromedp.Evaluate[string](`" " + (window.coreAnswered ?? []).join(" ") + " "`))
}

// answered waits until the page has dealt with an answer from a URL containing part (noteAnswers).
func answered(part string) chromedp.Action[chromedp.Void] {
	return waitFor("the page's answers read", part, chromedp.Evaluate[string](`(window.answered ?? []).join(" ")`))
}

// Explanations asked for one scenario and answered after another was loaded
// are not shown, nor kept to be shown, for the new one.
func TestPlaygroundExplainAfterLoad(t *testing.T) {
	srv := playgroundServer(t)
	ctx := newBrowser(t)
	do(t, ctx, "open Explain while the core loads, then load another example",
		slowCore(2*time.Second),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.Click(sel("tab-explain")), // asks for the first example's requests
		pickExample("shm-ldbal-n"),
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
		pickExample("shm-ldbal-n"), // SITE1 only
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

// saveScenario stores an example through the API and returns its short link's path.
func saveScenario(t *testing.T, base, example string) string {
	t.Helper()
	resp, err := http.Post(base+"/api/v1/scenarios", "application/json", strings.NewReader(readExample(t, example)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var v struct{ URL string }
	if err := json.Unmarshal(body, &v); err != nil || v.URL == "" {
		t.Fatalf("POST /api/v1/scenarios: %s (%v)", body, err)
	}
	return v.URL
}

// runStatus reads the run bar's status.
func runStatus(t *testing.T, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, "read the run status", chromedp.Evaluate[string](`document.querySelector('[data-testid="run-status"]').textContent`))
}

// An example picked while a link's scenario is being opened (the core still
// loading, the server slow to give a short link's scenario) is the user's
// choice: the link's scenario does not replace it, and it is not run in the
// link's stead.
func TestPlaygroundExampleWhileLinkOpens(t *testing.T) {
	srv := playgroundServer(t)

	t.Run("fragment link, the core loading", func(t *testing.T) {
		maker := newBrowser(t)
		do(t, maker, "make a link to mp-netload",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			pickExample("mp-netload"),
			chromedp.Click(sel("share")),
			waitValue(sel("share-link"), "#s="),
		)
		link := get(t, maker, "read the link", chromedp.Value(sel("share-link")))
		ctx := newBrowser(t)
		do(t, ctx, "open the link, pick an example before the core answers",
			slowCore(2*time.Second),
			chromedp.Navigate(link),
			pickExample("shm-ldbal-n"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-workload")),
			formsValidated(), // the core answers in order: the link's scenario's validation came before
		)
		if got := runStatus(t, ctx); got != "" {
			t.Errorf("the page ran after the example was picked (run status %q): the link's run is not for it", got)
		}
		if sc := pageScenario(t, ctx); !strings.Contains(sc, "SHM with LDBAL=N") {
			t.Errorf("the page's scenario is not the example picked:\n%.200s", sc)
		}
	})

	t.Run("fragment link with a comparison, its run going on", func(t *testing.T) {
		var ex map[string]any
		if err := json.Unmarshal([]byte(readExample(t, "shm-ldbal-n")), &ex); err != nil {
			t.Fatal(err)
		}
		ex["name"] = "long"
		ex["workload"].(map[string]any)["generate"].(map[string]any)["duration_ms"] = 10_000_000 // a million requests: seconds of running
		long, _ := json.Marshal(ex)
		maker := newBrowser(t)
		do(t, maker, "make a link to a long run with a comparison",
			chromedp.Navigate(srv.URL+"/"),
			waitText(sel("version"), "engine"),
			chromedp.Click(sel("tab-json")),
			chromedp.SetValue(sel("scenario-json"), string(long)),
			chromedp.Click(sel("scenario-json-load")),
			chromedp.Click(sel("tab-workload")),
			formsValidated(),
			chromedp.Click(sel("tab-compare")),
			chromedp.Click(sel("compare-run")), // the link carries the comparison once it is started
			chromedp.Click(sel("share")),
			waitValue(sel("share-link"), "&c="),
		)
		link := get(t, maker, "read the link", chromedp.Value(sel("share-link")))
		ctx := newBrowser(t)
		do(t, ctx, "open the link", chromedp.Navigate(link), waitText(sel("run-status"), "requests"))
		when := get(t, ctx, "pick an example while the link's run goes on", chromedp.Evaluate[string](`(() => {
			const running = document.querySelector('[data-testid="run-status"]').textContent.includes("requests");
			document.querySelector('[data-testid="example-mp-netload"]').click();
			return running ? "during the run" : "after the run";
		})()`))
		if when != "during the run" {
			t.Fatalf("the example was picked %s: the test needs a longer run", when)
		}
		do(t, ctx, "wait for the link's run", waitText(sel("run-status"), "Done."))
		if got := get(t, ctx, "is Compare shown", chromedp.Evaluate[string](`document.querySelector('[data-testid="tab-compare"]').getAttribute("aria-selected")`)); got != "false" {
			t.Errorf("the link's comparison was started after mp-netload was picked (Compare selected: %s): it is not for it", got)
		}
		if got := get(t, ctx, "read the summary", chromedp.Evaluate[string](`document.querySelector('[data-testid="summary"]').textContent`)); !strings.HasPrefix(got, "long") {
			t.Errorf("the result shown is not the link's run:\n%.200s", got)
		}
	})

	for _, fail := range []bool{false, true} {
		name := map[bool]string{false: "short link, the server slow", true: "short link, the server gone"}[fail]
		t.Run(name, func(t *testing.T) {
			short := saveScenario(t, srv.URL, "mp-netload")
			ctx := newBrowser(t)
			held, hold := holdRequests("*/api/v1/scenarios/*")
			do(t, ctx, "open the short link, pick an example before the server answers",
				noteAnswers(),
				hold,
				chromedp.Navigate(srv.URL+short),
				waitText(sel("version"), "engine"),
				pickValidated("shm-ldbal-n"),
				held.release(fail),
				answered("/api/v1/scenarios/"),
			)
			wantPicked(t, ctx, "")
			if got := runStatus(t, ctx); got != "" {
				t.Errorf("the page ran after the example was picked (run status %q)", got)
			}
		})
	}
}

// pickValidated picks the example id and waits for its forms validated.
func pickValidated(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(pickExample(id), chromedp.Click(sel("tab-workload")), formsValidated())
}

// wantPicked fails the test unless the page's scenario is shm-ldbal-n, the
// example picked; late says by what it was replaced (" by ...", or "").
func wantPicked(t *testing.T, ctx context.Context, late string) {
	t.Helper()
	if sc := pageScenario(t, ctx); !strings.Contains(sc, "SHM with LDBAL=N") {
		t.Errorf("the example picked was replaced%s:\n%.200s", late, sc)
	}
}

// readExample returns examples/NAME.json.
func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An example picked while the core reads the user's files (the core still
// loading, or the fit's module) is the user's choice: the scenario of the
// files does not replace it when it comes.
func TestPlaygroundExampleWhileFilesRead(t *testing.T) {
	srv := playgroundServer(t)

	t.Run("a UBBCONFIG, the core loading", func(t *testing.T) {
		ubb := filepath.Join(t.TempDir(), "ubb.cfg")
		if err := os.WriteFile(ubb, []byte(ownUBB), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := newBrowser(t)
		do(t, ctx, "choose a UBBCONFIG, then pick an example before the core answers",
			noteCoreAnswers(),
			slowCore(2*time.Second),
			chromedp.Navigate(srv.URL+"/"),
			chromedp.Click(sel("tab-config")),
			uploadFiles(sel("file-input"), []string{ubb}),
			pickExample("shm-ldbal-n"),
			coreAnswered("files"),
		)
		wantPicked(t, ctx, " by the file's scenario")
	})

	t.Run("ULOG files, the fit's module loading", func(t *testing.T) {
		dir, err := filepath.Abs(filepath.Join("..", "core", "ulog", "testdata", "bank")) // the browser reads uploads by absolute path
		if err != nil {
			t.Fatal(err)
		}
		ctx := newBrowser(t)
		held, hold := holdRequests("*tools*.wasm")
		do(t, ctx, "choose ULOG files, then pick an example before the fit answers",
			noteCoreAnswers(),
			hold,
			chromedp.Navigate(srv.URL+"/"),
			chromedp.Click(sel("tab-workload")),
			formsValidated(),
			chromedp.Click(sel("tab-config")),
			uploadFiles(sel("file-input"), []string{filepath.Join(dir, "node1", "ULOG.120126"), filepath.Join(dir, "node2", "ULOG.120126"), filepath.Join(dir, "ubbconfig")}),
			pickValidated("shm-ldbal-n"),
			held.release(false),
			coreAnswered("fit"),
		)
		wantPicked(t, ctx, " by the fitted scenario")
	})
}

// An example picked while the server is slow to give a saved run opened from
// the list is the user's choice: the run's scenario does not replace it.
func TestPlaygroundExampleWhileRunOpens(t *testing.T) {
	srv := playgroundServer(t)
	resp, err := http.Post(srv.URL+"/api/v1/runs", "application/json", strings.NewReader(readExample(t, "mp-netload")))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var run struct{ ID string }
	if err := json.Unmarshal(body, &run); err != nil || run.ID == "" {
		t.Fatalf("POST /api/v1/runs: %s (%v)", body, err)
	}
	item := chromedp.CSS(`[data-testid="runs-list"] li[data-run-id="` + run.ID + `"] button`)
	ctx := newBrowser(t)
	held, hold := holdRequests("*/api/v1/runs/*")
	do(t, ctx, "open the run, pick an example before the server answers",
		noteAnswers(),
		hold,
		chromedp.Navigate(srv.URL+"/"),
		waitText(sel("version"), "engine"),
		chromedp.Click(sel("tab-runs")),
		jsClick(item),
		pickValidated("shm-ldbal-n"),
		held.release(false),
		answered("/result.json"), // the run, then its result's bytes
	)
	wantPicked(t, ctx, " by the run's scenario")
	if got := runStatus(t, ctx); got != "" {
		t.Errorf("run status %q after the example was picked", got)
	}
}
