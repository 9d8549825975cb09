package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// runDirect runs the scenario with core, not through the API, and returns
// the result bytes and the dispatch log.
func runDirect(t *testing.T, scenario string, opt core.RunOptions) ([]byte, string) {
	t.Helper()
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	var log bytes.Buffer
	opt.Dispatch = &log
	res, err := core.Run(sc, opt)
	if err != nil {
		t.Fatalf("core.Run: %v", err)
	}
	return encodeResult(res), log.String()
}

func TestCreateRunReturnsTheEngineResult(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	seed := uint64(9)
	tests := []struct {
		query string
		opt   core.RunOptions
	}{
		{"", core.RunOptions{}},
		{"?policy=jsq&seed=9", core.RunOptions{Policy: "jsq", Seed: &seed}},
	}
	for _, tt := range tests {
		got := h.postRun(tt.query, scenario)
		want, _ := runDirect(t, scenario, tt.opt)
		if !bytes.Equal(got.Result, bytes.TrimRight(want, "\n")) {
			t.Errorf("POST /runs%s: result differs from core.Run:\ngot  %.300s\nwant %.300s", tt.query, got.Result, want)
		}
		rec := h.do(http.MethodGet, "/api/v1/runs/"+got.ID+"/result.json", "", "")
		if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("GET result.json after POST /runs%s: %d, %d bytes; want 200 and core's %d bytes", tt.query, rec.Code, rec.Body.Len(), len(want))
		}
	}
}

func TestGetRun(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	created := h.postRun("?policy=round_robin&seed=4", scenario)
	rec := h.do(http.MethodGet, "/api/v1/runs/"+created.ID, "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status got %d, want 200: %s", rec.Code, rec.Body.String())
	}
	var got struct {
		ID            string          `json:"id"`
		Name          string          `json:"name"`
		CreatedAt     string          `json:"created_at"`
		EngineVersion string          `json:"engine_version"`
		ScenarioID    string          `json:"scenario_id"`
		Options       map[string]any  `json:"options"`
		Scenario      json.RawMessage `json:"scenario"`
		Result        json.RawMessage `json:"result"`
		Headline      result.Headline `json:"headline"`
	}
	decode(t, rec, &got)
	canonical, _ := Canonical([]byte(scenario))
	if got.ID != created.ID || !bytes.Equal(got.Result, created.Result) || !bytes.Equal(got.Scenario, canonical) {
		t.Errorf("got id %q, result or scenario changed; want %q and the posted ones", got.ID, created.ID)
	}
	if got.EngineVersion != core.EngineVersion || got.Name != "simpapp, three servers" || got.ScenarioID != ScenarioID(canonical) {
		t.Errorf("engine_version %q name %q scenario_id %q", got.EngineVersion, got.Name, got.ScenarioID)
	}
	if _, err := time.Parse(time.RFC3339, got.CreatedAt); err != nil {
		t.Errorf("created_at %q: %v", got.CreatedAt, err)
	}
	if fmt.Sprint(got.Options) != "map[policy:round_robin seed:4]" {
		t.Errorf("options got %v, want policy round_robin and seed 4", got.Options)
	}
	var res result.Result
	json.Unmarshal(got.Result, &res)
	if got.Headline.Issued != res.Requests.Issued || got.Headline.WaitP99MS != res.WaitMS.P99 || res.Requests.Issued == 0 {
		t.Errorf("headline %+v does not match the result's requests %+v", got.Headline, res.Requests)
	}
}

