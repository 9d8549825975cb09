package tests

// Applications in the playground: the call graph drawn from services.*.calls,
// the clients editor, the client sets' figures as `tuxlb run` gives them,
// explain mode's links between a nested request and its caller, the flow
// view's nested requests, and a lost machine marked on the time charts.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// cliResult runs `tuxlb run` on a scenario file and decodes the parts of the
// result the application views show, numbers kept as the result writes them.
type cliResult struct {
	Requests map[string]json.RawMessage `json:"requests"`
	Servers  []struct {
		ID     string       `json:"id"`
		HeldMS *json.Number `json:"held_ms"`
	} `json:"servers"`
	Services []struct {
		Name        string       `json:"name"`
		CallsIssued *json.Number `json:"calls_issued"`
	} `json:"services"`
	Clients []map[string]json.RawMessage `json:"clients"`
}

func decodeResult(t *testing.T, b []byte) cliResult {
	t.Helper()
	var r cliResult
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&r); err != nil {
		t.Fatalf("read the result: %v", err)
	}
	return r
}

// dispatchRows runs `tuxlb run --dispatch` on a scenario file and returns the log's rows (the header first).
func dispatchRows(t *testing.T, path string) [][]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "dispatch.csv")
	cliRun(t, "--dispatch", out, path)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// clientCells reads the client table: set name -> field -> the exact value its cell carries.
const clientCellsJS = `JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-testid="client-table"] tbody tr')].map((tr) =>
	[tr.dataset.client, Object.fromEntries([...tr.querySelectorAll("td[data-field]")].map((td) => [td.dataset.field, td.dataset.value]))])))`

