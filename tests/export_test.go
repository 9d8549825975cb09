package tests

// A monitoring export as it comes (testdata/export: semicolons, DD/MM/YYYY
// date-times, decimal commas, host names for machines, an account column
// for routing, an elapsed column the monitor observed, a total line at the
// end), replayed on the bank configuration through the binary and the API.

import (
	"bytes"
	"encoding/json"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const exportMap = "observed=Elapsed(ms),route=Account"

// exportObserved is the mean and count of the export's Elapsed(ms) column,
// read here apart from tuxlb: every line but the header and the total.
func exportObserved(t *testing.T, text string) (mean float64, n int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	sum := 0.0
	for _, line := range lines[1 : len(lines)-1] {
		f := strings.Split(line, ";")
		v, err := strconv.ParseFloat(strings.Replace(f[3], ",", ".", 1), 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		sum += v
		n++
	}
	return sum / float64(n), n
}

type exportResult struct {
	Requests struct {
		Issued, Completed int64
		Failed            map[string]int64
	}
	Trace struct {
		Rows, Skipped   int
		SkippedExamples []string `json:"skipped_examples"`
	}
	Validation struct {
		Overall struct {
			Observed, Simulated struct {
				Count int64
				Mean  float64
			}
		}
		Services []struct{ Service string }
	}
	Machines []struct {
		LMID   string
		Served int64
	}
}

func TestExportReplayThroughTheBinaryAndTheAPI(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "tests", "testdata", "export")
	ubbPath, logPath := filepath.Join(dir, "bank.ubb"), filepath.Join(dir, "export.csv")
	logText, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	ubbText, _ := os.ReadFile(ubbPath)
	mean, n := exportObserved(t, string(logText))

	// without --trace-skip-bad the total line is the error, named
	base := []string{"run", "--ubbconfig", ubbPath, "--trace", logPath, "--trace-map", exportMap}
	cmd := exec.Command(binaryPath(t), base...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "export.csv: trace row 7001: Timestamp") {
		t.Fatalf("without --trace-skip-bad: %v, stderr %q; want the error of row 7001's Timestamp", err, stderr.String())
	}

	cmd = exec.Command(binaryPath(t), append(base, "--trace-skip-bad")...)
	stderr.Reset()
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("tuxlb %v: %v\n%s", base, err, stderr.String())
	}
	var res exportResult
	if err := json.Unmarshal(want, &res); err != nil {
		t.Fatal(err)
	}
	if res.Trace.Rows != n || res.Trace.Skipped != 1 || len(res.Trace.SkippedExamples) != 1 || !strings.HasPrefix(res.Trace.SkippedExamples[0], "row 7001: ") {
		t.Errorf("trace block %+v, want %d rows and the total line (row 7001) skipped", res.Trace, n)
	}
	// routed by the account column: nothing fails for want of a routing value
	if res.Requests.Issued != int64(n) || res.Requests.Completed != int64(n) || len(res.Requests.Failed) != 0 {
		t.Errorf("requests %+v, want all %d completed", res.Requests, n)
	}
	o := res.Validation.Overall.Observed
	if o.Count != int64(n) || math.Abs(o.Mean-mean) > 1e-6 || res.Validation.Overall.Simulated.Count != int64(n) || len(res.Validation.Services) != 3 {
		t.Errorf("validation %+v, want %d observed of mean %.6f and three services", res.Validation, n, mean)
	}
	// host names (node1, NODE2) are the machines' LMIDs: both sites issue
	for _, m := range res.Machines {
		if m.Served == 0 {
			t.Errorf("machine %s served nothing: %+v", m.LMID, res.Machines)
		}
	}

	// the same files as multipart parts give the same bytes
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range []struct{ name, file, text string }{
		{"ubbconfig", "bank.ubb", string(ubbText)}, {"trace", "export.csv", string(logText)},
		{"trace_map", "", exportMap}, {"trace_skip_bad", "", "true"},
	} {
		var w interface{ Write([]byte) (int, error) }
		if p.file != "" {
			w, _ = mw.CreateFormFile(p.name, p.file)
		} else {
			w, _ = mw.CreateFormField(p.name)
		}
		w.Write([]byte(p.text))
	}
	mw.Close()
	status, _, got := srv.call(t, "POST", "/api/v1/runs", mw.FormDataContentType(), body.Bytes())
	var created struct {
		ID     string
		Result json.RawMessage
	}
	if status != http.StatusCreated || json.Unmarshal(got, &created) != nil {
		t.Fatalf("POST /api/v1/runs (multipart): %d %.300s", status, got)
	}
	if !bytes.Equal(created.Result, bytes.TrimRight(want, "\n")) {
		t.Errorf("the API's result differs from `tuxlb run`'s (%d vs %d bytes)", len(created.Result), len(want))
	}

	// a bad trace_skip_bad part is a 422 naming it
	body.Reset()
	mw = multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("ubbconfig", "bank.ubb")
	w.Write(ubbText)
	w, _ = mw.CreateFormField("trace_skip_bad")
	w.Write([]byte("perhaps"))
	mw.Close()
	status, _, got = srv.call(t, "POST", "/api/v1/runs", mw.FormDataContentType(), body.Bytes())
	if status != http.StatusUnprocessableEntity || !bytes.Contains(got, []byte(`"field":"trace_skip_bad"`)) {
		t.Errorf("trace_skip_bad=perhaps: %d %.300s, want 422 naming the part", status, got)
	}

	// 1.5 times the log's rate, as a compare variant
	cmd = exec.Command(binaryPath(t), "compare", "--ubbconfig", ubbPath, "--trace", logPath, "--trace-map", exportMap,
		"--trace-skip-bad", "--variant", "rate_scale=1.5", "--format", "json")
	stderr.Reset()
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("compare rate_scale=1.5: %v\n%s", err, stderr.String())
	}
	var cmp struct {
		Variants []struct {
			Name     string
			Headline map[string]float64
		}
	}
	if err := json.Unmarshal(out, &cmp); err != nil || len(cmp.Variants) != 2 {
		t.Fatalf("compare: %v %.300s", err, out)
	}
	base0, fast := cmp.Variants[0].Headline, cmp.Variants[1].Headline
	// the same requests (and service times) in two thirds of the time: the
	// busiest server about 1.5 times as busy (the span ends with the last
	// reply, and the busiest may be another server's share)
	if r := fast["utilization_max"] / base0["utilization_max"]; math.Abs(r-1.5) > 0.05 || fast["issued"] != base0["issued"] {
		t.Errorf("utilization_max %v then %v: ratio %v, want about 1.5 for the same %v requests", base0["utilization_max"], fast["utilization_max"], r, base0["issued"])
	}
}