func TestListRunsNewestFirst(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	var want []string
	for i := 0; i < 5; i++ {
		want = append([]string{h.postRun(fmt.Sprintf("?seed=%d", i+1), scenario).ID}, want...)
	}
	var got []string
	target := "/api/v1/runs?limit=2"
	for pages := 0; pages < 10; pages++ {
		rec := h.do(http.MethodGet, target, "", "")
		var page struct {
			Runs       []records.RunSummary `json:"runs"`
			NextCursor *string              `json:"next_cursor"`
		}
		decode(t, rec, &page)
		for _, r := range page.Runs {
			got = append(got, r.ID)
			if r.Headline.Issued == 0 || r.EngineVersion != core.EngineVersion || r.Name == "" {
				t.Errorf("summary %+v lacks its headline, engine version or name", r)
			}
		}
		if page.NextCursor == nil {
			break
		}
		target = "/api/v1/runs?limit=2&cursor=" + *page.NextCursor
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDispatchLog(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	created := h.postRun("?dispatch=true", scenario)
	_, want := runDirect(t, scenario, core.RunOptions{})
	if !strings.HasPrefix(want, "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n") {
		t.Fatalf("core's dispatch log starts %.100q, not with the documented header", want)
	}
	path := "/api/v1/runs/" + created.ID + "/dispatch.csv"
	plain := h.do(http.MethodGet, path, "", "")
	if plain.Code != http.StatusOK || plain.Header().Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("status %d type %q, want 200 text/csv", plain.Code, plain.Header().Get("Content-Type"))
	}
	if plain.Body.String() != want {
		t.Errorf("plain dispatch log differs from core's (%d vs %d bytes)", plain.Body.Len(), len(want))
	}
	zipped := h.do(http.MethodGet, path, "", "", "Accept-Encoding", "br, gzip")
	if zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding got %q, want gzip", zipped.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, zr); got != want {
		t.Errorf("gzip dispatch log differs from core's (%d vs %d bytes)", len(got), len(want))
	}
}

func TestDispatchLogNotKept(t *testing.T) {
	h := newHarness(t, nil)
	created := h.postRun("", scenarioJSON(t))
	path := "/api/v1/runs/" + created.ID + "/dispatch.csv"
	p := wantProblem(t, h.do(http.MethodGet, path, "", ""), path, http.StatusNotFound, "dispatch-not-kept")
	if !strings.Contains(p.Detail, "dispatch=true") {
		t.Errorf("detail %q does not say how to keep the log", p.Detail)
	}
}

