package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// decodeError reads the {"error": {...}} answer the bridge gives JavaScript.
func decodeError(t *testing.T, answer string) diag.Error {
	t.Helper()
	var v struct {
		Error *diag.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		t.Fatalf("answer %q is not JSON: %v", answer, err)
	}
	if v.Error == nil {
		t.Fatalf("answer %q has no error", answer)
	}
	return *v.Error
}

func TestErrorJSON(t *testing.T) {
	d := ubb.Diagnostic{File: "UBBCONFIG", Line: 3, Col: 7, Severity: "error", Message: `unexpected "Y"`}
	tests := []struct {
		name      string
		err       error
		wantCode  string
		wantMsg   string
		wantDiags int
	}{
		{"core error with diagnostics", diag.ConfigError(d), diag.EINVALID, "UBBCONFIG:3:7: unexpected \"Y\"", 1},
		{"wrapped core error", fmt.Errorf("run: %w", diag.Errorf(diag.ECANCELED, "stopped")), diag.ECANCELED, "stopped", 0},
		{"plain error", fmt.Errorf("boom"), diag.EINTERNAL, "boom", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeError(t, errorJSON(tt.err))
			if got.Code != tt.wantCode || got.Message != tt.wantMsg || len(got.Diagnostics) != tt.wantDiags {
				t.Errorf("got {%s, %q, %d diagnostics}, want {%s, %q, %d}", got.Code, got.Message, len(got.Diagnostics), tt.wantCode, tt.wantMsg, tt.wantDiags)
			}
		})
	}
	got := decodeError(t, errorJSON(diag.ConfigError(d)))
	if got.Diagnostics[0] != d {
		t.Errorf("diagnostic: got %+v, want %+v", got.Diagnostics[0], d)
	}
}

func TestRunOptionsSeed(t *testing.T) {
	tests := []struct {
		seed    string
		want    *uint64
		wantErr bool
	}{
		{"", nil, false},
		{"0", ptr(uint64(0)), false},
		{"18446744073709551615", ptr(uint64(18446744073709551615)), false},
		{"-1", nil, true},
		{"1.5", nil, true},
		{"seven", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			ro, err := options{Seed: tt.seed, Policy: "jsq"}.runOptions()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if diag.ErrorCode(err) != diag.EINVALID {
					t.Errorf("code %q, want %q", diag.ErrorCode(err), diag.EINVALID)
				}
				return
			}
			if ro.Policy != "jsq" {
				t.Errorf("policy %q, want jsq", ro.Policy)
			}
			switch {
			case tt.want == nil && ro.Seed != nil:
				t.Errorf("seed %d, want none", *ro.Seed)
			case tt.want != nil && (ro.Seed == nil || *ro.Seed != *tt.want):
				t.Errorf("seed %v, want %d", ro.Seed, *tt.want)
			}
		})
	}
}

func TestValidateBadAdvertise(t *testing.T) {
	got := decodeError(t, validate("*RESOURCES\n", "", "{not json"))
	if got.Code != diag.EINVALID {
		t.Errorf("code %q, want %q", got.Code, diag.EINVALID)
	}
}

func TestVersion(t *testing.T) {
	var v map[string]string
	if err := json.Unmarshal([]byte(versionString()), &v); err != nil {
		t.Fatal(err)
	}
	if v["engine_version"] != core.EngineVersion {
		t.Errorf("engine_version %q, want %q", v["engine_version"], core.EngineVersion)
	}
}

func ptr[T any](v T) *T { return &v }

