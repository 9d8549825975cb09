package core_test

// The fidelity suite: scenarios whose dispatch logs were worked out by hand
// from the written rules alone (testdata/spec/*/NOTES.md shows each derivation). The
// engine must reproduce every expected log line for line. Cases whose policy
// draws random numbers (random, p2c) cannot be worked out by hand, so they
// carry properties.json instead and are checked for properties every correct
// run must have. See docs/fidelity.md.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

const specDir = "../testdata/spec"

func TestSpecCases(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join(specDir, "[0-9]*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under %s (err %v)", specDir, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { runSpecCase(t, dir) })
	}
}

// runSpecCase runs one case folder and checks every expectation it holds.
func runSpecCase(t *testing.T, dir string) {
	if want, ok := readOptional(t, filepath.Join(dir, "error.txt")); ok {
		checkSpecError(t, dir, string(want))
		return
	}
	sc := readScenario(t, dir)
	var buf bytes.Buffer
	res, err := core.Run(sc, core.RunOptions{Dispatch: &buf})
	if err != nil {
		t.Fatalf("core.Run: %v", err)
	}
	checked := false
	if want, ok := readOptional(t, filepath.Join(dir, "dispatch.csv")); ok {
		checked = true
		if msg := diffLines(buf.String(), string(want)); msg != "" {
			t.Errorf("dispatch.csv: %s", msg)
		}
	}
	if want, ok := readOptional(t, filepath.Join(dir, "expect.json")); ok {
		checked = true
		checkExpect(t, want, res)
	}
	if props, ok := readOptional(t, filepath.Join(dir, "properties.json")); ok {
		checked = true
		checkProperties(t, sc, props, buf.String())
	}
	if !checked {
		t.Fatalf("%s has no dispatch.csv, expect.json or properties.json: it checks nothing", dir)
	}
}

// checkSpecError requires the scenario to be refused as invalid input, with
// a message holding each line of error.txt (e.g. the name it must cite).
func checkSpecError(t *testing.T, dir, want string) {
	data, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
	if err != nil {
		t.Fatalf("read scenario: %v", err)
	}
	sc, err := core.ParseScenario(data)
	if err == nil {
		_, err = core.Run(sc, core.RunOptions{})
	}
	if err == nil {
		t.Fatalf("got no error, want an invalid-input error mentioning %q", splitLines(want))
	}
	if code := diag.ErrorCode(err); code != diag.EINVALID {
		t.Errorf("error code: got %q, want %q (%v)", code, diag.EINVALID, err)
	}
	for _, line := range splitLines(want) {
		if !strings.Contains(err.Error(), line) {
			t.Errorf("error %q does not mention %q", err, line)
		}
	}
}

func readScenario(t *testing.T, dir string) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
	if err != nil {
		t.Fatalf("read scenario: %v", err)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatalf("core.ParseScenario: %v", err)
	}
	return sc
}

func readOptional(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return data, true
}

// diffLines compares two CSV texts line by line (CRLF and a final newline
// do not matter) and describes the first difference, or returns "".
func diffLines(got, want string) string {
	g, w := splitLines(got), splitLines(want)
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string = "<missing>", "<missing>"
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %s\n want %s\n(got %d lines, want %d)", i+1, gl, wl, len(g), len(w))
		}
	}
	return ""
}

func splitLines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// checkExpect matches the expected JSON against the result's JSON: every
// expected key must be present and equal; extra result keys are ignored.
func checkExpect(t *testing.T, want []byte, res *result.Result) {
	t.Helper()
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("expect.json: %v", err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal result: %v", err)
	}
	var g any
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("unmarshal result: %v", err)
	}
	for _, msg := range matchJSON("result", w, g) {
		t.Errorf("expect.json: %s", msg)
	}
}