func TestRerun(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	created := h.postRun("?seed=3", scenario)
	// A run made by an older engine, stored as it would have been.
	old, err := h.db.Run(t.Context(), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	old.ID, old.EngineVersion, old.Result = newRunID(), "0.0.1-old", []byte(`{"old":true}`)
	if err := h.db.CreateRun(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		from                         string
		prevVersion                  string
		engineChanged, resultChanged bool
	}{
		{created.ID, core.EngineVersion, false, false},
		{old.ID, "0.0.1-old", true, true},
	}
	for _, tt := range tests {
		rec := h.do(http.MethodPost, "/api/v1/runs/"+tt.from+"/rerun", "", "")
		if rec.Code != http.StatusCreated {
			t.Fatalf("rerun %s: status %d: %s", tt.from, rec.Code, rec.Body.String())
		}
		var got struct {
			RerunOf               string          `json:"rerun_of"`
			EngineVersion         string          `json:"engine_version"`
			PreviousEngineVersion string          `json:"previous_engine_version"`
			EngineChanged         bool            `json:"engine_changed"`
			ResultChanged         bool            `json:"result_changed"`
			Result                json.RawMessage `json:"result"`
		}
		decode(t, rec, &got)
		if got.RerunOf != tt.from || got.PreviousEngineVersion != tt.prevVersion || got.EngineVersion != core.EngineVersion ||
			got.EngineChanged != tt.engineChanged || got.ResultChanged != tt.resultChanged {
			t.Errorf("rerun of %s: got %+v, want previous %q engine_changed %v result_changed %v",
				tt.from, got, tt.prevVersion, tt.engineChanged, tt.resultChanged)
		}
		if !bytes.Equal(got.Result, created.Result) {
			t.Errorf("rerun of %s: result differs from the original seed=3 run", tt.from)
		}
	}
}

func TestCompare(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	a := h.postRun("", scenario)
	b := h.postRun("?policy=round_robin", scenario)
	rec := h.do(http.MethodGet, "/api/v1/compare?runs="+a.ID+","+b.ID, "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var got comparison
	decode(t, rec, &got)
	var ra, rb result.Result
	json.Unmarshal(a.Result, &ra)
	json.Unmarshal(b.Result, &rb)
	if got.Base != a.ID || len(got.Runs) != 2 || got.Runs[0].ID != a.ID || got.Runs[1].ID != b.ID {
		t.Fatalf("base %q runs %+v: want %q then %q", got.Base, got.Runs, a.ID, b.ID)
	}
	if got.Runs[0].Diff != nil || got.Runs[0].Headline.WaitMeanMS != ra.WaitMS.Mean || got.Runs[1].Headline.Issued != rb.Requests.Issued {
		t.Errorf("headlines %+v: want the runs' own figures and no diff for the base", got.Runs)
	}
	wantAbs := rb.ResponseMS.P99 - ra.ResponseMS.P99
	if d := got.Runs[1].Diff["response_p99_ms"]; math.Abs(d.Abs-wantAbs) > 1e-6 {
		t.Errorf("response_p99_ms diff got %+v, want abs %v", d, wantAbs)
	}
	if len(got.Servers) != len(ra.Servers) {
		t.Fatalf("servers got %d, want %d", len(got.Servers), len(ra.Servers))
	}
	for i, sv := range got.Servers {
		if sv.ID != ra.Servers[i].ID || sv.Requests[0] != ra.Servers[i].Requests || sv.Requests[1] != rb.Servers[i].Requests {
			t.Errorf("server %d: got %s %v, want %s %d %d", i, sv.ID, sv.Requests, ra.Servers[i].ID, ra.Servers[i].Requests, rb.Servers[i].Requests)
		}
	}
}

// A run list carries saturated_machines as GET /runs/{id} does (storage keeps
// it in a column of its own). examples/admin-guide.json saturates a machine.
func TestRunListSaturatedMachines(t *testing.T) {
	h := newHarness(t, nil)
	data, err := os.ReadFile("../examples/admin-guide.json")
	if err != nil {
		t.Fatal(err)
	}
	id := h.postRun("", string(data)).ID
	var one struct {
		Headline result.Headline `json:"headline"`
	}
	decode(t, h.do(http.MethodGet, "/api/v1/runs/"+id, "", ""), &one)
	var list struct {
		Runs []records.RunSummary `json:"runs"`
	}
	decode(t, h.do(http.MethodGet, "/api/v1/runs", "", ""), &list)
	if one.Headline.SaturatedMachines == 0 {
		t.Fatalf("GET /runs/%s: saturated_machines 0, want the example's saturated machine counted", id)
	}
	if len(list.Runs) != 1 || list.Runs[0].Headline != one.Headline {
		t.Errorf("GET /runs headline %+v, want GET /runs/{id}'s %+v", list.Runs, one.Headline)
	}
}

// Serving a large stored dispatch log streams it: halfway through the
// answer, plain or gzip, the live heap has grown by far less than the log
// (40 MiB of CSV, about 9 MiB compressed), and the bytes are the ones
// stored.
func TestDispatchLogStreams(t *testing.T) {
	h := newHarness(t, nil)
	var csv bytes.Buffer
	csv.WriteString("id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n")
	for i := 0; csv.Len() < 40<<20; i++ {
		fmt.Fprintf(&csv, "%d,SVC%d,client,%d,%d,Q%d,%d,%d,%d,%d,\n", i, i%7, i*1000, i%13, i%5, i*1000, i*1000+17, i*1000+912, i*1000+930)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(csv.Bytes())
	zw.Close()
	plainSum, gzSum, plainLen, gzLen := sha256.Sum256(csv.Bytes()), sha256.Sum256(gz.Bytes()), csv.Len(), gz.Len()
	run := &records.StoredRun{ID: newRunID(), ScenarioID: "scn1", Name: "big", Scenario: []byte(`{}`),
		EngineVersion: core.EngineVersion, Result: []byte(`{}`), HasDispatch: true, DispatchGzip: gz.Bytes()}
	if err := h.db.CreateRun(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	run, csv, gz = nil, bytes.Buffer{}, bytes.Buffer{} // only the store keeps the log
	for _, tt := range []struct {
		accept string
		size   int
		sum    [32]byte
	}{{"", plainLen, plainSum}, {"gzip", gzLen, gzSum}} {
		base := liveHeap()
		w := &measuringWriter{header: http.Header{}, hash: sha256.New(), half: tt.size / 2, mid: -1}
		req := httptest.NewRequest(http.MethodGet, "/api/v1/runs/"+h.lastRunID(t)+"/dispatch.csv", nil)
		req.Header.Set("Accept-Encoding", tt.accept)
		h.srv.ServeHTTP(w, req)
		end := liveHeap()
		grew := w.mid - min(base, end)
		t.Logf("Accept-Encoding %q: %d bytes, live heap halfway %+d", tt.accept, w.n, grew)
		if w.status != http.StatusOK || w.n != tt.size || !bytes.Equal(w.hash.Sum(nil), tt.sum[:]) {
			t.Errorf("Accept-Encoding %q: status %d, %d bytes; want 200 and the %d bytes stored, unchanged", tt.accept, w.status, w.n, tt.size)
		}
		if tt.accept == "gzip" && w.header.Get("Content-Length") != strconv.Itoa(tt.size) {
			t.Errorf("gzip: Content-Length got %q, want %d", w.header.Get("Content-Length"), tt.size)
		}
		if bound := int64(4 << 20); grew > bound {
			t.Errorf("Accept-Encoding %q: live heap halfway through the answer grew %d bytes, want at most %d (the log is %d bytes, %d compressed)",
				tt.accept, grew, bound, plainLen, gzLen)
		}
	}
}

// lastRunID is the id of the newest stored run.
func (h *harness) lastRunID(t *testing.T) string {
	list, _, err := h.db.Runs(t.Context(), 1, "")
	if err != nil || len(list) == 0 {
		t.Fatalf("Runs: %v (%d)", err, len(list))
	}
	return list[0].ID
}

// measuringWriter is a ResponseWriter that hashes the body and, once half
// of it (half bytes) is written, records the live heap in mid.
type measuringWriter struct {
	header  http.Header
	status  int
	hash    hash.Hash
	n, half int
	mid     int64
}

func (w *measuringWriter) Header() http.Header { return w.header }
func (w *measuringWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *measuringWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	if w.mid < 0 && w.n >= w.half {
		w.mid = liveHeap()
	}
	return w.hash.Write(p)
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// Compare reads one stored run at a time and keeps what the comparison
// needs: when it reads the last of ten runs whose results carry 500 000
// series values each, the live heap holds far less than the nine before it
// decoded (4 MB of series each: +44 MB when every result was decoded and
// kept), and the answer is sweep.CompareResults over the whole results.
func TestCompareLargeRunsOneAtATime(t *testing.T) {
	var store *heapAtRun
	h := newHarness(t, func(c *Config) {
		store = &heapAtRun{Store: c.Store}
		c.Store = store
	})
	scenario := scenarioJSON(t)
	small := []createdRun{h.postRun("", scenario), h.postRun("?policy=round_robin", scenario)}
	var ids []string
	var full []*result.Result
	for i := range 10 {
		var res result.Result
		if err := json.Unmarshal(small[i%2].Result, &res); err != nil {
			t.Fatal(err)
		}
		for k := range 50 {
			values := make([]float64, 10_000)
			for b := range values {
				values[b] = float64((b*7+k+i)%1000) / 1000
			}
			res.Series.Util = append(res.Series.Util, result.NamedSeries{Name: fmt.Sprintf("S%d", k), Values: values})
		}
		body, err := json.Marshal(&res)
		if err != nil {
			t.Fatal(err)
		}
		run := &records.StoredRun{ID: newRunID(), ScenarioID: "scn1", Name: fmt.Sprintf("big%d", i), Scenario: []byte(`{}`),
			EngineVersion: core.EngineVersion, Result: body}
		if err := h.db.CreateRun(t.Context(), run); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.ID)
		full = append(full, &res)
	}
	want := sweep.CompareResults(ids, full)
	full = nil
	store.base = liveHeap()
	rec := h.do(http.MethodGet, "/api/v1/compare?runs="+strings.Join(ids, ","), "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	// What the test itself held at the start may be gone by the end: the
	// store at rest is the lesser of the two.
	if end := liveHeap(); end < store.base {
		for i := range store.held {
			store.held[i] += store.base - end
		}
	}
	var got comparison
	decode(t, rec, &got)
	for i, v := range want.Variants {
		if gotJSON, wantJSON := mustJSON(t, got.Runs[i].Headline), mustJSON(t, v.Headline); gotJSON != wantJSON {
			t.Errorf("run %d headline got %s, want %s", i, gotJSON, wantJSON)
		}
		if gotJSON, wantJSON := mustJSON(t, got.Runs[i].Diff), mustJSON(t, v.Diff); gotJSON != wantJSON {
			t.Errorf("run %d diff got %s, want %s", i, gotJSON, wantJSON)
		}
	}
	if gotJSON, wantJSON := mustJSON(t, got.Servers), mustJSON(t, want.Servers); gotJSON != wantJSON {
		t.Errorf("servers got %s, want %s", gotJSON, wantJSON)
	}
	t.Logf("live heap when reading each run: %v (bytes over the start)", store.held)
	if len(store.held) != 10 {
		t.Fatalf("runs read %d, want 10", len(store.held))
	}
	if last, bound := store.held[9], int64(4<<20); last > bound {
		t.Errorf("live heap when reading the 10th run grew %d bytes, want at most %d (not the nine runs before it)", last, bound)
	}
}

// heapAtRun is a Store that records the live heap, over base, each time a
// run is read.
type heapAtRun struct {
	Store
	base int64
	held []int64
}

func (s *heapAtRun) Run(ctx context.Context, id string) (*records.StoredRun, error) {
	if s.base != 0 {
		s.held = append(s.held, liveHeap()-s.base)
	}
	return s.Store.Run(ctx, id)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ?indent=false answers the result compact: json.Compact of the indented
// bytes `tuxlb run` prints, a third of them for this scenario; the run is
// stored the same either way (GET shows it indented), and a value other
// than a boolean is a 400 naming the parameter.
func TestPostRunIndentFalse(t *testing.T) {
	h := newHarness(t, nil)
	sc := scenarioJSON(t)
	indented := h.postRun("", sc)
	compact := h.postRun("?indent=false", sc)
	var want bytes.Buffer
	if err := json.Compact(&want, indented.Result); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(compact.Result, want.Bytes()) || len(compact.Result)*2 > len(indented.Result) {
		t.Errorf("?indent=false: result of %d bytes, want json.Compact of the indented %d bytes (%d)", len(compact.Result), len(indented.Result), want.Len())
	}
	for _, id := range []string{indented.ID, compact.ID} {
		got := h.do("GET", "/api/v1/runs/"+id+"/result.json", "", "")
		if !bytes.Equal(bytes.TrimRight(got.Body.Bytes(), "\n"), indented.Result) {
			t.Errorf("run %s: result.json differs from the indented result of POST", id)
		}
	}
	wantProblem(t, h.do("POST", "/api/v1/runs?indent=no", "application/json", sc), "/api/v1/runs", 400, "malformed-query")
}
