package core

import (
	"context"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/result"
)

// TestCancelAndProgress: the context is checked and progress reported every
// 4096 requests.
func TestCancelAndProgress(t *testing.T) {
	m := engModel(t, twoSHM)
	var calls []int64
	reqs := &genRequests{total: 10000, meanGap: 1000, nsvc: len(m.Services), nm: 1}
	setup := engSetup(m)
	setup.ServiceTime[0] = []dist.Sampler{fixedMS(1)}
	_, err := simulate(setup, reqs, simOptions{RunOptions: RunOptions{Progress: func(done, total int64) {
		calls = append(calls, done, total)
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{4096, 10000, 8192, 10000}; len(calls) != 4 || calls[0] != want[0] || calls[2] != want[2] || calls[3] != want[3] {
		t.Errorf("progress calls: got %v, want %v", calls, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	reqs = &genRequests{total: 10000, meanGap: 1000, nsvc: len(m.Services), nm: 1}
	_, err = simulate(setup, reqs, simOptions{RunOptions: RunOptions{Context: ctx}})
	if diag.ErrorCode(err) != diag.ECANCELED {
		t.Errorf("canceled run: got %v, want a canceled error", err)
	}
}

func TestMaxRequests(t *testing.T) {
	m := engModel(t, twoSHM)
	reqs := engRequests(t, m, "0 S site1 1\n1 S site1 1\n2 S site1 1")
	_, err := simulate(engSetup(m), reqs, simOptions{RunOptions: RunOptions{MaxRequests: 2}})
	if diag.ErrorCode(err) != diag.ETOOLARGE {
		t.Errorf("got %v, want a too_large error", err)
	}
}

func TestEncodeResult(t *testing.T) {
	m := engModel(t, twoSHM)
	res, _ := runLog(t, engSetup(m), engRequests(t, m, "0 S site1 1"))
	b := result.Encode(res)
	if len(b) == 0 || b[len(b)-1] != '\n' || b[0] != '{' || b[1] != '\n' || b[2] != ' ' || b[3] != ' ' || b[4] != '"' {
		t.Errorf("got %q..., want indented JSON with a final newline", b[:min(len(b), 20)])
	}
	if string(result.Encode(res)) != string(b) {
		t.Errorf("two encodings differ")
	}
}