// matchJSON returns one message per mismatch between want and got. An
// expected object matched against an array picks the array element whose
// "id", "name" or "lmid" equals the key, so servers, queues, services and
// machines are matched by name rather than position.
func matchJSON(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		return matchObject(path, w, got)
	case []any:
		ga, ok := got.([]any)
		if !ok || len(ga) != len(w) {
			return []string{fmt.Sprintf("%s: got %s, want %s", path, compact(got), compact(want))}
		}
		var msgs []string
		for i := range w {
			msgs = append(msgs, matchJSON(fmt.Sprintf("%s[%d]", path, i), w[i], ga[i])...)
		}
		return msgs
	case float64:
		gf, ok := got.(float64)
		if !ok || math.Abs(gf-w) > 1e-9*math.Max(1, math.Abs(w)) {
			return []string{fmt.Sprintf("%s: got %s, want %v", path, compact(got), w)}
		}
		return nil
	default:
		if compact(got) != compact(want) {
			return []string{fmt.Sprintf("%s: got %s, want %s", path, compact(got), compact(want))}
		}
		return nil
	}
}

func matchObject(path string, w map[string]any, got any) []string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var msgs []string
	for _, k := range keys {
		sub := path + "." + k
		var gv any
		var found bool
		switch g := got.(type) {
		case map[string]any:
			gv, found = g[k]
		case []any:
			gv, found = findNamed(g, k)
		default:
			return []string{fmt.Sprintf("%s: got %s, want an object", path, compact(got))}
		}
		if !found {
			msgs = append(msgs, fmt.Sprintf("%s: missing from the result", sub))
			continue
		}
		msgs = append(msgs, matchJSON(sub, w[k], gv)...)
	}
	return msgs
}

func findNamed(arr []any, name string) (any, bool) {
	for _, el := range arr {
		m, ok := el.(map[string]any)
		if !ok {
			continue
		}
		for _, key := range []string{"id", "name", "lmid"} {
			if s, ok := m[key].(string); ok && s == name {
				return m, true
			}
		}
	}
	return nil, false
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// dispatchRow is one parsed line of a dispatch log.
type dispatchRow struct {
	line                               int
	id, service, origin, server, queue string
	reason                             string
	issue, enqueue, start, end, reply  int64
}

func parseDispatch(t *testing.T, text string) []dispatchRow {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("dispatch log: %v", err)
	}
	const header = "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason"
	if len(recs) == 0 || strings.Join(recs[0], ",") != header {
		t.Fatalf("dispatch log header: got %q, want %q", firstLine(text), header)
	}
	rows := make([]dispatchRow, 0, len(recs)-1)
	for i, r := range recs[1:] {
		row := dispatchRow{line: i + 2, id: r[0], service: r[1], origin: r[2], server: r[4], queue: r[5], reason: r[10]}
		for j, dst := range []*int64{&row.issue, &row.enqueue, &row.start, &row.end, &row.reply} {
			col := []int{3, 6, 7, 8, 9}[j]
			v, err := strconv.ParseInt(r[col], 10, 64)
			if err != nil {
				t.Fatalf("dispatch log line %d column %d: %q is not a time in us", row.line, col+1, r[col])
			}
			*dst = v
		}
		rows = append(rows, row)
	}
	return rows
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// specProperties is a properties.json: what a run of a random policy must
// satisfy, given by hand from the case's UBBCONFIG.
type specProperties struct {
	Requests   int                 `json:"requests"`   // rows expected in the log
	Queues     map[string][]string `json:"queues"`     // queue -> its instances
	Candidates map[string][]string `json:"candidates"` // service -> queues advertising it
	// EveryCandidateUsed: each candidate queue of each service is chosen at
	// least once (only set where the odds of missing one are negligible).
	EveryCandidateUsed bool `json:"every_candidate_used"`
}

// checkProperties checks a random or p2c run against properties that hold
// whatever numbers the generator draws, for the scenario's seed and another.
func checkProperties(t *testing.T, sc *scenario.Scenario, data []byte, log string) {
	t.Helper()
	var p specProperties
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("properties.json: %v", err)
	}
	checkRunProperties(t, "seed from scenario", sc.Policy, p, log)

	var again bytes.Buffer
	if _, err := core.Run(sc, core.RunOptions{Dispatch: &again}); err != nil {
		t.Fatalf("second core.Run: %v", err)
	}
	if msg := diffLines(again.String(), log); msg != "" {
		t.Errorf("same scenario and seed gave a different dispatch log: %s", msg)
	}
	seed := uint64(987654321)
	var other bytes.Buffer
	if _, err := core.Run(sc, core.RunOptions{Dispatch: &other, Seed: &seed}); err != nil {
		t.Fatalf("core.Run with seed %d: %v", seed, err)
	}
	checkRunProperties(t, fmt.Sprintf("seed %d", seed), sc.Policy, p, other.String())
}