func TestPlaygroundApplications(t *testing.T) {
	srv := playgroundServer(t)
	bankapp := filepath.Join(repoRoot(t), "examples", "bankapp-transfer.json")

	t.Run("bankapp: the call graph, the tellers, and their figures as tuxlb run gives them", func(t *testing.T) {
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "bankapp-transfer")
		do(t, ctx, "see the call graph in the Config tab",
			chromedp.WaitVisible(sel("callgraph")),
			waitText(sel("callgraph-edges"), "TRANSFER → WITHDRAWAL"),
			waitText(sel("callgraph-edges"), "TRANSFER → DEPOSIT"),
		)
		edges := get(t, ctx, "read the calls", chromedp.Evaluate[string](`JSON.stringify([...document.querySelectorAll('[data-testid="callgraph-edges"] li')].map((li) => li.textContent))`))
		var calls []string
		if err := json.Unmarshal([]byte(edges), &calls); err != nil {
			t.Fatal(err)
		}
		want := []string{"TRANSFER → WITHDRAWAL: step 1, tpcall", "TRANSFER → DEPOSIT: step 2, tpcall, route uniform 10000..79999"}
		if strings.Join(calls, "\n") != strings.Join(want, "\n") {
			t.Errorf("the call list reads\n%s\nwant\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
		}
		// The picture has a box per service and one for the tellers, each call's arrow labelled with its mode.
		boxes := get(t, ctx, "read the boxes", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="callgraph"] g.cg-node')].map((g) => g.dataset.node).join(",")`))
		if boxes != "clients:0,TRANSFER,INQUIRY,WITHDRAWAL,DEPOSIT" {
			t.Errorf("the call graph's boxes are %q", boxes)
		}
		labels := get(t, ctx, "read the arrows' labels", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="callgraph"] g.cg-label text')].map((t) => t.textContent).join(",")`))
		if labels != "33.3%,66.7%,1. tpcall,2. tpcall" {
			t.Errorf("the call graph's arrows say %q", labels)
		}
		screenshot(t, ctx, "callgraph", chromedp.CSS(`[data-testid="callgraph-box"]`))

		do(t, ctx, "see the tellers in the Workload tab",
			chromedp.Click(sel("tab-workload")),
			chromedp.WaitVisible(sel("clients-form")),
			waitValue(sel("client-1-name"), "tellers"),
			waitValue(sel("client-1-count"), "120"),
			waitValue(sel("client-1-origin"), "SITE1"),
			waitValue(sel("client-1-mode"), "services"),
			waitValue(sel("client-1-service-1"), "TRANSFER"),
			waitValue(sel("client-1-service-2"), "INQUIRY"),
		)

		do(t, ctx, "run", chromedp.Click(sel("run")), chromedp.WaitVisible(sel("client-table")))
		res := decodeResult(t, cliRun(t, bankapp))
		if len(res.Clients) != 1 {
			t.Fatalf("tuxlb run gives %d client sets, want 1", len(res.Clients))
		}
		var cells map[string]map[string]string
		if err := json.Unmarshal([]byte(get(t, ctx, "read the client table", chromedp.Evaluate[string](clientCellsJS))), &cells); err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Clients {
			var name string
			_ = json.Unmarshal(c["name"], &name)
			row, ok := cells[name]
			if !ok {
				t.Errorf("the client table has no row %q (rows %v)", name, cells)
				continue
			}
			for _, key := range []string{"count", "requests", "completed", "failed", "timed_out", "retried", "throughput_per_s", "response_ms.mean", "response_ms.p95", "response_ms.p99", "cycle_ms"} {
				raw := c[key]
				if sub, found := strings.CutPrefix(key, "response_ms."); found {
					var rm map[string]json.RawMessage
					_ = json.Unmarshal(c["response_ms"], &rm)
					raw = rm[sub]
				}
				want := string(raw)
				got := row[key]
				if key == "failed" {
					var a, b map[string]int
					_ = json.Unmarshal(raw, &a)
					if err := json.Unmarshal([]byte(got), &b); err != nil || fmt.Sprint(a) != fmt.Sprint(b) {
						t.Errorf("%s.failed: the page has %s, tuxlb run %s", name, got, want)
					}
					continue
				}
				if got != want {
					t.Errorf("%s.%s: the page has %s, tuxlb run %s", name, key, got, want)
				}
			}
		}
		// held_ms in the servers table, calls_issued in the services table, nested requests in the summary.
		held := get(t, ctx, "read the held times", chromedp.Evaluate[string](`JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-testid="server-table"] tbody tr')].map((tr) => [tr.querySelector("th").textContent, tr.querySelector("td[data-held]")?.dataset.held ?? ""])))`))
		var heldOf map[string]string
		_ = json.Unmarshal([]byte(held), &heldOf)
		for _, s := range res.Servers {
			if s.HeldMS == nil {
				t.Fatalf("tuxlb run gives server %s no held_ms", s.ID)
			}
			if g, w := heldOf[s.ID], s.HeldMS.String(); g != w {
				t.Errorf("server %s: held %q in the page, %s from tuxlb run", s.ID, g, w)
			}
		}
		issued := get(t, ctx, "read the calls issued", chromedp.Evaluate[string](`JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-testid="service-table"] tbody tr')].map((tr) => [tr.dataset.service, tr.querySelector('td[data-field="calls_issued"]')?.dataset.value ?? ""])))`))
		var issuedOf map[string]string
		_ = json.Unmarshal([]byte(issued), &issuedOf)
		for _, s := range res.Services {
			if s.CallsIssued == nil {
				t.Fatalf("tuxlb run gives service %s no calls_issued", s.Name)
			}
			if g, w := issuedOf[s.Name], s.CallsIssued.String(); g != w {
				t.Errorf("service %s: %q calls issued in the page, %s from tuxlb run", s.Name, g, w)
			}
		}
		nested := get(t, ctx, "read the nested figure", chromedp.Text(chromedp.CSS(`[data-testid="summary"] [data-figure="requests.nested"] dd`)))
		if w := string(res.Requests["nested"]); nested != w {
			t.Errorf("the summary says %s nested requests, tuxlb run %s", nested, w)
		}
		// the tellers beside their figures
		do(t, ctx, "back to the clients", chromedp.Click(sel("tab-workload")))
		viewport(t, ctx, "applications", `document.querySelector('[data-testid="clients-form"]').scrollIntoView({block: "start"})`)
	})

	t.Run("explain links a nested request to its parent and the parent to its children", func(t *testing.T) {
		// The first nested request of the run, its caller and the caller's other children, by row (= request number).
		rows := dispatchRows(t, bankapp)
		pc := len(rows[0]) - 1
		if rows[0][pc] != "parent" {
			t.Fatalf("the dispatch log's last column is %q, want parent", rows[0][pc])
		}
		seqOf := map[string]int{}
		child, parent := 0, 0
		var siblings []int
		for i, r := range rows[1:] {
			seqOf[r[0]] = i + 1
			if r[pc] != "" && child == 0 {
				child, parent = i+1, seqOf[r[pc]]
			}
			if parent != 0 && r[pc] == rows[parent][0] {
				siblings = append(siblings, i+1)
			}
		}
		if child == 0 || parent == 0 || len(siblings) < 2 {
			t.Fatalf("no nested request with a sibling in the log (child %d, parent %d, siblings %v)", child, parent, siblings)
		}
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "bankapp-transfer")
		do(t, ctx, "explain the nested request",
			chromedp.Click(sel("tab-explain")),
			waitText(sel("explain-view"), "Request #1"),
			chromedp.SetValue(sel("explain-seq"), strconv.Itoa(child)),
			chromedp.Click(sel("explain-go")),
			waitText(sel("explain-view"), fmt.Sprintf("Request #%d", child)),
			waitText(sel("explain-parent"), "A nested request (tpcall) of request"),
			waitText(sel("explain-parent"), "issued by "+rows[parent][4]),
			waitText(sel("explain-parent-link"), fmt.Sprintf("#%d %s", parent, rows[parent][0])),
		)
		screenshot(t, ctx, "explain-nested", chromedp.CSS("section.outputs"))
		do(t, ctx, "follow the link to the parent",
			jsClick(sel("explain-parent-link")),
			waitText(sel("explain-view"), fmt.Sprintf("Request #%d", parent)),
			waitText(sel("explain-children"), fmt.Sprintf("It issued %d nested requests", len(siblings))),
		)
		links := get(t, ctx, "read the children's links", chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="explain-child"]')].map((b) => b.dataset.seq).join(",")`))
		var want []string
		for _, s := range siblings {
			want = append(want, strconv.Itoa(s))
		}
		if links != strings.Join(want, ",") {
			t.Errorf("the parent #%d links its children %q, want %q", parent, links, strings.Join(want, ","))
		}
		last := siblings[len(siblings)-1]
		do(t, ctx, "follow a child's link",
			jsClick(chromedp.CSS(fmt.Sprintf(`[data-testid="explain-child"][data-seq="%d"]`, last))),
			waitText(sel("explain-view"), fmt.Sprintf("Request #%d", last)),
			waitText(sel("explain-parent-link"), fmt.Sprintf("#%d ", parent)),
		)
	})

	t.Run("a TPESVCFAIL says which nested request failed; the call graph warns of the self-call", func(t *testing.T) {
		path := filepath.Join(repoRoot(t), "examples", "self-call-deadlock.json")
		failed := 0
		for i, r := range dispatchRows(t, path)[1:] {
			if r[10] == "TPESVCFAIL" {
				failed = i + 1
				break
			}
		}
		if failed == 0 {
			t.Fatal("no TPESVCFAIL in the self-call deadlock's log")
		}
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "self-call-deadlock")
		do(t, ctx, "see the warning", waitText(sel("callgraph-edges"), "ORDER's servers also serve PRICE from queue shopq"))
		do(t, ctx, "run and explain the failed request",
			chromedp.Click(sel("run")),
			chromedp.WaitVisible(sel("client-table")),
			chromedp.Click(sel("tab-explain")),
			waitText(sel("explain-view"), "Request #1"),
			chromedp.SetValue(sel("explain-seq"), strconv.Itoa(failed)),
			chromedp.Click(sel("explain-go")),
			waitText(sel("explain-view"), fmt.Sprintf("Request #%d", failed)),
			waitText(sel("explain-failure"), "TPETIME"),
			waitText(sel("explain-client"), "a client request: client"),
			waitText(sel("explain-children"), "It issued 1 nested request"),
		)
	})

	t.Run("the clients editor edits the JSON, and the run is tuxlb run's", func(t *testing.T) {
		ctx := newBrowser(t)
		loadExample(t, ctx, srv.URL, "retry-storm")
		setValue := func(s chromedp.CSS, v string) chromedp.Action[chromedp.Void] {
			return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event("input")); e.dispatchEvent(new Event("change")); })()`, s, v))
		}
		do(t, ctx, "edit the tellers and add a batch client set with a script",
			chromedp.Click(sel("tab-workload")),
			waitValue(sel("client-1-name"), "tellers"),
			setValue(sel("client-1-count"), "200"),
			setValue(sel("client-1-retry-max"), "1"),
			jsClick(sel("client-1-retry-TPESVCERR")),
			jsClick(sel("client-add")),
			waitValue(sel("client-2-name"), "clients"),
			setValue(sel("client-2-name"), "batch"),
			setValue(sel("client-2-mode"), "script"),
			setValue(sel("client-2-script"), "WITHDRAWAL, INQUIRY, INQUIRY"),
			jsClick(sel("client-2-think")+" button"), // none: a batch client does not think
		)
		var sc struct {
			Workload struct {
				Generate struct {
					Clients []map[string]any `json:"clients"`
				} `json:"generate"`
			} `json:"workload"`
		}
		text := pageScenario(t, ctx)
		if err := json.Unmarshal([]byte(text), &sc); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(sc.Workload.Generate.Clients)
		want := `[{"count":200,"name":"tellers","retry":{"backoff":{"dist":"const","ms":100},"max":1,"on":["TPETIME","TPESVCERR"]},"services":[{"service":"INQUIRY","weight":4},{"service":"WITHDRAWAL"}],"think":{"dist":"exp","mean_ms":1000}},` +
			`{"count":10,"name":"batch","script":["WITHDRAWAL","INQUIRY","INQUIRY"]}]`
		if string(got) != want {
			t.Errorf("the clients after editing:\n%s\nwant\n%s", got, want)
		}
		do(t, ctx, "run", chromedp.Click(sel("run")), chromedp.WaitVisible(sel("client-table")), waitText(sel("client-table"), "batch"))
		if g, w := downloadOf(t, ctx, sel("download-result")), cliRunText(t, text); !bytes.Equal(g, w) {
			t.Errorf("the edited scenario's result differs from tuxlb run's (%d bytes, want %d)", len(g), len(w))
		}
		do(t, ctx, "remove the batch set",
			chromedp.Click(sel("tab-workload")),
			jsClick(sel("client-2-remove")),
			chromedp.Click(sel("tab-json")),
		)
		if text := pageScenario(t, ctx); strings.Contains(text, `"batch"`) {
			t.Errorf("the batch set is still in the scenario after Remove")
		}
	})

	t.Run("the flow view draws nested requests from their caller", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "bankapp-transfer")
		do(t, ctx, "open the Flow tab",
			chromedp.Click(sel("tab-flow")),
			waitText(sel("flow-status"), "nested"),
			waitText(sel("flow-status"), "from clients"),
			chromedp.WaitVisible(sel("flow-nested")),
		)
		// Scrub through the window until a nested request is drawn, tied to its caller.
		found := ""
		for _, at := range []int{100, 250, 400, 550, 700, 850} {
			found = get(t, ctx, "scrub", chromedp.Evaluate[string](fmt.Sprintf(`(() => {
				const s = document.querySelector('[data-testid="flow-scrub"]');
				s.value = "%d";
				s.dispatchEvent(new Event("input"));
				const dots = JSON.parse(document.querySelector('[data-testid="flow-canvas"]').dataset.dots ?? "[]");
				const d = dots.find((d) => d.parent);
				return d ? JSON.stringify(d) : "";
			})()`, at)))
			if found != "" {
				break
			}
		}
		if found == "" {
			t.Fatal("no nested request drawn with its parent anywhere in the window")
		}
		var d struct{ Seq, Parent int }
		_ = json.Unmarshal([]byte(found), &d)
		rows := dispatchRows(t, bankapp)
		if d.Seq >= len(rows) || d.Parent >= len(rows) || rows[d.Seq][len(rows[0])-1] != rows[d.Parent][0] {
			t.Errorf("request #%d is drawn tied to #%d, which is not its parent in the log", d.Seq, d.Parent)
		}
	})

	t.Run("on a phone the call graph, the clients editor and the client table fit or scroll", func(t *testing.T) {
		ctx := newBrowser(t)
		do(t, ctx, "be a phone", phoneSize())
		loadAndRun(t, ctx, srv.URL+"/", "bankapp-transfer")
		for _, tab := range []string{"config", "workload"} {
			do(t, ctx, "show "+tab, chromedp.Click(sel("tab-"+tab)), chromedp.Sleep(300*time.Millisecond))
			if w := get(t, ctx, "page width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); w > 390 {
				t.Errorf("with the %s tab, the page is %.0f px wide on a 390 px screen", tab, w)
			}
		}
		// the call graph keeps a readable size and scrolls in its box
		sizes := get(t, ctx, "measure the call graph", chromedp.Evaluate[[]float64](`(() => {
			document.querySelector('[data-testid="tab-config"]').click();
			const svg = document.querySelector('[data-testid="callgraph"]');
			return [svg.getBoundingClientRect().width, svg.viewBox.baseVal.width, svg.parentElement.clientWidth];
		})()`))
		if sizes[0] < 0.69*sizes[1] || sizes[2] > 390 {
			t.Errorf("the call graph is drawn %.0f px wide of its %.0f, in a box %.0f px wide: want at least 70%% of life size, scrolling in a box that fits", sizes[0], sizes[1], sizes[2])
		}
		hint := get(t, ctx, "find the client table's hint", chromedp.Evaluate[bool](`(() => {
			const t = document.querySelector('[data-testid="client-table"]');
			return t.scrollWidth <= t.clientWidth + 1 || !!t.previousElementSibling?.matches('[data-testid="scroll-hint"]');
		})()`))
		if !hint {
			t.Errorf("the client table is wider than the phone's screen and no scroll hint says so")
		}
	})

	t.Run("a lost machine is marked on the time charts", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "site2-lost-tellers")
		do(t, ctx, "see the machine changes",
			waitText(sel("machine-changes"), "SITE2 lost at 45 s, SITE2 noticed at 60 s, SITE2 restored at 105 s"),
		)
		for _, c := range []string{"chart-queue", "chart-util", "chart-failures"} {
			if marks := get(t, ctx, "read "+c+"'s marks", chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('[data-testid=%q]').dataset.marks ?? ""`, c))); marks != "45,60,105" {
				t.Errorf("%s marks %q, want the machine changes 45,60,105 (s)", c, marks)
			}
		}
	})

	t.Run("/Q: the queues' table and depth chart give what tuxlb run gives", func(t *testing.T) {
		ctx := newBrowser(t)
		loadAndRun(t, ctx, srv.URL+"/", "queue-forwarding")
		do(t, ctx, "see the /Q table, the depth chart and the forwards' commit times", chromedp.WaitVisible(sel("qspace-table")), chromedp.WaitVisible(sel("chart-qdepth")),
			chromedp.WaitVisible(sel("chart-commit")))
		var res struct {
			QSpaces []struct {
				Name   string
				Queues []map[string]json.RawMessage
			}
		}
		d := json.NewDecoder(bytes.NewReader(cliRun(t, filepath.Join(repoRoot(t), "examples", "queue-forwarding.json"))))
		d.UseNumber()
		if err := d.Decode(&res); err != nil || len(res.QSpaces) != 1 {
			t.Fatalf("tuxlb run: %v, %d queue spaces", err, len(res.QSpaces))
		}
		var cells map[string]map[string]string
		js := `JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-testid="qspace-table"] tbody tr')].map((tr) =>
			[tr.dataset.queue, Object.fromEntries([...tr.querySelectorAll("td[data-field]")].map((td) => [td.dataset.field, td.dataset.value]))])))`
		if err := json.Unmarshal([]byte(get(t, ctx, "read the /Q table", chromedp.Evaluate[string](js))), &cells); err != nil {
			t.Fatal(err)
		}
		for _, q := range res.QSpaces[0].Queues {
			var name string
			_ = json.Unmarshal(q["name"], &name)
			row := cells["SHIPQS:"+name]
			if row == nil {
				t.Fatalf("the /Q table has no row SHIPQS:%s (rows %v)", name, cells)
			}
			for _, key := range []string{"enqueued", "forwarded", "retried", "to_error_queue", "dropped", "depth.max", "depth.mean", "time_in_queue_ms.mean", "time_in_queue_ms.max"} {
				raw := q[key]
				if outer, inner, ok := strings.Cut(key, "."); ok {
					var sub map[string]json.RawMessage
					_ = json.Unmarshal(q[outer], &sub)
					raw = sub[inner]
				}
				if got, want := row[key], string(raw); got != want {
					t.Errorf("SHIPQS:%s %s: the page has %s, tuxlb run %s", name, key, got, want)
				}
			}
		}
		if cells["SHIPQS:SHIP"]["retried"] == "0" || cells["SHIPQS:SHIP"]["to_error_queue"] == "0" {
			t.Errorf("the example should retry and move some messages to the error queue: %v", cells["SHIPQS:SHIP"])
		}
		screenshot(t, ctx, "qspace-table", chromedp.CSS(`[data-testid="qspace-table"]`))
		screenshot(t, ctx, "qdepth-chart", chromedp.CSS(`[data-testid="chart-qdepth"]`))
	})
}
