package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath is the browser the end-to-end tests drive.
const chromiumPath = "/usr/bin/chromium"

// playgroundServer starts tuxlb serve on a fresh SQLite file for a browser
// test, after checking that its binary has the playground built in; the
// browser tests are skipped with -short.
func playgroundServer(t *testing.T) *serverProc {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests start Chromium; skipped with -short")
	}
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	requireBuilt(t, srv.URL)
	return srv
}

// newBrowser starts a fresh headless Chromium (its own user-data dir, so no
// state is shared with other browsers) and returns a context for its tab,
// limited to two minutes.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is needed at %s for the browser tests: install it (Debian: apt-get install chromium; .ci/run does this)", chromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1366, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser; no timeout on this first call
		t.Fatalf("start Chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, func(ev any) { logPage(t, ev) }); err != nil {
		t.Fatal(err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(cancelTimeout)
	return tctx
}

// logPage reports the page's uncaught exceptions and console errors in the test log.
func logPage(t *testing.T, ev any) {
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		t.Logf("page exception: %s (%s:%d)", msg, d.URL, d.LineNumber+1)
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
			}
			t.Logf("console.%s: %s", e.Type, strings.Join(parts, " "))
		}
	}
}

// sel is the CSS selector of a data-testid.
func sel(testid string) chromedp.CSS { return chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, testid)) }

// do runs chromedp actions and fails the test with what it was doing.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one chromedp action that returns a value.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// loadAndRun opens url, optionally picks an example, runs it and waits for the summary.
func loadAndRun(t *testing.T, ctx context.Context, url, example string) {
	t.Helper()
	actions := []chromedp.Action[chromedp.Void]{chromedp.Navigate(url), chromedp.WaitVisible(sel("run"))}
	if example != "" {
		actions = append(actions, pickExample(example))
	}
	actions = append(actions, waitText(sel("version"), "engine"), chromedp.Click(sel("run")), chromedp.WaitVisible(sel("summary")))
	do(t, ctx, "load and run "+url, actions...)
}

// pickExample opens the Examples tab and loads the example id.
func pickExample(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Click(sel("tab-examples")), chromedp.Click(sel("example-"+id)))
}

// waitFor polls read until its answer contains want.
func waitFor(what string, want string, read chromedp.Action[string]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for {
			got, err := read(ctx, tg)
			if err != nil {
				return err
			}
			if strings.Contains(got, want) {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %q in %s (last %q): %w", want, what, got, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// waitText waits until the element's text contains want. It reads
// textContent, so it also sees elements that are empty or hidden for now.
func waitText(s chromedp.CSS, want string) chromedp.Action[chromedp.Void] {
	return waitFor(string(s), want, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q)?.textContent ?? ""`, s)))
}

// jsClick waits for the element and clicks it in one script step, so a list
// that re-renders between finding a node and clicking it cannot make the click
// miss (chromedp's Click holds a node id, which a re-render invalidates).
func jsClick(s chromedp.CSS) chromedp.Action[chromedp.Void] {
	return waitFor("a click on "+string(s), "clicked", chromedp.Evaluate[string](fmt.Sprintf(
		`(() => { const e = document.querySelector(%q); if (!e) return ""; e.click(); return "clicked"; })()`, s)))
}

// uploadFiles sets the files of the file input s, again when a re-render
// replaced the input between chromedp finding it and setting them (the node
// id it holds is then gone, as with a click: jsClick).
func uploadFiles(s chromedp.CSS, files []string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for try := 1; ; try++ {
			_, err := chromedp.SetUploadFiles(s, files)(ctx, tg)
			if err == nil || try == 5 || !strings.Contains(err.Error(), "Could not find node") {
				return err
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// waitValue waits until the input's value contains want.
func waitValue(s chromedp.CSS, want string) chromedp.Action[chromedp.Void] {
	return waitFor("the value of "+string(s), want, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q)?.value ?? ""`, s)))
}

// downloadOf clicks the element and returns the bytes of the file it downloads.
func downloadOf(t *testing.T, ctx context.Context, s chromedp.CSS) []byte {
	t.Helper()
	dir := t.TempDir()
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	enabled := true
	do(t, ctx, "download "+string(s),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior:      browser.SetDownloadBehaviorBehaviorAllowAndName,
				DownloadPath:  dir,
				EventsEnabled: &enabled,
			})
			return err
		}),
		chromedp.Click(s))
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("waiting for the download of %s: %v", s, err)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			b, err := os.ReadFile(filepath.Join(dir, ev.GUID))
			if err != nil {
				t.Fatalf("read download: %v", err)
			}
			return b
		}
	}
	t.Fatalf("no download completed after clicking %s", s)
	return nil
}

// screenshot saves the element matched by s as docs/img/NAME.png when
// TUXLB_SCREENSHOTS=1, so ordinary test runs never rewrite the docs.
func screenshot(t *testing.T, ctx context.Context, name string, s chromedp.CSS) {
	t.Helper()
	if os.Getenv("TUXLB_SCREENSHOTS") != "1" {
		return
	}
	do(t, ctx, "settle", chromedp.Sleep(400*time.Millisecond))
	png := get(t, ctx, "screenshot "+name, chromedp.Screenshot(s))
	path := filepath.Join(repoRoot(t), "docs", "img", name+".png")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