// example reads a scenario of the repository's examples/ folder.
func example(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runAnswerOf decodes a successful run answer.
func runAnswerOf(t *testing.T, answer string) runAnswer {
	t.Helper()
	var a runAnswer
	if err := json.Unmarshal([]byte(answer), &a); err != nil || a.Result == "" {
		t.Fatalf("run answer %.300q: not a result (%v)", answer, err)
	}
	return a
}

func TestRunGivesTheCoreBytes(t *testing.T) {
	text := example(t, "shm-ldbal-n.json")
	sc, err := core.ParseScenario([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := string(result.Encode(res))
	got := runAnswerOf(t, run(text, options{Dispatch: true}))
	if got.Result != want {
		t.Errorf("result differs from result.Encode: got %d bytes, want %d", len(got.Result), len(want))
	}
	log := takeDispatch()
	header := "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n"
	if !strings.HasPrefix(log, header) {
		t.Errorf("dispatch log starts %.100q, want the header %q", log, header)
	}
	if rows := strings.Count(log, "\n") - 1; int64(rows) != res.Requests.Issued {
		t.Errorf("dispatch log has %d rows, want %d (one per issued request)", rows, res.Requests.Issued)
	}
	if again := takeDispatch(); again != "" {
		t.Errorf("takeDispatch a second time: %d bytes, want none (the log is handed over once)", len(again))
	}
	// a run without the log leaves none behind, even after one with it
	run(text, options{Dispatch: true})
	runAnswerOf(t, run(text, options{}))
	if left := takeDispatch(); left != "" {
		t.Errorf("after a run without the log, takeDispatch gives %d bytes, want none", len(left))
	}
}

func TestRunProgress(t *testing.T) {
	var sc map[string]any
	if err := json.Unmarshal([]byte(example(t, "shm-ldbal-n.json")), &sc); err != nil {
		t.Fatal(err)
	}
	sc["workload"].(map[string]any)["generate"].(map[string]any)["duration_ms"] = 600_000.0
	text, _ := json.Marshal(sc)
	var calls, last, total int64
	runAnswerOf(t, run(string(text), options{Progress: func(done, tot int64) { calls, last, total = calls+1, done, tot }}))
	if calls == 0 || last <= 0 || total <= 0 {
		t.Errorf("progress: %d calls, last (%d of %d); want calls with positive counts", calls, last, total)
	}
}

func TestRunVariant(t *testing.T) {
	text := example(t, "shm-ldbal-n.json")
	tests := []struct {
		variant  string
		wantLDB  bool
		wantPol  string
		wantCode string
	}{
		{"", false, "tuxedo", ""},
		{"ldbal=Y", true, "tuxedo", ""},
		{"policy=jsq", false, "jsq", ""},
		{"ldbal=maybe", false, "", diag.EINVALID},
		{"nonsense", false, "", diag.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			answer := run(text, options{Variant: tt.variant})
			if tt.wantCode != "" {
				if got := decodeError(t, answer); got.Code != tt.wantCode {
					t.Errorf("code %q, want %q (%s)", got.Code, tt.wantCode, got.Message)
				}
				return
			}
			var r result.Result
			if err := json.Unmarshal([]byte(runAnswerOf(t, answer).Result), &r); err != nil {
				t.Fatal(err)
			}
			if r.LDBAL != tt.wantLDB || r.Policy != tt.wantPol {
				t.Errorf("got LDBAL %v policy %s, want %v %s", r.LDBAL, r.Policy, tt.wantLDB, tt.wantPol)
			}
		})
	}
}

func TestRunBadScenario(t *testing.T) {
	tests := []struct{ name, scenario string }{
		{"not JSON", "{"},
		{"unknown field", `{"ubbconfig": "", "workload": {}, "colour": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodeError(t, run(tt.scenario, options{})); got.Code != diag.EINVALID {
				t.Errorf("code %q, want %q (%s)", got.Code, diag.EINVALID, got.Message)
			}
		})
	}
}

func TestValidateDiagnostics(t *testing.T) {
	ubb := "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\n\"h\" LMID=site1\nX Y\n"
	got := decodeError(t, validate(ubb, "", ""))
	if got.Code != diag.EINVALID || len(got.Diagnostics) == 0 {
		t.Fatalf("got %s with %d diagnostics, want %s with some", got.Code, len(got.Diagnostics), diag.EINVALID)
	}
	if d := got.Diagnostics[0]; d.File != "ubbconfig" || d.Line != 6 {
		t.Errorf("first diagnostic at %s:%d, want ubbconfig:6, as the server and the CLI name a text without a file name (%s)", d.File, d.Line, d.Message)
	}
}

// TestExplainID: the bridge explains a request by its id as the dispatch
// log shows it (tuxlb.explain(scenario, "shoppers:2:0.1", 1, options)).
func TestExplainID(t *testing.T) {
	var a struct {
		Explanations []result.Explanation `json:"explanations"`
	}
	answer := explainID(example(t, "self-call-deadlock.json"), "shoppers:2:0.1", options{})
	if err := json.Unmarshal([]byte(answer), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Explanations) != 1 || a.Explanations[0].ID != "shoppers:2:0.1" || a.Explanations[0].Service != "PRICE" {
		t.Errorf("explained %.300s: want the nested PRICE call shoppers:2:0.1", answer)
	}
	if answer := explainID(example(t, "self-call-deadlock.json"), "nosuch:1:1", options{}); !strings.Contains(answer, `no request has the id`) {
		t.Errorf("an unknown id: %.300s", answer)
	}
}

func TestExplainRange(t *testing.T) {
	var a struct {
		Explanations []result.Explanation `json:"explanations"`
	}
	answer := explain(example(t, "shm-ldbal-n.json"), 5, 3, options{})
	if err := json.Unmarshal([]byte(answer), &a); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, e := range a.Explanations {
		seqs = append(seqs, e.Seq)
	}
	if fmt.Sprint(seqs) != "[5 6 7]" {
		t.Errorf("explained requests %v, want [5 6 7]", seqs)
	}
}

// The bridge compiles a scenario text once: a run and the explanations that
// follow it share the plan, a run again on the kept plan gives the same
// bytes, and another seed or text compiles anew.
func TestPlanKeptByText(t *testing.T) {
	text := example(t, "shm-ldbal-n.json")
	first := runAnswerOf(t, run(text, options{}))
	kept := lastPlan.plan
	if kept == nil {
		t.Fatal("no plan kept after a run")
	}
	if ans := explain(text, 1, 2, options{}); !strings.Contains(ans, `"explanations"`) || lastPlan.plan != kept {
		t.Errorf("explain after the run: compiled anew or failed: %.200s", ans)
	}
	if again := runAnswerOf(t, run(text, options{})); again.Result != first.Result {
		t.Errorf("a run on the kept plan gives other bytes (%d vs %d)", len(again.Result), len(first.Result))
	}
	runAnswerOf(t, run(text, options{Seed: "7"}))
	if lastPlan.plan == kept {
		t.Error("another seed ran on the kept plan")
	}
	other := strings.Replace(text, `"seed"`, `"bin_ms": 500, "seed"`, 1)
	if other == text {
		t.Fatal("the example has no seed to put a field before")
	}
	runAnswerOf(t, run(other, options{}))
	if lastPlan.key == "" || strings.HasSuffix(lastPlan.key, text) {
		t.Error("another text ran on the kept plan")
	}
}

// The bridge's series option reaches the run: every line of an 80-server
// scenario's series with AllSeries, the summary without.
func TestRunAllSeries(t *testing.T) {
	sc := strings.Replace(example(t, "shm-ldbal-y.json"), "MIN=4 MAX=4", "MIN=80 MAX=80", 1)
	for _, all := range []bool{false, true} {
		var res struct {
			Series struct {
				Util       []json.RawMessage `json:"utilization"`
				Summarised *json.RawMessage  `json:"summarised"`
			} `json:"series"`
		}
		ans := runAnswerOf(t, run(sc, options{AllSeries: all}))
		if err := json.Unmarshal([]byte(ans.Result), &res); err != nil {
			t.Fatal(err)
		}
		if (res.Series.Summarised == nil) != all || (len(res.Series.Util) > 65) != all {
			t.Errorf("AllSeries %v: %d utilization lines, summarised %v", all, len(res.Series.Util), res.Series.Summarised != nil)
		}
	}
}
