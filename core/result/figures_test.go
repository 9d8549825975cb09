package result

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the figures table of docs/engine.md")

// TestFigureNames reads canonical names, scopes and the old names.
func TestFigureNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"response_p99_ms", "response_p99_ms"},
		{" response_p99_ms[INQUIRY] ", "response_p99_ms[INQUIRY]"},
		{"utilization_max[machine:SITE2]", "utilization_max[machine:SITE2]"},
		{"max_utilization", "utilization_max"},
		{"utilization.max", "utilization_max"},
		{"crossed_network", "network_sent"},
		{"utilization.SITE1", "utilization_mean[machine:SITE1]"},
		{"wait_ms.mean", "wait_mean_ms"},
		{"failed.TPENOENT", "failed.TPENOENT"},
		{"failed.TPENOENT[INQUIRY]", "failed.TPENOENT[INQUIRY]"},
		{"network_sent[machine:SITE1]", "network_sent[machine:SITE1]"},
	} {
		ref, err := ParseFigure(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := ref.String(); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"response_p100_ms", `unknown figure "response_p100_ms"`},
		{"utilization_max[INQUIRY]", "utilization_max has no per-service value"},
		{"response_p99_ms[machine:SITE1]", "response_p99_ms has no per-machine value"},
		{"utilization_mean", "want utilization_mean[machine:LMID]"},
		{"response_p99_ms[INQUIRY", "with the ] at the end"},
		{"response_p99_ms[]", "want NAME[SERVICE]"},
		{"utilization_max[machine:]", "want NAME[machine:LMID]"},
	} {
		_, err := ParseFigure(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want an error with %q", c.in, err, c.msg)
		}
	}
}

// TestFiguresDoc: the table in docs/engine.md is figuresMarkdown, between
// its markers; go test ./core/result -run FiguresDoc -update rewrites it.
func TestFiguresDoc(t *testing.T) {
	const path = "../../docs/engine.md"
	const begin, end = "<!-- figures table: generated from core/result/figures.go -->\n", "<!-- end of the figures table -->"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no figures table markers", path)
	}
	want := figuresMarkdown()
	if *update {
		doc = doc[:i+len(begin)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[i+len(begin) : j]; got != want {
		t.Errorf("%s: the figures table differs from core/result/figures.go; run go test ./core/result -run FiguresDoc -update\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestSweptFiguresAreInTheHeadline: every figure a sweep samples for the
// whole run is a key of the headline, so a sweep's table reads the headline.
func TestSweptFiguresAreInTheHeadline(t *testing.T) {
	for _, f := range figureTable {
		if f.Swept && f.scope&scopeRun != 0 && !f.Headline {
			t.Errorf("swept figure %s is not in the headline", f.Name)
		}
	}
}

// TestHeadlineNamedAsTheTable: the stored and compared headline (Headline's
// JSON) names every figure as the figures table does, and as its Figures
// list does, so that a run's record, compare and the result's own headline
// read alike.
func TestHeadlineNamedAsTheTable(t *testing.T) {
	h := Headline{SaturatedMachines: 1} // every field present
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	table := map[string]bool{}
	for _, f := range Figures() {
		table[f.Name] = true
	}
	listed := map[string]bool{}
	for _, f := range h.Figures() {
		listed[f.Name] = true
	}
	for k := range keys {
		if !table[k] {
			t.Errorf("Headline's JSON key %q is not a name of the figures table", k)
		}
		if !listed[k] {
			t.Errorf("Headline's JSON key %q is not among its Figures", k)
		}
	}
	if len(listed) != len(keys) {
		t.Errorf("Headline.Figures lists %d figures, its JSON %d", len(listed), len(keys))
	}
}

// The transactions' and /Q figures: read from the transactions block and
// the queues (the mean time in queue weighted by each queue's forwarded
// messages; of a service, the queue named like it), 0 when a result has
// none.
func TestTransactionAndQueueFigures(t *testing.T) {
	r := &Result{
		Transactions: &TransactionStats{Aborted: AbortedCounts{Timeout: 2, Failed: 3}, CommitMS: Summary{Mean: 4.5, P99: 9}},
		QSpaces: []QSpaceStats{
			{Name: "QS", Queues: []MsgQueueStats{
				{Name: "SHIP", Depth: QueueDepth{Max: 7}, TimeInQueueMS: Summary{Count: 2, Mean: 10, Max: 12}},
				{Name: "ERR", Depth: QueueDepth{Max: 1}},
			}},
			{Name: "QT", Queues: []MsgQueueStats{{Name: "BILL", Depth: QueueDepth{Max: 9}, TimeInQueueMS: Summary{Count: 3, Mean: 20, Max: 40}}}},
		},
		Services: []ServiceStats{{Name: "SHIP"}, {Name: "BILL"}, {Name: "OTHER"}},
	}
	for name, want := range map[string]float64{
		"commit_mean_ms": 4.5, "commit_p99_ms": 9, "aborted": 5,
		"qdepth_max": 9, "time_in_queue_mean_ms": 16, "time_in_queue_max_ms": 40, // (2·10 + 3·20) / 5
		"qdepth_max[SHIP]": 7, "time_in_queue_mean_ms[SHIP]": 10, "time_in_queue_max_ms[BILL]": 40, "qdepth_max[OTHER]": 0,
	} {
		ref, err := ParseFigure(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := ref.Of(r); got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	empty := &Result{}
	for _, name := range []string{"commit_mean_ms", "aborted", "qdepth_max", "time_in_queue_mean_ms"} {
		ref, _ := ParseFigure(name)
		if got := ref.Of(empty); got != 0 {
			t.Errorf("%s of a result without transactions or /Q: got %v, want 0", name, got)
		}
	}
}