func checkRunProperties(t *testing.T, label, policy string, p specProperties, log string) {
	t.Helper()
	rows := parseDispatch(t, log)
	if len(rows) != p.Requests {
		t.Errorf("%s: got %d dispatch rows, want %d", label, len(rows), p.Requests)
	}
	used := map[string]bool{}
	for i, r := range rows {
		for _, msg := range rowProblems(policy, p, r) {
			t.Errorf("%s: line %d: %s", label, r.line, msg)
		}
		if policy == "p2c" {
			if msg := p2cProblem(p, rows, i); msg != "" {
				t.Errorf("%s: line %d: %s", label, r.line, msg)
			}
		}
		used[r.service+" "+r.queue] = true
	}
	if msg := overlapProblem(rows); msg != "" {
		t.Errorf("%s: %s", label, msg)
	}
	if p.EveryCandidateUsed {
		for svc, qs := range p.Candidates {
			for _, q := range qs {
				if !used[svc+" "+q] {
					t.Errorf("%s: queue %s was never chosen for %s", label, q, svc)
				}
			}
		}
	}
}

// rowProblems checks one row of a single-machine run: a candidate queue, an
// instance of that queue, the policy as reason, and consistent times.
func rowProblems(policy string, p specProperties, r dispatchRow) []string {
	var msgs []string
	if r.reason != policy {
		msgs = append(msgs, fmt.Sprintf("reason: got %q, want %q", r.reason, policy))
	}
	if !contains(p.Candidates[r.service], r.queue) {
		msgs = append(msgs, fmt.Sprintf("queue %s does not advertise %s (candidates %v)", r.queue, r.service, p.Candidates[r.service]))
	}
	if !contains(p.Queues[r.queue], r.server) {
		msgs = append(msgs, fmt.Sprintf("server %s is not an instance of queue %s", r.server, r.queue))
	}
	if r.enqueue != r.issue || r.start < r.enqueue || r.end < r.start || r.reply != r.end {
		msgs = append(msgs, fmt.Sprintf("times: issue %d enqueue %d start %d end %d reply %d are not consistent on one machine",
			r.issue, r.enqueue, r.start, r.end, r.reply))
	}
	return msgs
}

// p2cProblem checks that p2c did not choose a queue strictly longer (by the
// jsq measure, rebuilt from earlier rows) than every other candidate: it drew
// two distinct candidates and kept the shorter, so that cannot happen.
func p2cProblem(p specProperties, rows []dispatchRow, i int) string {
	r := rows[i]
	cands := p.Candidates[r.service]
	if len(cands) < 2 {
		return ""
	}
	chosenNum, chosenDen := jsqMeasure(p, rows, i, r.queue)
	var seen []string
	for _, q := range cands {
		if q == r.queue {
			continue
		}
		num, den := jsqMeasure(p, rows, i, q)
		if chosenNum*den <= num*chosenDen {
			return ""
		}
		seen = append(seen, fmt.Sprintf("%s=%d/%d", q, num, den))
	}
	return fmt.Sprintf("p2c chose %s (%d/%d), strictly longer than every other candidate (%s)",
		r.queue, chosenNum, chosenDen, strings.Join(seen, ", "))
}

// jsqMeasure is (waiting + in service) over n(q) for queue q when row i was
// issued: earlier requests that entered q by then and had not yet finished
// (a completion at the same instant runs before a new request).
func jsqMeasure(p specProperties, rows []dispatchRow, i int, q string) (num, den int64) {
	at := rows[i].issue
	for _, r := range rows[:i] {
		if r.queue == q && r.enqueue <= at && r.end > at {
			num++
		}
	}
	return num, int64(len(p.Queues[q]))
}

// overlapProblem reports a server that ran two requests at once.
func overlapProblem(rows []dispatchRow) string {
	busyUntil := map[string]int64{}
	byStart := append([]dispatchRow(nil), rows...)
	sort.SliceStable(byStart, func(a, b int) bool { return byStart[a].start < byStart[b].start })
	for _, r := range byStart {
		if r.start < busyUntil[r.server] {
			return fmt.Sprintf("server %s starts line %d at %d while busy until %d", r.server, r.line, r.start, busyUntil[r.server])
		}
		busyUntil[r.server] = r.end
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSpecHarness checks the harness's own matchers, so a passing fidelity
// run means the engine agreed, not that the comparison was blind.
func TestSpecHarness(t *testing.T) {
	if msg := diffLines("a\r\nb\r\n", "a\nb"); msg != "" {
		t.Errorf("diffLines of equal texts: got %q, want none", msg)
	}
	if msg := diffLines("a\nb\n", "a\nc\n"); !strings.HasPrefix(msg, "line 2:") {
		t.Errorf("diffLines: got %q, want a message about line 2", msg)
	}
	if msg := diffLines("a\n", "a\nb\n"); !strings.Contains(msg, "<missing>") {
		t.Errorf("diffLines of a short log: got %q, want <missing>", msg)
	}
	got := map[string]any{"requests": map[string]any{"issued": 3.0, "failed": map[string]any{}},
		"servers": []any{map[string]any{"id": "G1/1", "busy_ms": 0.3}}}
	for _, tc := range []struct {
		want string
		errs int
	}{
		{`{"requests": {"issued": 3}}`, 0},
		{`{"requests": {"issued": 4}}`, 1},
		{`{"servers": {"G1/1": {"busy_ms": 0.30000000000000004}}}`, 0},
		{`{"servers": {"G1/2": {"busy_ms": 0}}}`, 1},
		{`{"requests": {"failed": {"TPENOENT": 1}}, "model": "SHM"}`, 2},
	} {
		var w any
		if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
			t.Fatal(err)
		}
		if msgs := matchJSON("result", w, got); len(msgs) != tc.errs {
			t.Errorf("matchJSON(%s): got %d mismatches %q, want %d", tc.want, len(msgs), msgs, tc.errs)
		}
	}
	checkP2CHarness(t)
}

func checkP2CHarness(t *testing.T) {
	// jsq always picks a shortest queue, so its hand-worked log must pass the
	// p2c check; a log choosing the strictly longest queue must not.
	want, err := os.ReadFile(filepath.Join(specDir, "32-policy-jsq", "dispatch.csv"))
	if err != nil {
		t.Fatal(err)
	}
	p := specProperties{
		Queues:     map[string][]string{"QA": {"G1/1", "G1/2"}, "G1/3": {"G1/3"}},
		Candidates: map[string][]string{"SVC": {"QA", "G1/3"}},
	}
	rows := parseDispatch(t, string(want))
	for i := range rows {
		if msg := p2cProblem(p, rows, i); msg != "" {
			t.Errorf("jsq log row %d: got %q, want no p2c problem", i+1, msg)
		}
	}
	if msg := overlapProblem(rows); msg != "" {
		t.Errorf("jsq log: got %q, want no overlap", msg)
	}
	bad := append([]dispatchRow(nil), rows[:2]...)
	bad = append(bad, dispatchRow{line: 4, service: "SVC", server: "G1/3", queue: "G1/3", issue: 1000, enqueue: 1000, start: 100000, end: 101000})
	if msg := p2cProblem(p, bad, 2); msg == "" {
		t.Errorf("a choice of G1/3 (1/1) over QA (1/2): got no p2c problem, want one")
	}
	if msg := overlapProblem(append(bad[:2:2], dispatchRow{line: 9, server: "G1/3", start: 50000, end: 60000})); msg == "" {
		t.Errorf("two requests on G1/3 at once: got no overlap, want one")
	}
}
